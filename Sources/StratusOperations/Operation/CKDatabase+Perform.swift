import StratusCore

extension CKDatabase {
    /// Runs `operation` the way every convenience method does: at `.userInitiated` quality of
    /// service (or with the configuration and group of `configuredWith`), on this database's
    /// queue, waiting for the result its final block hands over.
    ///
    /// If the calling task is cancelled, the operation is cancelled too: before its request is
    /// sent, the call throws `operationCancelled`; once the request is on its way, the call
    /// returns what the server did, so a save that happened is never reported as cancelled.
    func perform<Operation: CKDatabaseOperation, Value: Sendable>(
        _ operation: Operation,
        _ install: (Operation, _ resume: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
    ) async throws -> Value {
        applyConvenienceSettings(to: operation)
        let result: Result<Value, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let outcome = Locked<Result<Value, any Error>?>(nil)
                install(operation) { outcome.value = $0 }
                operation.afterFinishing.value = {
                    continuation.resume(returning: outcome.value ?? .failure(CKError(.internalError, message: "the operation finished without a result")))
                }
                add(operation)
            }
        } onCancel: {
            operation.cancel()
        }
        return try result.get()
    }
}

extension CKDatabase {
    /// Gives a convenience call's operation its configuration: the one `configuredWith` set,
    /// if any, and its group; `.userInitiated` quality of service unless that configuration or
    /// group sets another.
    package func applyConvenienceSettings(to operation: CKOperation) {
        if let configuration = convenienceSettings?.configuration as? CKOperation.Configuration {
            operation.configuration = configuration
        }
        if let group = convenienceSettings?.group as? CKOperationGroup {
            operation.group = group
        }
        if !operation.resolvedConfiguration.explicit.contains(.qualityOfService) {
            operation.configuration.qualityOfService = .userInitiated
        }
    }
}

extension Error {
    /// Whether this is a `partialFailure`: some items failed, and their results say which.
    package var isPartialFailure: Bool {
        (self as? CKError)?.code == .partialFailure
    }
}

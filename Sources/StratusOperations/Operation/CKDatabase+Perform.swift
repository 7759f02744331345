import StratusCore

/// Sets a modify operation's blocks to the three it is given: the per-save block (item ID and
/// result), the per-delete block and the final block. The convenience calls and the sync engine
/// collect a modify's results through one.
typealias ModifyConnector<Operation, ID, Value> = (
    Operation,
    _ save: @escaping (ID, Result<Value, any Error>) -> Void,
    _ delete: @escaping (ID, Result<Void, any Error>) -> Void,
    _ final: @escaping (Result<Void, any Error>) -> Void
) -> Void

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

    /// Runs `operation`, an operation that saves and deletes items, as ``perform(_:_:)`` does,
    /// and returns each item's outcome keyed by its ID, with the `partialFailure` the final
    /// block reported, if any; only an error of the whole request is thrown.
    ///
    /// - Parameter connect: Sets the operation's per-save block to its second argument, its
    ///   per-delete block to its third and its final block to its fourth.
    func performModify<Operation: CKDatabaseOperation, ID: Hashable & Sendable, Value: Sendable>(
        _ operation: Operation,
        _ connect: ModifyConnector<Operation, ID, Value>
    ) async throws -> (saveResults: [ID: Result<Value, any Error>], deleteResults: [ID: Result<Void, any Error>], partialFailure: CKError?) {
        try await perform(operation) { operation, resume in
            var saveResults: [ID: Result<Value, any Error>] = [:]
            var deleteResults: [ID: Result<Void, any Error>] = [:]
            connect(operation, { saveResults[$0] = $1 }, { deleteResults[$0] = $1 }) { final in
                switch final {
                case .success: resume(.success((saveResults, deleteResults, nil)))
                case .failure(let error) where error.isPartialFailure: resume(.success((saveResults, deleteResults, error as? CKError)))
                case .failure(let error): resume(.failure(error))
                }
            }
        }
    }

    /// Runs `operation`, an operation with one result per item, as ``perform(_:_:)`` does, and
    /// returns each item's outcome keyed by its ID; only an error of the whole request is
    /// thrown.
    ///
    /// - Parameter connect: Sets the operation's per-item block to its second argument and its
    ///   final block to its third.
    func performItems<Operation: CKDatabaseOperation, ID: Hashable & Sendable, Value: Sendable>(
        _ operation: Operation,
        _ connect: (Operation, _ item: @escaping (ID, Result<Value, any Error>) -> Void, _ final: @escaping (Result<Void, any Error>) -> Void) -> Void
    ) async throws -> [ID: Result<Value, any Error>] {
        let outcome: (saveResults: [ID: Result<Value, any Error>], deleteResults: [ID: Result<Void, any Error>], partialFailure: CKError?) =
            try await performModify(operation) { operation, item, _, final in connect(operation, item, final) }
        return outcome.saveResults
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

extension Dictionary {
    /// The outcome for `key` of a call made for that one item (`save(_:)`, `record(for:)`,
    /// `deleteRecordZone(withID:)`, …): its value, or its error thrown. An answer without a
    /// result for the item throws `internalError` naming `item` ("record 'photo-1'").
    func result<Success>(for key: Key, of item: @autoclosure () -> String) throws -> Success where Value == Result<Success, any Error> {
        guard let result = self[key] else { throw CKError(.internalError, message: "no result for \(item())") }
        return try result.get()
    }
}

import StratusCore

extension CKContainer {
    /// Runs `operation`, an operation with one result per item, on the container's queue with
    /// the convenience calls' configuration, and returns each item's outcome in order: what
    /// the container's batch and single convenience methods are built on, at one request per
    /// call.
    ///
    /// - Parameter connect: Sets the operation's per-item block to its second argument and its
    ///   final block to its third.
    /// - Throws: The request's error; a `partialFailure` is not thrown, its items are returned.
    func runItemOperation<Operation: CKOperation, Item: Sendable, Value: Sendable>(
        _ operation: Operation,
        connect: (Operation, @escaping (Item, Result<Value, any Error>) -> Void, @escaping (Result<Void, any Error>) -> Void) -> Void
    ) async throws -> [(Item, Result<Value, any Error>)] {
        privateCloudDatabase.applyConvenienceSettings(to: operation)
        let outcome: Result<[(Item, Result<Value, any Error>)], any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let results = Locked<[(Item, Result<Value, any Error>)]>([])
                let final = Locked<Result<Void, any Error>?>(nil)
                connect(operation, { item, result in results.withValue { $0.append((item, result)) } }, { final.value = $0 })
                operation.afterFinishing.value = {
                    switch final.value {
                    case .failure(let error) where !error.isPartialFailure: continuation.resume(returning: .failure(error))
                    case .none: continuation.resume(returning: .failure(CKError(.internalError, message: "the operation finished without a result")))
                    default: continuation.resume(returning: .success(results.value))
                    }
                }
                add(operation)
            }
        } onCancel: {
            operation.cancel()
        }
        return try outcome.get()
    }
}

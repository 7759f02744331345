import Foundation
import StratusCore
import StratusOperations

/// The engine of ``RetryOperation``: a fresh operation per attempt, run to its final block,
/// until one does not fail with an error the policy retries.
struct RetryRun {
    let database: CKDatabase
    let policy: RetryPolicy
    let makeOperation: @Sendable (_ attempt: Int) -> CKDatabaseOperation
    let appliesConvenienceSettings: Bool

    /// Runs attempts until one settles.
    ///
    /// - Returns: The last attempt's final result, and how many attempts ran.
    func run() async -> (Result<Void, any Error>, attempts: Int) {
        var generator = RetryJitterGenerator(seed: policy.seed)
        var attempt = 0
        while true {
            attempt += 1
            if Task.isCancelled {
                return (.failure(CKError(.operationCancelled, message: "the retry was cancelled before attempt \(attempt)")), attempt - 1)
            }
            let result = await runAttempt(attempt)
            guard case .failure(let failure) = result, let error = failure as? CKError,
                  policy.retries(error), attempt < policy.attemptLimit
            else { return (result, attempt) }
            let waited = await RecipeWait.beforeRetry(after: [error], attempt: attempt, retry: attempt, policy: policy, generator: &generator, in: database.container)
            if !waited {
                return (.failure(CKError(.operationCancelled, message: "the retry was cancelled while it waited after attempt \(attempt)")), attempt)
            }
        }
    }

    private func runAttempt(_ attempt: Int) async -> Result<Void, any Error> {
        let operation = makeOperation(attempt)
        if operation.isFinished || operation.isExecuting || operation.isEnqueuedByStratus.value {
            return .failure(CKError(.invalidArguments, message: "the retry's factory returned an operation that was already added or run; build a new operation on every call"))
        }
        if appliesConvenienceSettings { database.applyConvenienceSettings(to: operation) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Read the result once the attempt has finished: what its final block was given,
                // whichever block (modern or legacy) the caller set.
                operation.afterFinishing.value = {
                    continuation.resume(returning: operation.reportedErrors.first.map { .failure($0) } ?? .success(()))
                }
                database.add(operation)
            }
        } onCancel: {
            operation.cancel()
        }
    }
}

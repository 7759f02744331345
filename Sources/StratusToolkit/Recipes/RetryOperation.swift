import Foundation
import StratusCore
import StratusOperations

/// Runs a CloudKit operation again, as a fresh operation, whenever it fails as a whole with an
/// error its ``policy`` retries.
///
/// CloudKit has no such operation: it is the retry loop its documentation asks every app to
/// write. Each attempt is a new operation from the factory closure, so no operation runs
/// twice, and the factory can rebuild its blocks each time. The attempt's blocks run as usual;
/// the retry reads the result its final block was given once it has finished. A failure of
/// the whole operation with a code the policy retries is retried after the error's
/// `retryAfterSeconds`, the policy's backoff, or `.CKAccountChanged`; any other result,
/// `partialFailure` included, ends the retry. To retry only the items of a partial failure,
/// use ``RetryModifyRecordsOperation``.
///
/// ```swift
/// let fetch = RetryOperation(database: database, policy: RetryPolicy(seed: 3)) { _ in
///     let operation = CKFetchRecordsOperation(recordIDs: ids)
///     operation.perRecordResultBlock = { recordID, result in fetched[recordID] = result }   // the last attempt's result wins
///     return operation
/// }
/// fetch.retryResultBlock = { result in … }
/// queue.addOperation(fetch)
/// ```
///
/// Per-item blocks of an attempt that failed as a whole see that attempt's error; keep
/// results keyed by ID so the next attempt's replace them.
///
/// CloudKit document: *CKError.retryAfterSeconds*.
public final class RetryOperation: RecipeOperation, @unchecked Sendable {
    /// The database the attempts run on.
    public let database: CKDatabase
    /// Which failures are retried, how often, and after which waits.
    public let policy: RetryPolicy
    private let makeOperation: Locked<(@Sendable (_ attempt: Int) -> CKDatabaseOperation)?>

    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - database: The database the attempts run on.
    ///   - policy: Which failures are retried, how often and after which waits.
    ///   - makeOperation: Builds attempt number `attempt` (from 1): a new operation each call.
    ///     Released once the operation finishes, so it may capture the operation.
    public init(database: CKDatabase, policy: RetryPolicy = RetryPolicy(), makeOperation: @escaping @Sendable (_ attempt: Int) -> CKDatabaseOperation) {
        self.database = database
        self.policy = policy
        self.makeOperation = Locked(makeOperation)
        super.init()
    }

    /// How many attempts ran; final once the operation finished.
    @_Locked public private(set) var attempts = 0

    /// Called once, last: the final result of the last attempt, or `operationCancelled`.
    @_OperationBlock public var retryResultBlock: ((Result<Void, any Error>) -> Void)?

    override func execute() async {
        guard let makeOperation = makeOperation.value else {
            reportFailure(CKError(.internalError, message: "the retry's factory was released before it ran"))
            return
        }
        let run = RetryRun(database: database, policy: policy, makeOperation: makeOperation, appliesConvenienceSettings: false)
        let (result, attempts) = await run.run()
        self.attempts = attempts
        deliverFinal(result, to: retryResultBlock)
    }

    override func releaseClosures() {
        makeOperation.value = nil
    }

    override func reportFailure(_ error: CKError) {
        deliverFinal(error, to: retryResultBlock)
    }
}

extension CKDatabase {
    /// Runs a CloudKit operation, and a fresh one from `makeOperation` again whenever it fails
    /// as a whole with an error `policy` retries; see ``RetryOperation``. Each attempt runs like
    /// a convenience call (`.userInitiated`, or what `configuredWith` set) unless the factory
    /// sets a quality of service.
    ///
    /// - Parameters:
    ///   - policy: Which failures are retried, how often and after which waits.
    ///   - makeOperation: Builds attempt number `attempt` (from 1): a new operation each call.
    /// - Throws: The last attempt's error, `partialFailure` included.
    public func runRetrying(policy: RetryPolicy = RetryPolicy(), _ makeOperation: @escaping @Sendable (_ attempt: Int) -> CKDatabaseOperation) async throws {
        let run = RetryRun(database: self, policy: policy, makeOperation: makeOperation, appliesConvenienceSettings: true)
        try await run.run().0.get()
    }
}

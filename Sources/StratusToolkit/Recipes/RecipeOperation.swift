import Foundation
import StratusCore
import StratusOperations
import StratusWire

/// The base class of Stratus's CloudKit recipes as operations: ``RetryOperation``,
/// ``RetryModifyRecordsOperation``, ``BatchModifyOperation``, ``QueryAllOperation`` and
/// ``ConflictResolvingSaveOperation``.
///
/// CloudKit has no such class: each recipe is the code the CloudKit talks tell every app to
/// write by hand, packaged as one asynchronous `Operation` that runs fresh CloudKit operations
/// of its own. Put it on any `OperationQueue`; it never needs a Stratus queue.
///
/// Every recipe operation keeps the same contract:
/// - it finishes exactly once, and signals `isFinished` last, after its final block returned,
///   so an operation that depends on it always sees its results;
/// - cancelled before it starts, it sends nothing, reports `operationCancelled` to every item
///   and its final block, and finishes at once; cancelled while it runs, it cancels the
///   CloudKit operation in flight, stops waiting, and reports what the server did, with
///   `operationCancelled` for the items it never got to;
/// - its blocks run one at a time, never concurrently, so sibling blocks may share state
///   without locks; once the final block has returned, every block is released, so blocks
///   that capture the operation do not keep it alive.
///
/// You do not subclass it; use one of the recipes.
public class RecipeOperation: _AsyncOperation, OperationErrorReporting, StartReporting, @unchecked Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    override init() {
        super.init()
    }

    /// Begins the recipe once `start()` has made it executing: it reports a cancellation or a
    /// failed condition to every item and its final block, or runs its work in a task.
    /// `start()` calls it; do not call it yourself.
    public override func main() {
        if let failure = isCancelled ? CKError(.operationCancelled, message: "the operation was cancelled before it started") : conditionFailure.value {
            reportFailure(failure)
            finishRecipe()
            return
        }
        OperationAttachment.operationDidStart(self)
        let task = Task { [self] in
            await execute()
            finishRecipe()
        }
        self.task.value = task
        // A cancel that came between the check above and storing the task still reaches it.
        if isCancelled { task.cancel() }
    }

    /// Cancels the operation: the CloudKit operation in flight is cancelled, waits end, and
    /// the items not yet done get `operationCancelled`. The operation still finishes through
    /// its normal path, once.
    ///
    /// As `CKOperation` does, it drops the dependencies that have not finished (Foundation on
    /// Linux can crash when such a dependency finishes after the cancelled operation is gone),
    /// with the operation already marked cancelled, so one the removal makes ready starts
    /// cancelled.
    public override func cancel() {
        super.cancel()
        task.value?.cancel()
    }

    // MARK: - Subclass hooks

    /// Does the recipe's work and calls its blocks, final block last. Runs in a task whose
    /// cancellation follows ``cancel()``.
    func execute() async {}

    /// Reports `error` to every item and the final block, for an operation that never ran:
    /// `operationCancelled` when it was cancelled before it started, or the error of a
    /// condition that stopped it.
    func reportFailure(_ error: CKError) {}

    // MARK: - Error reporting

    /// Stops the recipe before it sends anything: when it starts, it reports `error` to every
    /// item and its final block, as cancellation reports `operationCancelled`.
    ///
    /// - SeeAlso: ``OperationErrorReporting/conditionDidFail(with:)``
    public func conditionDidFail(with error: any Error) {
        noteConditionFailure(error)
    }

    /// The error the final block reported, once the recipe has finished; empty on success.
    ///
    /// - SeeAlso: ``OperationErrorReporting/reportedErrors``
    public var reportedErrors: [any Error] {
        errorsReportedOnFinish
    }

    /// Drops the closures the recipe was configured with (factories, merges), once it has
    /// finished, so a closure that captures the operation does not keep it alive.
    func releaseClosures() {}

    // MARK: - Finishing

    /// Releases the blocks and the closures and moves to finished, signalling `isExecuting` and
    /// then `isFinished`; only the first call does anything.
    private func finishRecipe() {
        guard beginFinishing() else { return }
        releaseClosures()
        task.value = nil
        endFinishing()
    }
}

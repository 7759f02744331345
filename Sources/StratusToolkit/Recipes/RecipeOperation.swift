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
public class RecipeOperation: Operation, OperationErrorReporting, StartReporting, @unchecked Sendable {
    private enum State {
        case initialized, executing, finished
    }

    private let lock = NSLock()
    private var state = State.initialized
    /// Set by the one caller that gets to finish the operation.
    private var isFinishing = false
    private var task: Task<Void, Never>?

    /// The recipe's blocks, released together once the final block has returned.
    let blocks = OperationBlocks()

    override init() {
        super.init()
    }

    /// Always true: the operation finishes when its work does, not when `start()` returns.
    public override var isAsynchronous: Bool { true }

    /// Whether the operation is running.
    public override var isExecuting: Bool {
        lock.withLock { state == .executing }
    }

    /// Whether the operation is done and its final block has returned.
    public override var isFinished: Bool {
        lock.withLock { state == .finished }
    }

    /// Foundation's answer, or true once every dependency has finished (see
    /// `CKOperation.isReady`: Foundation on Linux forgets to recount after `removeDependency`).
    public override var isReady: Bool {
        super.isReady || dependencies.allSatisfy(\.isFinished)
    }

    /// Removes a dependency and tells the queue to look at the operation's readiness again.
    public override func removeDependency(_ operation: Operation) {
        super.removeDependency(operation)
        willChangeValue(forKey: "isReady")
        didChangeValue(forKey: "isReady")
    }

    /// Starts the operation. Queues call this; call it yourself only for an operation in no queue.
    public override func start() {
        let mayStart = lock.withLock { () -> Bool in
            guard state == .initialized, !isFinishing else { return false }
            return true
        }
        guard mayStart else {
            runtimeWarning("\(type(of: self)) was started twice; the second start is ignored")
            return
        }
        if let failure = isCancelled ? CKError(.operationCancelled, message: "the operation was cancelled before it started") : conditionFailure.value {
            reportFailure(failure)
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { state = .executing }
        didChangeValue(forKey: "isExecuting")
        OperationAttachment.operationDidStart(self)
        let task = Task { [self] in
            await execute()
            finish()
        }
        lock.withLock { self.task = task }
        // A cancel that came between the check above and storing the task still reaches it.
        if isCancelled { task.cancel() }
    }

    /// Cancels the operation: the CloudKit operation in flight is cancelled, waits end, and
    /// the items not yet done get `operationCancelled`. The operation still finishes through
    /// its normal path, once.
    ///
    /// A cancelled operation does not wait for its dependencies, so, as `CKOperation` does, the
    /// dependencies that have not finished are removed first (Foundation on Linux can crash
    /// when such a dependency finishes after the cancelled operation is gone), with the
    /// operation already marked cancelled, so one the removal makes ready starts cancelled.
    public override func cancel() {
        cancelRequested.value = true
        CancelledDependencies.release(self) { removeDependency($0) }
        super.cancel()
        let running = lock.withLock { task }
        running?.cancel()
    }

    /// Set by ``cancel()`` before Foundation's own flag, which it sets last.
    private let cancelRequested = Locked(false)

    /// Whether the operation was cancelled.
    public override var isCancelled: Bool {
        cancelRequested.value || super.isCancelled
    }

    // MARK: - Subclass hooks

    /// Does the recipe's work and calls its blocks, final block last. Runs in a task whose
    /// cancellation follows ``cancel()``.
    func execute() async {}

    /// Reports `error` to every item and the final block, for an operation that never ran:
    /// `operationCancelled` when it was cancelled before it started, or the error of a
    /// condition that stopped it.
    func reportFailure(_ error: CKError) {}

    /// Notes the error the final block reported, for ``reportedErrors``; subclasses call it
    /// from their final delivery.
    func noteFinalResult(_ result: Result<Void, any Error>) {
        if case .failure(let error) = result { finishedError.value = error }
    }

    // MARK: - Error reporting

    private let conditionFailure = Locked<CKError?>(nil)
    private let finishedError = Locked<(any Error)?>(nil)

    /// Stops the recipe before it sends anything: when it starts, it reports `error` to every
    /// item and its final block, as cancellation reports `operationCancelled`.
    ///
    /// - SeeAlso: ``OperationErrorReporting/conditionDidFail(with:)``
    public func conditionDidFail(with error: any Error) {
        let reported = CKError.reporting(conditionFailure: error)
        conditionFailure.withValue { stored in
            if stored == nil { stored = reported }
        }
    }

    /// The error the final block reported, once the recipe has finished; empty on success.
    ///
    /// - SeeAlso: ``OperationErrorReporting/reportedErrors``
    public var reportedErrors: [any Error] {
        guard isFinished, let error = finishedError.value else { return [] }
        return [error]
    }

    /// Drops the closures the recipe was configured with (factories, merges), once it has
    /// finished, so a closure that captures the operation does not keep it alive.
    func releaseClosures() {}

    // MARK: - Finishing

    /// Releases the blocks and moves to finished, signalling `isExecuting` and then
    /// `isFinished`; only the first call does anything.
    private func finish() {
        let claimed = lock.withLock { () -> Bool in
            guard !isFinishing else { return false }
            isFinishing = true
            return true
        }
        guard claimed else { return }
        blocks.releaseAll()
        releaseClosures()
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.withLock {
            state = .finished
            task = nil
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

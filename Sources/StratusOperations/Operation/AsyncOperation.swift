import Foundation
import StratusCore
import StratusWire

/// An implementation detail of Stratus: the one asynchronous-operation runtime under
/// `CKOperation` and the operations toolkit's `GroupOperation`, `DelayOperation` and recipe
/// operations. Do not use it or subclass it yourself; it is public only because those public
/// classes inherit from it.
///
/// It owns what every one of them does the same way:
/// - the state machine (``OperationLifecycle``): `start()` moves to executing once (a second
///   start is ignored with a warning) and then calls `main()`, where the subclass does its
///   work; finishing signals `isFinished` last, after the final block has returned;
/// - readiness that Foundation on Linux forgets: `isReady` is also true once every dependency
///   has finished, and `removeDependency(_:)` tells the queue to look again;
/// - cancellation: `cancel()` marks the operation cancelled first, then drops its dependencies
///   that have not finished (``CancelledDependencies``), then sets Foundation's flag; a
///   finished operation stays as it finished;
/// - the operation's blocks (``OperationBlocks``), released once the final block has returned;
/// - the error of a condition that stopped it, and the error its final block reported.
open class _AsyncOperation: Operation, @unchecked Sendable {
    /// The state machine.
    package let lifecycle = OperationLifecycle()
    /// Every block of the operation and its subclass, each under its property; all are
    /// released once the final block has returned.
    package let blocks = OperationBlocks()
    /// The error of the condition that stopped the operation before it started, if one did.
    package let conditionFailure = Locked<CKError?>(nil)
    /// The error the final block was given, set before the operation is finished.
    package let finishedError = Locked<(any Error)?>(nil)

    /// Creates an operation that has not started.
    public override init() {
        super.init()
    }

    // MARK: - State

    /// Always true: the operation finishes when its work does, not when `start()` returns.
    public final override var isAsynchronous: Bool { true }

    /// Whether the operation is running.
    public final override var isExecuting: Bool { lifecycle.isExecuting }

    /// Whether the operation is done and its final block has returned.
    public final override var isFinished: Bool { lifecycle.isFinished }

    /// Whether the operation was cancelled.
    public final override var isCancelled: Bool {
        lifecycle.isCancelRequested || super.isCancelled
    }

    /// Whether the operation may start: Foundation's answer, or, once every dependency has
    /// finished, true.
    ///
    /// Foundation on Linux never makes an operation ready after `removeDependency(_:)` of a
    /// dependency that has not finished (its count of unfinished dependencies is lowered only
    /// for one that finished cancelled), so an operation freed from a dependency cycle would
    /// wait forever. Stratus answers from the dependencies themselves as well.
    public final override var isReady: Bool {
        super.isReady || dependencies.allSatisfy(\.isFinished)
    }

    /// Removes a dependency and tells the queue to look at the operation's readiness again.
    public final override func removeDependency(_ operation: Operation) {
        super.removeDependency(operation)
        willChangeValue(forKey: "isReady")
        didChangeValue(forKey: "isReady")
    }

    /// Starts the operation: it is executing from here on, and its work (`main()`) begins.
    /// Queues call this; call it yourself only for an operation in no queue.
    public final override func start() {
        guard lifecycle.transition(self, to: .executing) else {
            runtimeWarning("\(startWarningName) was started twice; the second start is ignored")
            return
        }
        main()
    }

    /// How the warning about a second start names the operation.
    package var startWarningName: String { String(describing: type(of: self)) }

    /// Cancels the operation.
    ///
    /// A cancelled operation does not wait for its dependencies (it finishes at once, as
    /// Foundation's operations do), so the dependencies that have not finished are removed
    /// first: Foundation on Linux crashes now and then when such a dependency finishes on
    /// another queue after the cancelled operation has already finished and gone. After
    /// `cancel()`, `dependencies` lists only the dependencies that had finished. The
    /// operation is marked cancelled before that, so one the removal makes ready starts as
    /// cancelled. A finished operation stays as it finished (a late timeout must not mark it
    /// cancelled), and a second cancel changes nothing.
    open override func cancel() {
        guard lifecycle.requestCancel() else { return }
        CancelledDependencies.release(self) { super.removeDependency($0) }
        super.cancel()
    }

    // MARK: - Finishing

    /// Claims the finish of a running operation: only the first caller gets true, and must
    /// then call ``endFinishing()`` once its final block has returned.
    package func beginFinishing() -> Bool {
        lifecycle.transition(self, to: .finishing)
    }

    /// Releases the blocks and signals that the operation has finished.
    package func endFinishing() {
        blocks.releaseAll()
        lifecycle.transition(self, to: .finished)
    }

    /// Finishes a running operation that has nothing left to deliver; only the first call
    /// does anything.
    package func finish() {
        if beginFinishing() { endFinishing() }
    }

    // MARK: - Errors

    /// Stops the operation before it sends anything; the first condition's error counts. A
    /// `CKError` is kept as it is; any other error inside a `CKError` with code
    /// `operationCancelled` that names the failure and carries the error under
    /// `NSUnderlyingErrorKey`.
    package func noteConditionFailure(_ error: any Error) {
        let reported = CKError.reporting(conditionFailure: error)
        conditionFailure.withValue { stored in
            if stored == nil { stored = reported }
        }
    }

    /// The error the final block reported, once the operation has finished; empty on success
    /// and before the finish.
    package var errorsReportedOnFinish: [any Error] {
        guard isFinished, let error = finishedError.value else { return [] }
        return [error]
    }
}

extension CKError {
    /// The error an operation stopped by a condition reports: a `CKError` as it is; any other
    /// error inside a `CKError` with code `operationCancelled` that names the failure and
    /// carries the error under `NSUnderlyingErrorKey`.
    package static func reporting(conditionFailure error: any Error) -> CKError {
        (error as? CKError) ?? CKError(
            .operationCancelled,
            message: "the operation did not run: \(error)",
            extra: [NSUnderlyingErrorKey: error]
        )
    }
}

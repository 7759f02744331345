import Foundation
import StratusWire

/// The operations toolkit's internal machinery: where its hidden operations run, and
/// the helpers every part of it shares.
enum Toolkit {
    /// Runs a condition evaluator or a finish watcher once its dependencies have finished, on
    /// one of ``HelperQueues``: never a user's queue, so a serial queue whose one slot an
    /// evaluator took could not wait on itself, and never cancelled, so
    /// `cancelAllOperations()` on a user's queue leaves the bookkeeping intact.
    static func schedule(_ operation: Operation) {
        HelperQueues.add(operation)
    }

    /// Where an operation produced by a producer whose queue Stratus cannot find goes.
    static let fallbackQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "stratus.toolkit.produced"
        return queue
    }()

    /// Runs `body` once `operation` is finished, from an operation that depends on it.
    ///
    /// The watcher is never cancelled, so it cannot run before `operation` has finished, and it
    /// holds `operation` (as its dependency) until it has run.
    static func whenFinished(_ operation: Operation, _ body: @escaping @Sendable () -> Void) {
        let watcher = BlockOperation(block: body)
        watcher.name = "stratus.toolkit.finish-watcher"
        watcher.addDependency(operation)
        schedule(watcher)
    }

    /// Cancels an operation the toolkit stops (a condition failed, its group was cancelled).
    ///
    /// A cancelled Foundation operation finishes without waiting for its dependencies, and on
    /// Linux a dependency that finishes after the cancelled operation has been freed touches
    /// freed memory. So, while this call holds the operation, it is cancelled first (so it
    /// cannot start its work) and then freed of the dependencies that have not finished, as
    /// `CKOperation.cancel()` does for itself (see ``CancelledDependencies``).
    static func cancel(_ operation: Operation) {
        operation.cancel()
        CancelledDependencies.release(operation) { operation.removeDependency($0) }
    }

    /// A name for messages: the operation's `name`, or its type.
    static func describe(_ operation: Operation) -> String {
        if let name = operation.name, !name.isEmpty { return "\"\(name)\"" }
        return String(describing: type(of: operation))
    }

    /// The operation's dependencies without the toolkit's hidden evaluator.
    static func visibleDependencies(of operation: Operation) -> [Operation] {
        operation.dependencies.filter { !($0 is ConditionEvaluator) }
    }

    /// Tells the developer about a misuse the toolkit survives.
    static func warn(_ message: String) {
        runtimeWarning(message)
    }
}

import Foundation
import StratusCore
import StratusOperations
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

    /// The most unfinished operations the search for a dependency cycle looks at when an
    /// operation is added: a cycle longer than this is not found (and waits forever, as
    /// Foundation's own dependency cycles do).
    static let cycleSearchLimit = 256

    /// The cycle of waits `operation` would close, described, or nil: a path from the
    /// operation, through what it depends on, back to itself, or to the group it joins (or a
    /// group around that), which waits for its children to finish. Either way neither the
    /// operation nor anything on the path would ever run.
    static func cycle(of operation: Operation, joining group: GroupOperation?) -> String? {
        var groups: Set<ObjectIdentifier> = []
        var current = group
        while let enclosing = current {
            groups.insert(ObjectIdentifier(enclosing))
            current = enclosing.enclosingGroup
        }
        // Depth-first, with a stack of its own: a chain of thousands of operations must not
        // exhaust the thread's stack. The search looks at no more than `cycleSearchLimit`
        // operations, so that adding each link of a long chain costs the same.
        let start = ObjectIdentifier(operation)
        var visited: Set<ObjectIdentifier> = [start]
        var stack: [(operation: Operation, pending: [Operation])] = [(operation, visibleDependencies(of: operation).reversed())]
        var path: [Operation]?
        search: while !stack.isEmpty {
            guard let dependency = stack[stack.count - 1].pending.popLast() else {
                stack.removeLast()
                continue
            }
            guard !dependency.isFinished else { continue }
            let key = ObjectIdentifier(dependency)
            if key == start || groups.contains(key) {
                path = stack.dropFirst().map(\.operation) + [dependency]
                break search
            }
            guard visited.count < cycleSearchLimit, visited.insert(key).inserted else { continue }
            stack.append((dependency, visibleDependencies(of: dependency).reversed()))
        }
        guard let path, let last = path.last else { return nil }
        let names = ([operation] + path).map(describe).joined(separator: " waits for ")
        if last === operation { return "\(names): it would never run" }
        return "\(names), a group it runs inside, which waits for \(describe(operation)) to finish: it would never run"
    }

    /// Stops an operation that can never run, before it is added: one of Stratus's
    /// ``OperationErrorReporting`` operations hears `error` and no longer waits for its
    /// unfinished dependencies (it finishes with the error when its queue starts it); any
    /// other operation is told the error if it reports errors, and cancelled, since only
    /// Stratus's operations become ready again once a dependency that has not finished is
    /// removed (see `CKOperation.isReady`).
    static func refuse(_ operation: Operation, with error: any Error) {
        warn("\(error)")
        let reporting = operation as? any OperationErrorReporting
        reporting?.conditionDidFail(with: error)
        switch operation {
        case is CKOperation, is RecipeOperation, is GroupOperation, is DelayOperation:
            CancelledDependencies.release(operation) { operation.removeDependency($0) }
        default:
            cancel(operation)
        }
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

import Foundation

/// The stages of a Stratus operation's life, in the only order it may pass through them.
///
/// ```
/// initialized → executing → finishing → finished
/// ```
///
/// `finishing` covers the time between the last piece of work and the moment the final block
/// has returned; only then does the operation become `finished`, so an operation that depends
/// on this one always sees its results.
package enum OperationState: Int, Comparable, Sendable {
    case initialized
    case executing
    case finishing
    case finished

    package static func < (lhs: OperationState, rhs: OperationState) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Whether the state machine may move from this state to `next`.
    func canTransition(to next: OperationState) -> Bool {
        switch (self, next) {
        case (.initialized, .executing), (.executing, .finishing), (.finishing, .finished): true
        default: false
        }
    }
}

/// The one asynchronous-operation state machine of Stratus: every operation of the package
/// (``_AsyncOperation`` and the toolkit's hidden condition evaluator) moves through
/// ``OperationState`` here, and Foundation hears each move from this one place, with
/// `isFinished` signalled last.
///
/// Each move happens at most once; a second caller's attempt returns false, so `start()` and
/// finishing cannot run twice however many threads race to them.
package final class OperationLifecycle: @unchecked Sendable {
    private let lock = NSLock()
    private var state = OperationState.initialized
    /// The state a move in progress goes to; it keeps a second caller from making the same
    /// move while the first signals it.
    private var pendingState: OperationState?
    private var cancelRequested = false

    /// Creates a lifecycle in the `initialized` state.
    package init() {}

    /// Whether the operation is running, its final delivery included.
    package var isExecuting: Bool { lock.withLock { state == .executing || state == .finishing } }

    /// Whether the operation is done and its final block has returned.
    package var isFinished: Bool { lock.withLock { state == .finished } }

    /// Whether ``requestCancel()`` succeeded.
    package var isCancelRequested: Bool { lock.withLock { cancelRequested } }

    /// Records a cancellation; false when the operation has finished (a finished operation
    /// stays as it finished) or was already cancelled.
    package func requestCancel() -> Bool {
        lock.withLock {
            guard state != .finished, !cancelRequested else { return false }
            cancelRequested = true
            return true
        }
    }

    /// Moves `operation` to `next` and tells Foundation; false if another move claimed it or
    /// the move is not allowed.
    @discardableResult
    package func transition(_ operation: Operation, to next: OperationState) -> Bool {
        let claimed = lock.withLock {
            guard pendingState == nil, state.canTransition(to: next) else { return false }
            pendingState = next
            return true
        }
        guard claimed else { return false }
        let keys: [String] = switch next {
        case .executing: ["isExecuting"]
        case .finished: ["isFinished", "isExecuting"]
        case .initialized, .finishing: []
        }
        keys.forEach { operation.willChangeValue(forKey: $0) }
        lock.withLock {
            state = next
            pendingState = nil
        }
        keys.reversed().forEach { operation.didChangeValue(forKey: $0) }
        return true
    }

    /// Moves a running `operation` through `finishing` to `finished` at once, for an operation
    /// with no final delivery of its own to wait for; false if it was not running or another
    /// caller is finishing it.
    @discardableResult
    package func finish(_ operation: Operation) -> Bool {
        transition(operation, to: .finishing) && transition(operation, to: .finished)
    }
}

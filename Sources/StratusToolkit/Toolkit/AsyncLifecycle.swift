import Foundation
import StratusCore
import StratusOperations

/// The state of an asynchronous toolkit operation (``GroupOperation``, ``DelayOperation``,
/// the hidden condition evaluator), moved from one place that signals Foundation's KVO with
/// `isFinished` last, as `CKOperation`'s state machine does.
///
/// ```
/// initialized → executing → finished
/// ```
///
/// Each move happens at most once; a second caller's attempt returns false, so `start()` and
/// finishing cannot run twice however many threads race to them.
final class AsyncLifecycle: @unchecked Sendable {
    enum State: Sendable {
        case initialized, executing, finished
    }

    private let lock = NSLock()
    private var state = State.initialized
    /// The state a move in progress goes to, so a second caller cannot make the same move
    /// while the first signals it.
    private var pendingState: State?
    private var cancelRequested = false

    var isExecuting: Bool { lock.withLock { state == .executing } }
    var isFinished: Bool { lock.withLock { state == .finished } }
    /// Whether ``requestCancel()`` was called.
    var isCancelRequested: Bool { lock.withLock { cancelRequested } }

    /// Records a cancellation; false when the operation has finished (a finished operation
    /// stays as it finished) or was already cancelled.
    func requestCancel() -> Bool {
        lock.withLock {
            guard state != .finished, !cancelRequested else { return false }
            cancelRequested = true
            return true
        }
    }

    /// Moves `operation` to `next` and tells Foundation; false if another move claimed it or
    /// the move is not allowed.
    @discardableResult
    func transition(_ operation: Operation, to next: State) -> Bool {
        let claimed = lock.withLock {
            let allowed = switch (state, next) {
            case (.initialized, .executing), (.executing, .finished): true
            default: false
            }
            guard pendingState == nil, allowed else { return false }
            pendingState = next
            return true
        }
        guard claimed else { return false }
        let keys: [String] = next == .finished ? ["isFinished", "isExecuting"] : ["isExecuting"]
        keys.forEach { operation.willChangeValue(forKey: $0) }
        lock.withLock {
            state = next
            pendingState = nil
        }
        keys.reversed().forEach { operation.didChangeValue(forKey: $0) }
        return true
    }
}

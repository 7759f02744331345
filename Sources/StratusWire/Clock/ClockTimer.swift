import Synchronization

/// A pending action of a ``CloudClock``, which can be cancelled until it has run.
public final class ClockTimer: Sendable {
    private let state = Mutex(State.pending)

    private enum State {
        case pending, fired, cancelled
    }

    /// Creates a pending timer. Clocks create timers; user code receives them from
    /// ``CloudClock/schedule(at:_:)``.
    public init() {}

    /// Whether ``cancel()`` was called before the action ran.
    public var isCancelled: Bool {
        state.withLock { $0 == .cancelled }
    }

    /// Stops the action from running. Has no effect once the action has started.
    public func cancel() {
        state.withLock { if $0 == .pending { $0 = .cancelled } }
    }

    /// Marks the timer as fired; returns false if it was cancelled (the clock then skips the action).
    /// Clock implementations call this exactly once, just before running the action.
    public func claimForFiring() -> Bool {
        state.withLock {
            guard $0 == .pending else { return false }
            $0 = .fired
            return true
        }
    }
}

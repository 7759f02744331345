import Dispatch
import Foundation

/// A ``CloudClock`` that follows the wall clock and runs timers on a Dispatch queue.
///
/// Use it where time should pass by itself, as in the demo or in a long-running program.
/// Tests that need to control time use ``ManualClock``.
public final class SystemClock: CloudClock {
    private let queue = DispatchQueue(label: "stratus.system-clock")

    /// Creates a clock that reads `Date()`.
    public init() {}

    /// - SeeAlso: ``CloudClock/now``
    public var now: Date { Date() }

    /// - SeeAlso: ``CloudClock/schedule(at:_:)``
    @discardableResult
    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let timer = ClockTimer()
        let delay = max(0, deadline.timeIntervalSinceNow)
        queue.asyncAfter(deadline: .now() + delay) {
            if timer.claimForFiring() { action() }
        }
        return timer
    }
}

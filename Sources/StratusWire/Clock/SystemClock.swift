import Dispatch
import Foundation

/// A ``CloudClock`` that follows the wall clock and runs timers on a Dispatch queue.
///
/// Use it where time should pass by itself, as in the demo or in a long-running program.
/// Tests that need to control time use ``ManualClock``.
public final class SystemClock: CloudClock {
    private let queue = DispatchQueue(label: "stratus.system-clock")

    /// The longest wait a timer is scheduled for: about 31 years. A timer due later never
    /// fires (nothing in a process waits that long), so no deadline overflows Dispatch's time.
    static let longestWait: TimeInterval = 1e9

    /// Creates a clock that reads `Date()`.
    public init() {}

    /// - SeeAlso: ``CloudClock/now``
    public var now: Date { Date() }

    /// - SeeAlso: ``CloudClock/schedule(at:_:)``
    @discardableResult
    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let timer = ClockTimer()
        let interval = deadline.timeIntervalSinceNow
        // A deadline further away than Dispatch can count (or not a date at all) never comes.
        guard interval < Self.longestWait else { return timer }
        let delay = interval > 0 ? interval : 0
        queue.asyncAfter(deadline: .now() + delay) {
            if timer.claimForFiring() { action() }
        }
        return timer
    }
}

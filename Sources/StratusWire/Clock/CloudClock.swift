import Foundation

/// A source of time: the server's, and each client device's.
///
/// CloudKit reads time from the device and from Apple's servers. In Stratus each side reads it
/// from a `CloudClock` it was given, so that tests can decide when time passes: ``ManualClock``
/// moves only when a test advances it, and ``SystemClock`` follows the wall clock. Server dates
/// use the server's clock; request timeouts, rate-limit holds and retry-after waits use the
/// device's. The embedded wiring gives a test's devices the server's clock, so one advance
/// moves both; a client of a service in another process keeps its own.
///
/// A clock also runs timers: ``schedule(at:_:)`` runs an action once the clock reaches a date.
/// Actions due at the same instant run in the order they were scheduled.
///
/// - Important: A clock must not call back into a `CloudServer` from ``now`` or
///   ``schedule(at:_:)``: the server calls them while holding its own locks.
public protocol CloudClock: AnyObject, Sendable {
    /// The current date on this clock.
    var now: Date { get }

    /// Runs `action` once this clock reaches `deadline`.
    ///
    /// A deadline at or before ``now`` runs the action soon (``SystemClock``), or at the next
    /// advance (``ManualClock``); it never runs inside this call.
    ///
    /// - Parameters:
    ///   - deadline: The date at which the action becomes due.
    ///   - action: The work to run. It runs without any lock of the clock held.
    /// - Returns: A timer that cancels the action if it has not run yet.
    @discardableResult
    func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer
}

extension CloudClock {
    /// Runs `action` once `delay` seconds have passed on this clock.
    ///
    /// - Parameters:
    ///   - delay: Seconds from ``now``; a negative delay counts as zero.
    ///   - action: The work to run.
    /// - Returns: A timer that cancels the action if it has not run yet.
    @discardableResult
    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        schedule(at: now.addingTimeInterval(max(0, delay)), action)
    }
}

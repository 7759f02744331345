import Foundation
import StratusCore
import StratusOperations
import StratusWire
import Synchronization

/// Cancels an operation that has not finished within an interval of its start, measured on a
/// ``CloudClock``.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". Time is the clock's, so
/// a test moves it with `ManualClock.advance(by:)`:
///
/// ```swift
/// let clock = ManualClock()
/// queue.addOperation(slow, observers: [TimeoutObserver(timeout: 30, clock: clock)])
/// clock.advance(by: 30)   // slow is cancelled now, unless it has finished
/// ```
///
/// Cancelling is what cancelling always is: a CloudKit operation whose request is already on
/// its way reports the server's real results; one that has not sent it reports
/// `operationCancelled`. (CloudKit's own request and resource timeouts, in the operation's
/// `configuration`, fail with `networkFailure` instead.) One observer may watch any number of
/// operations; each gets its own timer.
public final class TimeoutObserver: OperationObserver {
    /// The seconds an operation may run.
    public let timeout: TimeInterval
    /// The clock the seconds are counted on.
    public let clock: any CloudClock
    private let timers = Mutex<[ObjectIdentifier: ClockTimer]>([:])

    /// Creates an observer that cancels operations after `timeout` seconds.
    ///
    /// - Parameters:
    ///   - timeout: Seconds from the operation's start; a negative value counts as zero.
    ///   - clock: The clock to count them on; by default that of `CKContainer.default()`'s device
    ///     (with `import Stratus`, `CloudServer.shared`'s clock).
    public init(timeout: TimeInterval, clock: (any CloudClock)? = nil) {
        self.timeout = timeout
        self.clock = clock ?? CKContainer.default().device.clock
    }

    /// Starts the operation's timer. - SeeAlso: ``OperationObserver/operationDidStart(_:)``
    public func operationDidStart(_ operation: Operation) {
        let timer = clock.schedule(after: timeout) { [weak operation] in
            guard let operation, !operation.isFinished else { return }
            operation.cancel()
        }
        timers.withLock { $0[ObjectIdentifier(operation)] = timer }
    }

    /// Stops the operation's timer. - SeeAlso: ``OperationObserver/operationDidFinish(_:errors:)``
    public func operationDidFinish(_ operation: Operation, errors: [any Error]) {
        let timer = timers.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) }
        timer?.cancel()
    }
}

import Foundation
import StratusCore
import StratusOperations
import StratusWire

/// An operation that waits: for an interval from its start, or until a date, on a
/// ``CloudClock``; it finishes early when cancelled.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". Make another operation
/// depend on it to run that one later; in a test, pass a `ManualClock` and advance it:
///
/// ```swift
/// let clock = ManualClock()
/// let wait = DelayOperation(interval: 5, clock: clock)
/// retry.addDependency(wait)
/// queue.addOperation(wait)
/// queue.addOperation(retry)
/// clock.advance(by: 5)   // wait finishes, retry runs
/// ```
///
/// An interval of zero or less, or a date already passed, finishes at once. A condition that
/// fails makes it finish at once, with the condition's error in ``reportedErrors``.
public final class DelayOperation: _AsyncOperation, OperationErrorReporting, StartReporting, @unchecked Sendable {
    private enum Wait {
        case interval(TimeInterval)
        case date(Date)
    }

    private let wait: Wait
    /// The clock the wait is measured on.
    public let clock: any CloudClock
    @_Locked private var timer: ClockTimer? = nil
    private let failure = Locked<(any Error)?>(nil)

    /// Creates an operation that waits `interval` seconds from its start.
    ///
    /// - Parameters:
    ///   - interval: Seconds to wait; zero or less finishes at once.
    ///   - clock: The clock to wait on; by default that of `CKContainer.default()`'s device
    ///     (with `import Stratus`, `CloudServer.shared`'s clock).
    public init(interval: TimeInterval, clock: (any CloudClock)? = nil) {
        wait = .interval(interval)
        self.clock = clock ?? CKContainer.default().device.clock
        super.init()
    }

    /// Creates an operation that waits until `date`.
    ///
    /// - Parameters:
    ///   - date: When to finish; a date already passed finishes at once.
    ///   - clock: The clock to wait on; by default that of `CKContainer.default()`'s device
    ///     (with `import Stratus`, `CloudServer.shared`'s clock).
    public init(until date: Date, clock: (any CloudClock)? = nil) {
        wait = .date(date)
        self.clock = clock ?? CKContainer.default().device.clock
        super.init()
    }

    // MARK: - Running

    /// Stops waiting: a waiting operation finishes at once; one that has not started finishes
    /// as soon as its queue starts it, without waiting for its dependencies (which it drops,
    /// as `CKOperation.cancel()` does).
    public override func cancel() {
        super.cancel()
        guard isCancelled, isExecuting else { return }
        timer?.cancel()
        finish()
    }

    /// Starts waiting once `start()` has made the operation executing. `start()` calls it.
    public override func main() {
        guard !isCancelled, failure.value == nil else {
            finish()
            return
        }
        // The deadline is fixed before observers hear the start, so a clock they move at once
        // counts from it.
        let deadline = switch wait {
        case .interval(let interval): clock.now.addingTimeInterval(interval)
        case .date(let date): date
        }
        OperationAttachment.operationDidStart(self)
        guard deadline > clock.now else {
            finish()
            return
        }
        timer = clock.schedule(at: deadline) { [weak self] in
            self?.finish()
        }
        // A cancel that came while the timer was being set found no timer to stop, and a clock
        // that passed the deadline meanwhile would run the timer only at its next move.
        if isCancelled || clock.now >= deadline {
            timer?.cancel()
            finish()
        }
    }

    // MARK: - Errors

    /// Makes the operation finish at once when it starts. - SeeAlso: ``OperationErrorReporting/conditionDidFail(with:)``
    public func conditionDidFail(with error: any Error) {
        failure.withValue { if $0 == nil { $0 = error } }
    }

    /// The error of the condition that stopped it, if one did; a wait has no errors of its
    /// own. - SeeAlso: ``OperationErrorReporting/reportedErrors``
    public var reportedErrors: [any Error] {
        guard isFinished else { return [] }
        return failure.value.map { [$0] } ?? []
    }
}

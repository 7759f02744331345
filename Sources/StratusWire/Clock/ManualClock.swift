import Foundation
import Synchronization

/// A ``CloudClock`` that stands still until a test moves it.
///
/// Nothing happens with the passing of real time: ``advance(by:)`` and ``advance(to:)`` move the
/// clock and run, on the calling thread, every action that has become due, in deadline order
/// and, for equal deadlines, in the order they were scheduled. An action scheduled while
/// advancing runs in the same advance when its deadline falls inside it. The clock never goes
/// backwards.
///
/// ```swift
/// let clock = ManualClock()
/// clock.schedule(after: 5) { print("five seconds later") }
/// clock.advance(by: 5)   // prints, on this thread, before returning
/// ```
public final class ManualClock: CloudClock {
    private struct Pending {
        var deadline: Date
        var sequence: UInt64
        var timer: ClockTimer
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var nextSequence: UInt64 = 0
        var pending: [Pending] = []
        /// The size at which cancelled actions are dropped, so a clock that is never advanced
        /// does not keep every cancelled timeout forever.
        var compactionThreshold = 64
    }

    private let state: Mutex<State>

    /// The date a new clock starts at when none is given: 2025-01-01 00:00:00 UTC.
    public static let defaultStart = Date(timeIntervalSince1970: 1_735_689_600)

    /// Creates a clock that reads `start` until it is advanced.
    ///
    /// - Parameter start: The initial date; ``defaultStart`` by default, so runs are repeatable.
    public init(start: Date = ManualClock.defaultStart) {
        state = Mutex(State(now: start))
    }

    /// - SeeAlso: ``CloudClock/now``
    public var now: Date { state.withLock { $0.now } }

    /// The number of scheduled actions that have neither run nor been cancelled.
    public var pendingActionCount: Int {
        state.withLock { $0.pending.filter { !$0.timer.isCancelled }.count }
    }

    /// The number of scheduled actions the clock holds, cancelled ones included.
    package var storedActionCount: Int {
        state.withLock { $0.pending.count }
    }

    /// - SeeAlso: ``CloudClock/schedule(at:_:)``
    @discardableResult
    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let timer = ClockTimer()
        state.withLock { state in
            if state.pending.count >= state.compactionThreshold {
                state.pending.removeAll { $0.timer.isCancelled }
                state.compactionThreshold = max(64, state.pending.count * 2)
            }
            state.pending.append(Pending(deadline: deadline, sequence: state.nextSequence, timer: timer, action: action))
            state.nextSequence += 1
        }
        return timer
    }

    /// Moves the clock forward by `interval` seconds and runs the actions that become due.
    ///
    /// - Parameter interval: Seconds to move; zero runs what is already due; a negative value
    ///   is treated as zero.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(max(0, interval)))
    }

    /// Moves the clock forward to `date` and runs the actions that become due.
    ///
    /// - Parameter date: The new date. A date in the past leaves the clock where it is, but still
    ///   runs what is already due.
    public func advance(to date: Date) {
        while let next = takeNextDue(upTo: date) {
            if next.timer.claimForFiring() { next.action() }
        }
        state.withLock { if $0.now < date { $0.now = date } }
    }

    private func takeNextDue(upTo limit: Date) -> Pending? {
        state.withLock { state in
            let target = max(limit, state.now)
            var best: Int?
            for (index, candidate) in state.pending.enumerated() where candidate.deadline <= target {
                if let current = best {
                    let chosen = state.pending[current]
                    if (candidate.deadline, candidate.sequence) < (chosen.deadline, chosen.sequence) { best = index }
                } else {
                    best = index
                }
            }
            guard let index = best else { return nil }
            let due = state.pending.remove(at: index)
            if due.deadline > state.now { state.now = due.deadline }
            return due
        }
    }
}

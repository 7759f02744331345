import Foundation
import Synchronization

/// Where Stratus's hidden operations (condition evaluators, finish watchers, the keepers of
/// cancelled operations) wait for their dependencies and run: a fixed set of queues, taken in
/// turn, that are never a user's and never cancelled.
///
/// Why not one queue: Foundation's `OperationQueue` walks every operation it holds that is
/// not ready each time one of them becomes ready or finishes, so one queue holding thousands
/// of hidden operations that wait made each step cost thousands, and a busy toolkit slowed to
/// a crawl. Why not a queue per operation: Foundation on Linux touches a queue after the
/// last operation holding it has finished, so queues that go away with their operation crash
/// now and then. And on Linux, an operation whose last dependency finishes while
/// `addOperation(_:)` is taking it in can be left ready but never started, until something
/// makes its queue look again; so the queue is told to look once more right after each
/// operation is added.
package enum HelperQueues {
    private static let queues: [OperationQueue] = (0..<64).map { index in
        let queue = OperationQueue()
        queue.name = "stratus.helper.\(index)"
        return queue
    }

    private static let next = Atomic<Int>(0)

    /// Hidden operations added and not finished yet.
    private static let outstanding = Atomic<Int>(0)

    /// The watchdog, started by the first addition.
    private static let watchdog = Watchdog()

    /// Adds `operation` to the next queue; it starts once its dependencies have finished.
    ///
    /// The operation's completion block is the helper queues' own: hidden operations have none.
    package static func add(_ operation: Operation) {
        _ = watchdog
        outstanding.add(1, ordering: .relaxed)
        operation.completionBlock = { outstanding.subtract(1, ordering: .relaxed) }
        let index = next.add(1, ordering: .relaxed).oldValue
        let queue = queues[index & (queues.count - 1)]
        queue.addOperation(operation)
        // Makes Foundation schedule again: a readiness it cached too early is corrected by the
        // first look, and acted on by this one.
        queue.isSuspended = false
    }

    /// Makes every helper queue look again, twenty times a second, while any hidden operation
    /// is outstanding. The look after each addition does not close every window of the Linux
    /// readiness race (a dependency can finish while that look runs), and a queue nothing is
    /// added to afterwards never looks again: one stranded evaluator held up a few hundred
    /// operations of a stress run behind it, once in about ten runs. An idle watchdog costs one
    /// atomic load per tick. Made once (a static `let`), so an addition pays no lock for it.
    private final class Watchdog: @unchecked Sendable {
        /// Never touched after `init`: it only has to stay alive.
        private let timer: any DispatchSourceTimer

        init() {
            timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
            timer.setEventHandler {
                guard HelperQueues.outstanding.load(ordering: .relaxed) > 0 else { return }
                for queue in HelperQueues.queues { queue.isSuspended = false }
            }
            timer.resume()
        }
    }
}

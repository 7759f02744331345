import Foundation
import Synchronization

/// Runs work on plain threads, as an app's own threads would call into Stratus.
enum Threads {
    /// Starts one thread per body at once and waits until all have returned.
    ///
    /// - Returns: The seconds from the start of the first thread to the end of the last.
    /// - Throws: The first error a body threw.
    static func run(_ bodies: [@Sendable () throws -> Void]) async throws -> Double {
        let group = DispatchGroup()
        let failure = Mutex<(any Error)?>(nil)
        let clock = ContinuousClock()
        let start = clock.now
        for body in bodies {
            group.enter()
            Thread {
                do { try body() } catch { failure.withLock { $0 = $0 ?? error } }
                group.leave()
            }.start()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        let seconds = Measure.seconds(clock.now - start)
        if let error = failure.withLock({ $0 }) { throw error }
        return seconds
    }
}

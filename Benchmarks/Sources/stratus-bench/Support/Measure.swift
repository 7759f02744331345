import Foundation

/// Timing helpers: every figure is the fastest of a few runs on `ContinuousClock`, the run the
/// shared machine disturbed least.
enum Measure {
    /// The seconds in `duration`.
    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The seconds `body` took.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return seconds(clock.now - start)
    }

    /// The seconds an asynchronous `body` took.
    static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return seconds(clock.now - start)
    }

    /// The fastest of `repetitions` runs, in seconds. Each run gets a fresh value from
    /// `prepare` (not timed) and hands it to `body` (timed).
    static func fastest<State>(
        of repetitions: Int,
        prepare: () async throws -> State,
        _ body: (State) async throws -> Void
    ) async throws -> Double {
        var best = Double.infinity
        for _ in 0..<max(1, repetitions) {
            let state = try await prepare()
            best = min(best, try await time { try await body(state) })
            blackHole(state)
        }
        return best
    }

    /// The fastest of `repetitions` runs of `body`, in seconds.
    static func fastest(of repetitions: Int, _ body: () async throws -> Void) async throws -> Double {
        try await fastest(of: repetitions, prepare: {}, { _ in try await body() })
    }

    /// Each run's fastest time over `rounds` rounds, in seconds, the runs taking turns within
    /// each round: on a shared machine, load that comes and goes then falls on every run alike,
    /// so the ratios between them hold. Each run returns the seconds of its timed part.
    static func fastest(rounds: Int, interleaving runs: [() async throws -> Double]) async throws -> [Double] {
        var best = Array(repeating: Double.infinity, count: runs.count)
        for _ in 0..<max(1, rounds) {
            for (index, run) in runs.enumerated() {
                best[index] = min(best[index], try await run())
            }
        }
        return best
    }

    /// The seconds `body` took with a fresh value from `prepare` (not timed).
    static func time<State>(prepare: () async throws -> State, _ body: (State) async throws -> Void) async throws -> Double {
        let state = try await prepare()
        defer { blackHole(state) }
        return try await time { try await body(state) }
    }

    /// Items per second for `count` items done in `seconds`.
    static func rate(_ count: Int, in seconds: Double) -> Double {
        Double(count) / max(seconds, 1e-12)
    }
}

/// Keeps a value alive and observable so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A scenario that did not do all its work: its time would mean nothing, so it stops the run.
struct Miscount: Error, CustomStringConvertible {
    /// What was counted.
    var what: String
    /// How many there were.
    var counted: Int
    /// How many there should have been.
    var expected: Int

    var description: String { "\(what) counted \(counted), not \(expected)" }
}

/// The fastest of `repetitions` runs of `body`, in seconds: the least disturbed by the machine.
func fastest(of repetitions: Int = 5, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    for _ in 0..<repetitions {
        best = min(best, clock.measure(body))
    }
    let parts = best.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

/// The fastest of `repetitions` runs of an asynchronous `body`, in seconds.
func fastest(of repetitions: Int, _ body: () async throws -> Void) async throws -> Double {
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    for _ in 0..<repetitions {
        let start = clock.now
        try await body()
        best = min(best, clock.now - start)
    }
    let parts = best.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

/// Prints one scenario's result as Stratus time, baseline time and their ratio.
func report(_ scenario: String, stratus: Double, baseline: Double) {
    let ratio = stratus / max(baseline, 1e-9)
    print("\(scenario): stratus \(format(stratus)) s, baseline \(format(baseline)) s, ratio \(format(ratio))x")
}

private func format(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return "\(scaled)"
}

/// Keeps a value alive and observable so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A scenario that did not do all its work: its time would mean nothing.
struct Miscount: Error, CustomStringConvertible {
    var what: String
    var counted: Int
    var expected: Int
    var description: String { "\(what) counted \(counted), not \(expected)" }
}

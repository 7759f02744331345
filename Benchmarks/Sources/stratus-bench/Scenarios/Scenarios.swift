/// The scenarios, by their stable names: part 11's ten in its issue's order, then part 12's
/// locations.
enum Scenarios {
    /// The names, as the command line and `--json` give them.
    static let names = [
        "batched_saves", "one_by_one_saves", "query", "paging", "delta_sync",
        "operation_overhead", "scaling", "memory", "subscriptions", "sync_engine", "locations",
    ]

    /// Runs the scenario named `name` at `sizes`.
    static func run(_ name: String, _ sizes: Sizes) async throws -> ScenarioReport {
        switch name {
        case "batched_saves": try await BatchedSaveBenchmarks.run(sizes)
        case "one_by_one_saves": try await OneByOneSaveBenchmarks.run(sizes)
        case "query": try await QueryBenchmarks.run(sizes)
        case "paging": try await PagingBenchmarks.run(sizes)
        case "delta_sync": try await DeltaSyncBenchmarks.run(sizes)
        case "operation_overhead": try await OperationOverheadBenchmarks.run(sizes)
        case "scaling": try await ScalingBenchmarks.run(sizes)
        case "memory": try await MemoryBenchmarks.run(sizes)
        case "subscriptions": try await SubscriptionBenchmarks.run(sizes)
        case "locations": try await LocationBenchmarks.run(sizes)
        default: try await SyncEngineBenchmarks.run(sizes)
        }
    }
}

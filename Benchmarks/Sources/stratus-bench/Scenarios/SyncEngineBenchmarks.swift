import Stratus
import Synchronization

/// Scenario 10, sync: a second device catching up through `CKSyncEngine.fetchChanges()`
/// (`automaticallySync` off, a delegate that counts the records, as scenario 5's block does, so
/// both measure the fetch and not what an app does with the records), against scenario 5's
/// `CKFetchRecordZoneChangesOperation` on the same zone and SQLite's change-log read. The
/// engine's time includes what a fresh engine does first: the account check, its database
/// subscription and the database changes.
///
/// Target: the engine at least 0.8× the operation's rate.
enum SyncEngineBenchmarks {
    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.syncEngine
        let fixture = try await StratusFixture.make()
        try await fixture.load(count)
        let baselines = try DeltaSyncBenchmarks.Baselines(count: count)

        var requests = 0
        let times = try await Measure.fastest(rounds: sizes.shortRepetitions, interleaving: [
            {
                try await Measure.time(prepare: { () -> (CKSyncEngine, RecordSink) in
                    let sink = RecordSink()
                    var configuration = CKSyncEngine.Configuration(database: fixture.otherDevice(), stateSerialization: nil, delegate: sink)
                    configuration.automaticallySync = false
                    return (CKSyncEngine(configuration), sink)
                }) { engine, sink in
                    let before = fixture.server.requestCount
                    try await engine.fetchChanges()
                    requests = fixture.server.requestCount - before
                    guard sink.count == count else { throw Miscount(what: "the engine's records", counted: sink.count, expected: count) }
                }
            },
            { try await Measure.time(prepare: { fixture.otherDevice() }) { try await DeltaSyncBenchmarks.fetchThroughOperation($0, fixture.zoneID, expected: count) } },
            { try Measure.time { try baselines.readSQLite(expected: count) } },
            { try Measure.time { try baselines.readDictionary(expected: count) } },
        ])
        let (engine, operation, sqlite, dictionary) = (times[0], times[1], times[2], times[3])

        var report = ScenarioReport(
            number: 10, name: "sync_engine",
            title: "a second device fetching \(Format.count(count)) records through CKSyncEngine, against scenario 5's operation"
        )
        report.add("stratus_sync_engine_rps", "Stratus, CKSyncEngine.fetchChanges()", Measure.rate(count, in: engine), .perSecond)
        report.add("requests", "requests the engine sent", Double(requests), .count)
        report.add("stratus_fetch_operation_rps", "Stratus, CKFetchRecordZoneChangesOperation", Measure.rate(count, in: operation), .perSecond)
        report.add("sqlite_rps", "SQLite, change-log read", Measure.rate(count, in: sqlite), .perSecond)
        report.add("dictionary_rps", "Swift dictionary, log array", Measure.rate(count, in: dictionary), .perSecond)
        report.ratio("ratio_sync_engine_vs_fetch_operation", "engine ÷ operation (scenario 5)", operation / engine, target: .atLeast(0.8))
        report.ratio("ratio_sync_engine_vs_sqlite", "engine ÷ SQLite", sqlite / engine)
        return report
    }
}

/// The least a sync engine's delegate does: it counts the records the engine fetches, as
/// scenario 5's `recordWasChangedBlock` does, and has nothing to send.
private final class RecordSink: CKSyncEngineDelegate {
    private let fetched = Mutex(0)

    /// How many records it was given.
    var count: Int { fetched.withLock { $0 } }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        guard case .fetchedRecordZoneChanges(let changes) = event else { return }
        fetched.withLock { $0 += changes.modifications.count }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        nil
    }
}

@_spi(Testing) import Stratus
import Synchronization

/// Scenario 5, delta sync: every change of a zone fetched from a nil token by a fresh device
/// through `CKFetchRecordZoneChangesOperation`, against SQLite reading its change log
/// (`WHERE seq > ? ORDER BY seq`, joined to the records, in pages of the server's 200) and the
/// dictionary reading its log array.
///
/// Target: the operation at least 1× SQLite's rate.
enum DeltaSyncBenchmarks {
    /// Records per page of the baselines' reads: the server's default page of changes.
    static let pageSize = 200

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.deltaSync
        let fixture = try await StratusFixture.make()
        try await fixture.load(count)
        let baselines = try Baselines(count: count)

        let times = try await Measure.fastest(rounds: sizes.shortRepetitions, interleaving: [
            { try await Measure.time(prepare: { fixture.otherDevice() }) { try await fetchThroughOperation($0, fixture.zoneID, expected: count) } },
            { try await Measure.time { try await fetchThroughServer(fixture, expected: count) } },
            { try Measure.time { try baselines.readSQLite(expected: count) } },
            { try Measure.time { try baselines.readDictionary(expected: count) } },
        ])
        let (fullAPI, server, sqlite, dictionary) = (times[0], times[1], times[2], times[3])

        var report = ScenarioReport(
            number: 5, name: "delta_sync",
            title: "\(Format.count(count)) changes fetched from a nil token by a fresh device"
        )
        report.add("stratus_full_api_rps", "Stratus, CKFetchRecordZoneChangesOperation", Measure.rate(count, in: fullAPI), .perSecond)
        report.add("stratus_server_rps", "Stratus, server alone (recordChanges pages)", Measure.rate(count, in: server), .perSecond)
        report.add("sqlite_rps", "SQLite, change log WHERE seq > ? ORDER BY seq, joined", Measure.rate(count, in: sqlite), .perSecond)
        report.add("dictionary_rps", "Swift dictionary, log array", Measure.rate(count, in: dictionary), .perSecond)
        report.ratio("ratio_full_api_vs_sqlite", "operation ÷ SQLite", sqlite / fullAPI, target: .atLeast(1))
        report.ratio("ratio_server_vs_sqlite", "server alone ÷ SQLite", sqlite / server)
        report.ratio("ratio_full_api_vs_dictionary", "operation ÷ dictionary (share of the limit)", dictionary / fullAPI)
        return report
    }

    /// The baselines holding the same `count` records, written in batches of 400.
    struct Baselines {
        /// The SQLite store.
        let sqlite: SQLiteRecordStore
        /// The dictionary store.
        let dictionary: DictionaryRecordStore

        /// Fills both baselines with `count` sample records.
        init(count: Int) throws {
            sqlite = try SQLiteRecordStore()
            var dictionary = DictionaryRecordStore()
            for (batch, start) in stride(from: 0, to: count, by: StratusFixture.batchSize).enumerated() {
                let samples = SampleRecord.batch(start..<min(start + StratusFixture.batchSize, count))
                try sqlite.save(samples, zone: "Photos", now: Double(batch))
                dictionary.save(samples, now: Double(batch))
            }
            self.dictionary = dictionary
        }

        /// Reads SQLite's change log from the start, page by page.
        func readSQLite(expected: Int) throws {
            var sequence: Int64 = 0
            var fetched = 0
            while true {
                let page = try sqlite.changes(zone: "Photos", after: sequence, limit: pageSize)
                guard !page.records.isEmpty else { break }
                fetched += page.records.count
                sequence = page.last
            }
            guard fetched == expected else { throw Miscount(what: "SQLite's change log", counted: fetched, expected: expected) }
        }

        /// Reads the dictionary's log from the start, page by page.
        func readDictionary(expected: Int) throws {
            var sequence = 0
            var fetched = 0
            while true {
                let page = dictionary.changes(after: sequence, limit: pageSize)
                guard !page.records.isEmpty else { break }
                fetched += page.records.count
                sequence = page.last
            }
            guard fetched == expected else { throw Miscount(what: "the dictionary's log", counted: fetched, expected: expected) }
        }
    }

    /// Fetches every change of `zoneID` from a nil token with one
    /// `CKFetchRecordZoneChangesOperation` (it fetches until nothing more is waiting).
    static func fetchThroughOperation(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, expected: Int) async throws {
        let fetched = Atomic(0)
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID])
        operation.recordWasChangedBlock = { _, result in
            if case .success = result { fetched.add(1, ordering: .relaxed) }
        }
        try await database.completing(operation)
        let counted = fetched.load(ordering: .relaxed)
        guard counted == expected else { throw Miscount(what: "the changes fetched", counted: counted, expected: expected) }
    }

    /// Fetches every change of the fixture's zone through `CloudServer.recordChanges` pages.
    private static func fetchThroughServer(_ fixture: StratusFixture, expected: Int) async throws {
        let context = fixture.database.rawRequestContext()
        let zoneID = StratusFixture.wireZoneID(fixture.zoneID)
        var token: [UInt8]?
        var fetched = 0
        while true {
            let response = try await fixture.server.recordChanges(WireRecordChangesRequest(context: context, zoneID: zoneID, sinceToken: token))
            fetched += response.changed.count
            token = response.token
            guard response.moreComing else { break }
        }
        guard fetched == expected else { throw Miscount(what: "the server's changes", counted: fetched, expected: expected) }
    }
}

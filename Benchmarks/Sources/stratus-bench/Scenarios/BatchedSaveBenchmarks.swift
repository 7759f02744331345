import Stratus

/// Scenario 1, batched saves: new records of five fields saved into a custom zone 400 per
/// `CKModifyRecordsOperation`, through the server alone and through the full public API, next
/// to the SQLite and dictionary baselines doing the same bookkeeping in batches of 400.
///
/// Targets: the server alone at least 2× SQLite's rate; the full public API at least 1×; the
/// share of the dictionary limit is reported.
enum BatchedSaveBenchmarks {
    /// The four rates of saving the same records, in records per second.
    struct Rates {
        /// The server alone: prebuilt wire records handed to `CloudServer.modifyRecords`.
        var server: Double
        /// The full public API: `CKRecord`s built and saved by `CKModifyRecordsOperation`s.
        var fullAPI: Double
        /// SQLite in memory.
        var sqlite: Double
        /// The plain Swift dictionary.
        var dictionary: Double
        /// Modify requests the full API sent.
        var requests: Int
    }

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.batchedSaves
        let rates = try await measure(count, repetitions: sizes.repetitions)
        var report = ScenarioReport(
            number: 1, name: "batched_saves",
            title: "\(Format.count(count)) records of 5 fields saved 400 per CKModifyRecordsOperation into a custom zone"
        )
        report.add("stratus_server_rps", "Stratus, server alone (CloudServer.modifyRecords)", rates.server, .perSecond)
        report.add("stratus_full_api_rps", "Stratus, full public API (CKModifyRecordsOperation)", rates.fullAPI, .perSecond)
        report.add("sqlite_rps", "SQLite in memory, 1 transaction per 400", rates.sqlite, .perSecond)
        report.add("dictionary_rps", "Swift dictionary", rates.dictionary, .perSecond)
        report.add("requests", "modify requests sent", Double(rates.requests), .count)
        report.ratio("ratio_server_vs_sqlite", "server alone ÷ SQLite", rates.server / rates.sqlite, target: .atLeast(2))
        report.ratio("ratio_full_api_vs_sqlite", "full API ÷ SQLite", rates.fullAPI / rates.sqlite, target: .atLeast(1))
        report.ratio("ratio_server_vs_dictionary", "server alone ÷ dictionary (share of the limit)", rates.server / rates.dictionary)
        report.ratio("ratio_full_api_vs_dictionary", "full API ÷ dictionary (share of the limit)", rates.fullAPI / rates.dictionary)
        return report
    }

    /// Measures saving `count` records four ways, each the fastest of `repetitions` runs into
    /// a fresh store, the four taking turns.
    static func measure(_ count: Int, repetitions: Int) async throws -> Rates {
        let samples = SampleRecord.batch(0..<count)
        let wireBatches = StratusFixture.wireBatches(samples[...], in: CKRecordZone.ID(zoneName: "Photos"))
        var requests = 0
        let times = try await Measure.fastest(rounds: repetitions, interleaving: [
            { try await Measure.time(prepare: { try await StratusFixture.make() }) { try await $0.saveThroughServer(wireBatches) } },
            { try await Measure.time(prepare: { try await StratusFixture.make() }) { requests = try await $0.saveThroughOperations(samples[...]) } },
            sqliteRun(samples),
            dictionaryRun(samples),
        ])
        return Rates(
            server: Measure.rate(count, in: times[0]),
            fullAPI: Measure.rate(count, in: times[1]),
            sqlite: Measure.rate(count, in: times[2]),
            dictionary: Measure.rate(count, in: times[3]),
            requests: requests
        )
    }

    /// One timed run of SQLite saving `samples` in batches of 400 into a fresh store.
    static func sqliteRun(_ samples: [SampleRecord]) -> () async throws -> Double {
        { try await Measure.time(prepare: { try SQLiteRecordStore() }) { try $0.saveInBatches(samples, zone: "Photos") } }
    }

    /// One timed run of the dictionary saving `samples` in batches of 400 into a fresh store.
    static func dictionaryRun(_ samples: [SampleRecord]) -> () async throws -> Double {
        {
            try await Measure.time(prepare: { DictionaryRecordStore() }) { empty in
                var store = empty
                try store.saveInBatches(samples)
                blackHole(store)
            }
        }
    }
}

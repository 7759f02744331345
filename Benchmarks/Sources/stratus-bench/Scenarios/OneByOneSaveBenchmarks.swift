import Stratus

/// Scenario 2, the talk's point: the records of scenario 1 saved one by one through the
/// convenience API (`CKDatabase.save(_:)`, one request each), next to the same records saved
/// 400 per operation, and to the baselines saving one record per transaction.
///
/// No target: the scenario reports the rate and the request count beside scenario 1's.
enum OneByOneSaveBenchmarks {
    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.oneByOneSaves
        let samples = SampleRecord.batch(0..<count)

        // One round: at the full size the one-by-one saves are the slowest run of scenarios 1–8.
        var oneByOneRequests = 0
        var batchedRequests = 0
        let times = try await Measure.fastest(rounds: 1, interleaving: [
            {
                try await Measure.time(prepare: { try await StratusFixture.make() }) { fixture in
                    let before = fixture.server.requestCount
                    for sample in samples {
                        _ = try await fixture.database.save(sample.ckRecord(in: fixture.zoneID))
                    }
                    oneByOneRequests = fixture.server.requestCount - before
                }
            },
            {
                try await Measure.time(prepare: { try await StratusFixture.make() }) { fixture in
                    let before = fixture.server.requestCount
                    try await fixture.saveThroughOperations(samples[...])
                    batchedRequests = fixture.server.requestCount - before
                }
            },
        ])
        let baselines = try await Measure.fastest(rounds: sizes.repetitions, interleaving: [
            {
                try await Measure.time(prepare: { try SQLiteRecordStore() }) { store in
                    var saved = 0
                    for (index, sample) in samples.enumerated() {
                        saved += try store.save(CollectionOfOne(sample), zone: "Photos", now: Double(index))
                    }
                    guard saved == count else { throw Miscount(what: "SQLite's saves", counted: saved, expected: count) }
                }
            },
            {
                try await Measure.time(prepare: { DictionaryRecordStore() }) { empty in
                    var store = empty
                    var saved = 0
                    for (index, sample) in samples.enumerated() {
                        saved += store.save(CollectionOfOne(sample), now: Double(index))
                    }
                    guard saved == count else { throw Miscount(what: "the dictionary's saves", counted: saved, expected: count) }
                    blackHole(store)
                }
            },
        ])

        var report = ScenarioReport(
            number: 2, name: "one_by_one_saves",
            title: "the same \(Format.count(count)) records saved one by one with CKDatabase.save(_:), against 400 per operation"
        )
        report.add("stratus_one_by_one_rps", "Stratus, one save(_:) per record", Measure.rate(count, in: times[0]), .perSecond)
        report.add("requests_one_by_one", "requests sent one by one", Double(oneByOneRequests), .count)
        report.add("stratus_batched_rps", "Stratus, 400 per CKModifyRecordsOperation", Measure.rate(count, in: times[1]), .perSecond)
        report.add("requests_batched", "requests sent batched", Double(batchedRequests), .count)
        report.add("sqlite_one_per_transaction_rps", "SQLite in memory, 1 transaction per record", Measure.rate(count, in: baselines[0]), .perSecond)
        report.add("dictionary_rps", "Swift dictionary, one record at a time", Measure.rate(count, in: baselines[1]), .perSecond)
        report.ratio("ratio_one_by_one_vs_batched", "one by one ÷ batched", times[1] / times[0])
        report.ratio("ratio_one_by_one_vs_sqlite", "one by one ÷ SQLite one per transaction", baselines[0] / times[0])
        return report
    }
}

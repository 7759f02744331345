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

        // One run: at the full size it is the slowest part of the whole benchmark.
        let fixture = try await StratusFixture.make()
        let before = fixture.server.requestCount
        let oneByOne = try await Measure.time {
            for sample in samples {
                _ = try await fixture.database.save(sample.ckRecord(in: fixture.zoneID))
            }
        }
        let oneByOneRequests = fixture.server.requestCount - before

        let batchedFixture = try await StratusFixture.make()
        let batchedBefore = batchedFixture.server.requestCount
        let batched = try await Measure.time {
            try await batchedFixture.saveThroughOperations(samples[...])
        }
        let batchedRequests = batchedFixture.server.requestCount - batchedBefore

        let sqlite = try await Measure.fastest(of: sizes.repetitions, prepare: { try SQLiteRecordStore() }) { store in
            var saved = 0
            for (index, sample) in samples.enumerated() {
                saved += try store.save(CollectionOfOne(sample), zone: "Photos", now: Double(index))
            }
            guard saved == count else { throw Miscount(what: "SQLite's saves", counted: saved, expected: count) }
        }
        let dictionary = try await Measure.fastest(of: sizes.repetitions, prepare: { DictionaryRecordStore() }) { empty in
            var store = empty
            var saved = 0
            for (index, sample) in samples.enumerated() {
                saved += store.save(CollectionOfOne(sample), now: Double(index))
            }
            guard saved == count else { throw Miscount(what: "the dictionary's saves", counted: saved, expected: count) }
            blackHole(store)
        }

        var report = ScenarioReport(
            number: 2, name: "one_by_one_saves",
            title: "the same \(Format.count(count)) records saved one by one with CKDatabase.save(_:), against 400 per operation"
        )
        report.add("stratus_one_by_one_rps", "Stratus, one save(_:) per record", Measure.rate(count, in: oneByOne), .perSecond)
        report.add("requests_one_by_one", "requests sent one by one", Double(oneByOneRequests), .count)
        report.add("stratus_batched_rps", "Stratus, 400 per CKModifyRecordsOperation", Measure.rate(count, in: batched), .perSecond)
        report.add("requests_batched", "requests sent batched", Double(batchedRequests), .count)
        report.add("sqlite_one_per_transaction_rps", "SQLite in memory, 1 transaction per record", Measure.rate(count, in: sqlite), .perSecond)
        report.add("dictionary_rps", "Swift dictionary, one record at a time", Measure.rate(count, in: dictionary), .perSecond)
        report.ratio("ratio_one_by_one_vs_batched", "one by one ÷ batched", batched / oneByOne)
        report.ratio("ratio_one_by_one_vs_sqlite", "one by one ÷ SQLite one per transaction", sqlite / oneByOne)
        return report
    }
}

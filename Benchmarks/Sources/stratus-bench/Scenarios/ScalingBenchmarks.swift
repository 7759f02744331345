import Stratus

/// Scenario 7, scaling: two threads each saving records into their own zone (400 per
/// `CKModifyRecordsOperation`, each waited for), against one thread saving as many into one
/// zone. The baselines show what the machine gives: two threads each writing their own SQLite
/// database or their own dictionary.
///
/// Target: two threads' throughput at least 1.6× one thread's.
enum ScalingBenchmarks {
    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.scalingPerThread
        let repetitions = sizes.repetitions
        let samples = [SampleRecord.batch(0..<count, prefix: "a"), SampleRecord.batch(0..<count, prefix: "b")]

        func stratus(threads: Int) async throws -> Double {
            try await Measure.fastest(of: repetitions, prepare: { try await StratusFixture.make(zones: ["A", "B"]) }) { fixture in
                _ = try await Threads.run((0..<threads).map { thread in
                    { try fixture.saveBlocking(samples[thread][...], in: fixture.zoneIDs[thread]) }
                })
            }
        }
        func sqlite(threads: Int) async throws -> Double {
            try await Measure.fastest(of: repetitions, prepare: { try (0..<threads).map { _ in try SQLiteRecordStore() } }) { stores in
                _ = try await Threads.run((0..<threads).map { thread in
                    {
                        for (batch, start) in stride(from: 0, to: count, by: StratusFixture.batchSize).enumerated() {
                            try stores[thread].save(samples[thread][start..<min(start + StratusFixture.batchSize, count)], zone: "Z", now: Double(batch))
                        }
                    }
                })
            }
        }
        func dictionary(threads: Int) async throws -> Double {
            try await Measure.fastest(of: repetitions) {
                _ = try await Threads.run((0..<threads).map { thread in
                    {
                        var store = DictionaryRecordStore()
                        for (batch, start) in stride(from: 0, to: count, by: StratusFixture.batchSize).enumerated() {
                            store.save(samples[thread][start..<min(start + StratusFixture.batchSize, count)], now: Double(batch))
                        }
                        blackHole(store)
                    }
                })
            }
        }

        let stratusOne = Measure.rate(count, in: try await stratus(threads: 1))
        let stratusTwo = Measure.rate(2 * count, in: try await stratus(threads: 2))
        let sqliteOne = Measure.rate(count, in: try await sqlite(threads: 1))
        let sqliteTwo = Measure.rate(2 * count, in: try await sqlite(threads: 2))
        let dictionaryOne = Measure.rate(count, in: try await dictionary(threads: 1))
        let dictionaryTwo = Measure.rate(2 * count, in: try await dictionary(threads: 2))

        var report = ScenarioReport(
            number: 7, name: "scaling",
            title: "two threads saving \(Format.count(count)) records each into two zones, against one thread saving \(Format.count(count)) into one"
        )
        report.add("stratus_one_thread_rps", "Stratus, one thread, full API", stratusOne, .perSecond)
        report.add("stratus_two_threads_rps", "Stratus, two threads, two zones", stratusTwo, .perSecond)
        report.add("sqlite_one_thread_rps", "SQLite, one thread", sqliteOne, .perSecond)
        report.add("sqlite_two_threads_rps", "SQLite, two threads, one database each", sqliteTwo, .perSecond)
        report.add("dictionary_one_thread_rps", "Swift dictionary, one thread", dictionaryOne, .perSecond)
        report.add("dictionary_two_threads_rps", "Swift dictionary, two threads, one each", dictionaryTwo, .perSecond)
        report.ratio("scaling_stratus", "Stratus: two threads ÷ one", stratusTwo / stratusOne, target: .atLeast(1.6))
        report.ratio("scaling_sqlite", "SQLite: two threads ÷ one (what the machine gives)", sqliteTwo / sqliteOne)
        report.ratio("scaling_dictionary", "dictionary: two threads ÷ one", dictionaryTwo / dictionaryOne)
        return report
    }
}

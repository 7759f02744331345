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
        let samples = [SampleRecord.batch(0..<count, prefix: "a"), SampleRecord.batch(0..<count, prefix: "b")]

        func stratus(threads: Int) -> () async throws -> Double {
            {
                try await Measure.time(prepare: { try await StratusFixture.make(zones: ["A", "B"]) }) { fixture in
                    _ = try await Threads.run((0..<threads).map { thread in
                        { try fixture.saveBlocking(samples[thread][...], in: fixture.zoneIDs[thread]) }
                    })
                }
            }
        }
        func sqlite(threads: Int) -> () async throws -> Double {
            {
                try await Measure.time(prepare: { try (0..<threads).map { _ in try SQLiteRecordStore() } }) { stores in
                    _ = try await Threads.run((0..<threads).map { thread in
                        { try stores[thread].saveInBatches(samples[thread], zone: "Z") }
                    })
                }
            }
        }
        func dictionary(threads: Int) -> () async throws -> Double {
            {
                try await Threads.run((0..<threads).map { thread in
                    {
                        var store = DictionaryRecordStore()
                        try store.saveInBatches(samples[thread])
                        blackHole(store)
                    }
                })
            }
        }

        let times = try await Measure.fastest(rounds: sizes.repetitions, interleaving: [
            stratus(threads: 1), stratus(threads: 2), sqlite(threads: 1), sqlite(threads: 2), dictionary(threads: 1), dictionary(threads: 2),
        ])
        let stratusOne = Measure.rate(count, in: times[0])
        let stratusTwo = Measure.rate(2 * count, in: times[1])
        let sqliteOne = Measure.rate(count, in: times[2])
        let sqliteTwo = Measure.rate(2 * count, in: times[3])
        let dictionaryOne = Measure.rate(count, in: times[4])
        let dictionaryTwo = Measure.rate(2 * count, in: times[5])

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
        let machine = max(sqliteTwo / sqliteOne, dictionaryTwo / dictionaryOne)
        if machine < 1.6 {
            report.note("the baselines, which share nothing between threads, scaled only \(Format.decimals(machine, 2))×: other work held the second core during this run, so Stratus's figure says little here")
        }
        return report
    }
}

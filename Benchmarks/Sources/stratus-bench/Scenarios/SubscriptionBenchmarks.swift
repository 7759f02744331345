@_spi(Testing) import Stratus

/// Scenario 9, subscriptions: scenario 1's saves through the public API into a database that
/// has 1,000 query subscriptions on the record type (`order == n`, each matching one of the
/// saved records, so each fires once), against the same saves with no subscriptions.
///
/// Target: the throughput with subscriptions at least 0.8× without.
enum SubscriptionBenchmarks {
    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.subscribedSaves
        let subscriptions = sizes.subscriptions
        let samples = SampleRecord.batch(0..<count)
        let spacing = max(1, count / subscriptions)

        func prepared(subscribed: Bool) async throws -> StratusFixture {
            let fixture = try await StratusFixture.make()
            // A first record, so the record type exists before subscriptions name it.
            try await fixture.saveThroughOperations(SampleRecord.batch(0..<1, prefix: "seed")[...])
            guard subscribed else { return fixture }
            for start in stride(from: 0, to: subscriptions, by: 200) {
                let batch = (start..<min(start + 200, subscriptions)).map { index in
                    let subscription = CKQuerySubscription(
                        recordType: SampleRecord.recordType,
                        predicate: NSPredicate(format: "order == %d", index * spacing),
                        subscriptionID: "order-\(index)",
                        options: [.firesOnRecordCreation, .firesOnRecordUpdate]
                    )
                    let info = CKSubscription.NotificationInfo()
                    info.shouldSendContentAvailable = true
                    subscription.notificationInfo = info
                    return subscription
                }
                _ = try await fixture.database.modifySubscriptions(saving: batch, deleting: [])
            }
            return fixture
        }

        var fired = 0
        let plainRun = { try await Measure.time(prepare: { try await prepared(subscribed: false) }) { try await $0.saveThroughOperations(samples[...]) } }
        let long = try await Measure.fastest(rounds: sizes.longRepetitions, interleaving: [
            {
                let fixture = try await prepared(subscribed: true)
                let seconds = try await Measure.time { try await fixture.saveThroughOperations(samples[...]) }
                fired = try await notificationCount(fixture)
                return seconds
            },
            plainRun,
        ])
        guard fired == min(subscriptions, count) else {
            throw Miscount(what: "the subscriptions' notifications", counted: fired, expected: min(subscriptions, count))
        }
        let short = try await Measure.fastest(rounds: sizes.repetitions, interleaving: [
            plainRun, BatchedSaveBenchmarks.sqliteRun(samples), BatchedSaveBenchmarks.dictionaryRun(samples),
        ])
        let subscribed = long[0]
        let plain = min(long[1], short[0])
        let baselines = (sqlite: Measure.rate(count, in: short[1]), dictionary: Measure.rate(count, in: short[2]))

        var report = ScenarioReport(
            number: 9, name: "subscriptions",
            title: "scenario 1's \(Format.count(count)) saves (full API, 400 per operation) with \(Format.count(subscriptions)) query subscriptions on the type, each firing once"
        )
        report.add("stratus_subscribed_rps", "Stratus, \(Format.count(subscriptions)) query subscriptions", Measure.rate(count, in: subscribed), .perSecond)
        report.add("stratus_plain_rps", "Stratus, no subscriptions", Measure.rate(count, in: plain), .perSecond)
        report.add("sqlite_rps", "SQLite in memory (no subscriptions)", baselines.sqlite, .perSecond)
        report.add("dictionary_rps", "Swift dictionary (no subscriptions)", baselines.dictionary, .perSecond)
        report.add("notifications", "notifications the subscriptions made", Double(fired), .count)
        report.ratio("ratio_subscribed_vs_plain", "with subscriptions ÷ without", plain / subscribed, target: .atLeast(0.8))
        report.ratio("ratio_subscribed_vs_sqlite", "with subscriptions ÷ SQLite", Measure.rate(count, in: subscribed) / baselines.sqlite)
        report.note("the timed saves with subscriptions include the query subscriptions' matching; the notifications are counted afterwards, untimed")
        return report
    }

    /// The notifications in the account's notification collection, read through the server.
    private static func notificationCount(_ fixture: StratusFixture) async throws -> Int {
        let context = fixture.database.rawRequestContext()
        var token: [UInt8]?
        var count = 0
        while true {
            let response = try await fixture.server.notificationChanges(WireNotificationChangesRequest(context: context, sinceToken: token))
            count += response.notifications.count
            token = response.token
            guard response.moreComing else { return count }
        }
    }
}

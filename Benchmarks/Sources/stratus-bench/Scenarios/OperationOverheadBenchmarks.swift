import Foundation
import Stratus
import Synchronization

/// Scenario 6, operation overhead: `CKFetchRecordsOperation`s of one record each, all added
/// to one `OperationQueue`, against as many `BlockOperation`s on the same queue that each read
/// one record from a baseline: the dictionary (the plain operation's cost) or SQLite.
///
/// Target: a fetch operation costs at most 5× a block operation reading the dictionary.
enum OperationOverheadBenchmarks {
    /// How many distinct records the operations fetch, in turn.
    static let records = 100

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.operations
        let fixture = try await StratusFixture.make()
        try await fixture.load(records)
        let baselines = try DeltaSyncBenchmarks.Baselines(count: records)
        let dictionary = baselines.dictionary
        let sqlite = baselines.sqlite
        let sqliteLock = NSLock()
        let names = SampleRecord.batch(0..<records).map(\.name)
        let recordIDs = names.map { CKRecord.ID(recordName: $0, zoneID: fixture.zoneID) }
        let queue = OperationQueue()
        queue.name = "stratus-bench.operations"

        let times = try await Measure.fastest(rounds: sizes.shortRepetitions, interleaving: [
            {
                let fetched = Atomic(0)
                return try await Measure.time {
                    try await runAll(on: queue, counted: fetched, expected: count) {
                        (0..<count).map { index in
                            let operation = CKFetchRecordsOperation(recordIDs: [recordIDs[index % records]])
                            operation.database = fixture.database
                            operation.fetchRecordsResultBlock = { result in
                                if case .success = result { fetched.add(1, ordering: .relaxed) }
                            }
                            return operation
                        }
                    }
                }
            },
            {
                let fetched = Atomic(0)
                return try await Measure.time {
                    try await runAll(on: queue, counted: fetched, expected: count) {
                        (0..<count).map { index in
                            BlockOperation {
                                if dictionary.record(named: names[index % records]) != nil { fetched.add(1, ordering: .relaxed) }
                            }
                        }
                    }
                }
            },
            {
                let fetched = Atomic(0)
                return try await Measure.time {
                    try await runAll(on: queue, counted: fetched, expected: count) {
                        (0..<count).map { index in
                            BlockOperation {
                                let found = sqliteLock.withLock { (try? sqlite.record(named: names[index % records], zone: "Photos")) != nil }
                                if found { fetched.add(1, ordering: .relaxed) }
                            }
                        }
                    }
                }
            },
        ])
        let (fetchOperations, dictionaryBlocks, sqliteBlocks) = (times[0], times[1], times[2])

        var report = ScenarioReport(
            number: 6, name: "operation_overhead",
            title: "\(Format.count(count)) CKFetchRecordsOperations of one record against \(Format.count(count)) BlockOperations, on one OperationQueue"
        )
        let perOperation = { (seconds: Double) in seconds / Double(count) * 1e6 }
        report.add("stratus_fetch_operation_us", "Stratus, CKFetchRecordsOperation", perOperation(fetchOperations), .microseconds)
        report.add("dictionary_block_operation_us", "BlockOperation reading the dictionary", perOperation(dictionaryBlocks), .microseconds)
        report.add("sqlite_block_operation_us", "BlockOperation reading SQLite by key", perOperation(sqliteBlocks), .microseconds)
        report.ratio("ratio_fetch_vs_block_operation", "fetch operation ÷ block operation (cost)", fetchOperations / dictionaryBlocks, target: .atMost(5))
        report.ratio("ratio_fetch_vs_sqlite_block_operation", "fetch operation ÷ SQLite block operation (cost)", fetchOperations / sqliteBlocks)
        return report
    }

    /// Adds the operations `make` builds to `queue` (building them is timed too) and waits
    /// until all have finished.
    ///
    /// - Throws: ``Miscount`` when `counted` did not reach `expected`.
    private static func runAll(on queue: OperationQueue, counted: borrowing Atomic<Int>, expected: Int, _ make: () -> [Operation]) async throws {
        for operation in make() { queue.addOperation(operation) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.addBarrierBlock { continuation.resume() }
        }
        let done = counted.load(ordering: .relaxed)
        guard done == expected else { throw Miscount(what: "the operations' records", counted: done, expected: expected) }
    }
}

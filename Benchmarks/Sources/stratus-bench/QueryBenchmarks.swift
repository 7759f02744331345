import Foundation
@_spi(Testing) import Stratus

/// The talk's photo browsing query — the 20 newest photos of one party — against zones of
/// 10,000, 100,000 and 1,000,000 photos. With an index on the party and the date, its cost
/// should hardly grow with the zone.
enum QueryBenchmarks {
    /// The zone sizes; `STRATUS_BENCH_QUERY_SIZES` (comma-separated) overrides them.
    static let sizes = ProcessInfo.processInfo.environment["STRATUS_BENCH_QUERY_SIZES"]
        .map { $0.split(separator: ",").compactMap { Int($0) } } ?? [10_000, 100_000, 1_000_000]
    static let parties = 50
    static let queriesPerSize = 1_000

    /// Measures each size in a fresh process of this executable, so that one size's heap
    /// does not slow the next, and prints the cost ratio of the largest to the smallest.
    static func run() async throws {
        var costs: [Int: Double] = [:]
        for size in sizes {
            guard let cost = try measureInChildProcess(size: size) else {
                print("20 newest of \(size) photos: measurement failed")
                continue
            }
            costs[size] = cost
        }
        if let small = costs[sizes[0]], let large = costs[sizes[sizes.count - 1]] {
            print("query cost ratio \(sizes[sizes.count - 1])/\(sizes[0]): \(format(large / small))x (target < 1.5)")
        }
    }

    /// The environment variable that makes this executable measure one size and exit.
    static let childVariable = "STRATUS_BENCH_QUERY_CHILD_SIZE"

    private static func measureInChildProcess(size: Int) throws -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        var environment = ProcessInfo.processInfo.environment
        environment[childVariable] = "\(size)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        for line in lines where !line.hasPrefix("cost ") { print(line) }
        return lines.first { $0.hasPrefix("cost ") }.flatMap { Double($0.dropFirst(5)) }
    }

    /// Measures one size in this process: prints a report line and `cost <seconds>`.
    static func measure(size: Int) async throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.bench", account: "bench").privateCloudDatabase
        try await load(size, into: database)
        _ = try await newestPhotos(of: 0, in: database)   // builds the index once
        let clock = ContinuousClock()
        var examined = 0
        let elapsed = try await clock.measure {
            for query in 0..<queriesPerSize {
                _ = try await newestPhotos(of: query % parties, in: database)
                examined = max(examined, server.lastQueryExaminedCount)
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cost = seconds / Double(queriesPerSize)
        print("20 newest of \(size) photos: \(format(cost * 1e6)) µs per query, at most \(examined) records examined")
        print("cost \(cost)")
    }

    private static func load(_ count: Int, into database: CKDatabase) async throws {
        var batch: [CKRecord] = []
        batch.reserveCapacity(400)
        for index in 0..<count {
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "photo-\(index)"))
            photo["party"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "party-\(index % parties)"), action: .none)
            photo["taken"] = Date(timeIntervalSince1970: Double(index))
            batch.append(photo)
            if batch.count == 400 || index == count - 1 {
                _ = try await database.modifyRecords(saving: batch, deleting: [], atomically: false)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    private static func newestPhotos(of party: Int, in database: CKDatabase) async throws -> CKDatabase.QueryPage {
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "party == %@", CKRecord.ID(recordName: "party-\(party)")))
        query.sortDescriptors = [NSSortDescriptor(key: "taken", ascending: false)]
        return try await database.records(matching: query, desiredKeys: ["taken"], resultsLimit: 20)
    }

    private static func format(_ value: Double) -> String {
        "\((value * 100).rounded() / 100)"
    }
}

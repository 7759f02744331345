@_spi(Testing) import Stratus

/// Scenario 3, query: the 20 newest photos of one party (a reference equality, sorted on
/// `creationDate`, both indexed) in zones of three sizes, each size in a fresh process, next to
/// SQLite with an index on party and creation date and to the dictionary's party index.
///
/// Targets: at the middle size (100,000), at least 1× SQLite's speed; the cost at the largest
/// size (1,000,000) at most 1.5× the cost at the smallest (10,000).
enum QueryBenchmarks {
    /// The number of newest photos each query asks for.
    static let limit = 20

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let counts = sizes.querySizes
        var report = ScenarioReport(
            number: 3, name: "query",
            title: "the \(limit) newest photos of one party among \(counts.map(Format.count).joined(separator: " / ")) (party == reference, sorted on creationDate), each size in its own process"
        )
        var costs: [Int: [String: Double]] = [:]
        for count in counts {
            costs[count] = try ChildProcess.run("query", ["\(count)", "\(sizes.queries)", "\(4 * sizes.shortRepetitions)"])
        }
        for count in counts {
            let figures = costs[count] ?? [:]
            report.add("stratus_full_api_us_at_\(count)", "Stratus, full public API, \(Format.count(count)) photos", figures["full_api_us"] ?? .nan, .microseconds)
            report.add("stratus_server_us_at_\(count)", "Stratus, server alone, \(Format.count(count)) photos", figures["server_us"] ?? .nan, .microseconds)
            report.add("sqlite_us_at_\(count)", "SQLite, index (zone, party, created), \(Format.count(count))", figures["sqlite_us"] ?? .nan, .microseconds)
            report.add("dictionary_us_at_\(count)", "Swift dictionary, party index, \(Format.count(count))", figures["dictionary_us"] ?? .nan, .microseconds)
            report.add("examined_at_\(count)", "records the server examined, \(Format.count(count))", figures["examined"] ?? .nan, .count)
        }
        let middle = counts[counts.count / 2]
        let smallest = counts[0]
        let largest = counts[counts.count - 1]
        func cost(_ key: String, _ count: Int) -> Double { costs[count]?[key] ?? .nan }
        report.ratio("ratio_full_api_vs_sqlite", "full API speed ÷ SQLite's at \(Format.count(middle))", cost("sqlite_us", middle) / cost("full_api_us", middle), target: .atLeast(1))
        report.ratio("ratio_server_vs_sqlite", "server alone speed ÷ SQLite's at \(Format.count(middle))", cost("sqlite_us", middle) / cost("server_us", middle))
        report.ratio("ratio_full_api_vs_dictionary", "full API speed ÷ dictionary's at \(Format.count(middle))", cost("dictionary_us", middle) / cost("full_api_us", middle))
        report.ratio("growth_full_api", "full API cost at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("full_api_us", largest) / cost("full_api_us", smallest), target: .atMost(1.5))
        report.ratio("growth_server", "server alone cost at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("server_us", largest) / cost("server_us", smallest))
        report.ratio("growth_sqlite", "SQLite cost at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("sqlite_us", largest) / cost("sqlite_us", smallest))
        return report
    }

    /// The child's part: loads `count` photos into Stratus and both baselines, then times
    /// rounds of `queries` queries of each, the four taking turns, and prints each one's cost
    /// per query in its fastest of `rounds` rounds.
    static func measureChild(count: Int, queries: Int, rounds: Int) async throws {
        let fixture = try await StratusFixture.make()
        try await fixture.load(count)
        let baselines = try DeltaSyncBenchmarks.Baselines(count: count)
        let (sqlite, dictionary) = (baselines.sqlite, baselines.dictionary)
        let database = fixture.database
        let zoneID = fixture.zoneID
        let wireZoneID = StratusFixture.wireZoneID(zoneID)
        let context = database.rawRequestContext()
        let expected = min(limit, count / SampleRecord.parties)

        func party(_ query: Int) -> String { "party-\(query % SampleRecord.parties)" }
        func fullAPI(_ query: Int) async throws {
            let reference = CKRecord.Reference(recordID: CKRecord.ID(recordName: party(query), zoneID: zoneID), action: .none)
            let photos = CKQuery(recordType: SampleRecord.recordType, predicate: NSPredicate(format: "party == %@", reference))
            photos.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
            let page = try await database.records(matching: photos, inZoneWith: zoneID, resultsLimit: limit)
            guard page.matchResults.count == expected else { throw Miscount(what: "the query's photos", counted: page.matchResults.count, expected: expected) }
        }
        func serverAlone(_ query: Int) async throws {
            let reference = WireReference(recordID: WireRecordID(recordName: party(query), zoneID: wireZoneID), action: .none)
            let photos = WireQuery(
                recordType: SampleRecord.recordType,
                predicate: .compare(.field("party"), .equal, .value(.reference(reference))),
                sortDescriptors: [WireSortDescriptor(field: .creationDate, ascending: false)]
            )
            let response = try await fixture.server.queryRecords(WireQueryRequest(context: context, query: photos, zoneID: wireZoneID, resultsLimit: limit))
            guard response.records.count == expected else { throw Miscount(what: "the server's photos", counted: response.records.count, expected: expected) }
        }

        try await fullAPI(0)   // the first query builds the index
        var examined = 0
        let times = try await Measure.fastest(rounds: rounds, interleaving: [
            {
                try await Measure.time {
                    for query in 0..<queries { try await fullAPI(query) }
                    examined = max(examined, fixture.server.lastQueryExaminedCount)
                }
            },
            { try await Measure.time { for query in 0..<queries { try await serverAlone(query) } } },
            {
                try Measure.time {
                    for query in 0..<queries {
                        let photos = try sqlite.newest(limit, ofParty: party(query), zone: "Photos")
                        guard photos.count == expected else { throw Miscount(what: "SQLite's photos", counted: photos.count, expected: expected) }
                    }
                }
            },
            {
                try Measure.time {
                    for query in 0..<queries {
                        let photos = dictionary.newest(limit, ofParty: party(query))
                        guard photos.count == expected else { throw Miscount(what: "the dictionary's photos", counted: photos.count, expected: expected) }
                    }
                }
            },
        ])
        let fullAPITime = times[0]
        let serverTime = times[1]
        let sqliteTime = times[2]
        let dictionaryTime = times[3]
        ChildProcess.emit("full_api_us", fullAPITime / Double(queries) * 1e6)
        ChildProcess.emit("server_us", serverTime / Double(queries) * 1e6)
        ChildProcess.emit("sqlite_us", sqliteTime / Double(queries) * 1e6)
        ChildProcess.emit("dictionary_us", dictionaryTime / Double(queries) * 1e6)
        ChildProcess.emit("examined", Double(examined))
    }
}

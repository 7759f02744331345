import Foundation
@_spi(Testing) import Stratus

/// Scenario 11, locations (part 12): the 20 records nearest a point, among zones of three
/// sizes of records located uniformly over the Earth, each size in its own process, through
/// the public API (`CKLocationSortDescriptor`) and through the server alone; with the records
/// the server examined (measured the distance of) for a query.
///
/// Target: the full API's cost at the largest size (1,000,000) at most 1.5× the cost at the
/// smallest (10,000).
enum LocationBenchmarks {
    /// The number of nearest records each query asks for.
    static let limit = 20
    /// The record type and the field of the located records.
    static let recordType = "Place"
    static let field = "location"

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let counts = sizes.querySizes
        var report = ScenarioReport(
            number: 11, name: "locations",
            title: "the \(limit) records nearest a point among \(counts.map(Format.count).joined(separator: " / ")) located records (CKLocationSortDescriptor), each size in its own process"
        )
        var costs: [Int: [String: Double]] = [:]
        for count in counts {
            costs[count] = try ChildProcess.run("locations", ["\(count)", "\(sizes.queries)", "\(4 * sizes.shortRepetitions)"])
        }
        for count in counts {
            let figures = costs[count] ?? [:]
            report.add("stratus_full_api_us_at_\(count)", "Stratus, full public API, \(Format.count(count)) records", figures["full_api_us"] ?? .nan, .microseconds)
            report.add("stratus_server_us_at_\(count)", "Stratus, server alone, \(Format.count(count)) records", figures["server_us"] ?? .nan, .microseconds)
            report.add("examined_at_\(count)", "records the server measured for one query, \(Format.count(count))", figures["examined"] ?? .nan, .count)
            report.add("index_build_ms_at_\(count)", "building the spatial index (first query), ms, \(Format.count(count))", figures["index_build_ms"] ?? .nan, .count)
        }
        let (smallest, largest) = (counts[0], counts[counts.count - 1])
        func cost(_ key: String, _ count: Int) -> Double { costs[count]?[key] ?? .nan }
        report.ratio("growth_full_api", "full API cost at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("full_api_us", largest) / cost("full_api_us", smallest), target: .atMost(1.5))
        report.ratio("growth_server", "server alone cost at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("server_us", largest) / cost("server_us", smallest))
        report.ratio("growth_examined", "records examined at \(Format.count(largest)) ÷ at \(Format.count(smallest))", cost("examined", largest) / cost("examined", smallest))
        report.note("each query asks from another point (seeded), over the whole Earth, poles and antimeridian included")
        return report
    }

    /// A point uniform over the sphere.
    private static func randomLocation(using generator: inout some RandomNumberGenerator) -> WireLocation {
        WireLocation(
            latitude: asin(Double.random(in: -1...1, using: &generator)) * 180 / .pi,
            longitude: Double.random(in: -180...180, using: &generator)
        )
    }

    /// The child's part: loads `count` located records through the server alone, then times
    /// rounds of `queries` nearest-20 queries from different points through the public API and
    /// through the server alone, taking turns, and prints each one's cost per query in its
    /// fastest of `rounds` rounds, the records examined and the index's build time.
    static func measureChild(count: Int, queries: Int, rounds: Int) async throws {
        let fixture = try await StratusFixture.make(zones: ["Places"])
        let zoneID = fixture.zoneID
        let wireZoneID = StratusFixture.wireZoneID(zoneID)
        var generator = SystemRandomNumberGenerator()
        var records: [WireRecordSave] = []
        records.reserveCapacity(StratusFixture.batchSize)
        var batches: [[WireRecordSave]] = []
        for index in 0..<count {
            records.append(WireRecordSave(record: WireRecord(
                recordID: WireRecordID(recordName: String(format: "place-%07d", index), zoneID: wireZoneID),
                recordType: recordType,
                fields: [field: .location(randomLocation(using: &generator)), "name": .string("Place \(index)")]
            )))
            if records.count == StratusFixture.batchSize || index == count - 1 {
                batches.append(records)
                records.removeAll(keepingCapacity: true)
            }
            if batches.count == 10 || index == count - 1 {
                try await fixture.saveThroughServer(batches)
                batches.removeAll()
            }
        }
        let centers = (0..<queries).map { _ in randomLocation(using: &generator) }
        let database = fixture.database
        let context = database.rawRequestContext()

        func fullAPI(_ query: Int) async throws {
            let center = centers[query]
            let nearest = CKQuery(recordType: recordType, predicate: NSPredicate(value: true))
            nearest.sortDescriptors = [CKLocationSortDescriptor(key: field, relativeLocation: CLLocation(latitude: center.latitude, longitude: center.longitude))]
            let page = try await database.records(matching: nearest, inZoneWith: zoneID, resultsLimit: limit)
            guard page.matchResults.count == limit else { throw Miscount(what: "the query's places", counted: page.matchResults.count, expected: limit) }
        }
        func serverAlone(_ query: Int) async throws {
            let nearest = WireQuery(
                recordType: recordType, predicate: .constant(true),
                sortDescriptors: [WireSortDescriptor(field: .field(field), ascending: true, relativeLocation: centers[query])]
            )
            let response = try await fixture.server.queryRecords(WireQueryRequest(context: context, query: nearest, zoneID: wireZoneID, resultsLimit: limit))
            guard response.records.count == limit else { throw Miscount(what: "the server's places", counted: response.records.count, expected: limit) }
        }

        let build = try await Measure.time { try await fullAPI(0) }   // the first query builds the index
        var examined = 0
        let times = try await Measure.fastest(rounds: rounds, interleaving: [
            {
                try await Measure.time {
                    for query in 0..<queries {
                        try await fullAPI(query)
                        examined = max(examined, fixture.server.lastQueryExaminedCount)
                    }
                }
            },
            { try await Measure.time { for query in 0..<queries { try await serverAlone(query) } } },
        ])
        ChildProcess.emit("full_api_us", times[0] / Double(queries) * 1e6)
        ChildProcess.emit("server_us", times[1] / Double(queries) * 1e6)
        ChildProcess.emit("examined", Double(examined))
        ChildProcess.emit("index_build_ms", build * 1e3)
    }
}

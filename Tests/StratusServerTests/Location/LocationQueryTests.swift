@_spi(Testing) import Stratus
import XCTest
import _StratusTestSupport

/// Distance queries and location sorts through the server: the same answers as measuring every
/// record as queries measure (``EarthDistance/geodesic(_:_:)``), in CloudKit's order, read
/// through the spatial index.
final class LocationQueryTests: ServerTestCase {
    private var database: CKDatabase { device("john").privateCloudDatabase }

    private func place(_ name: String, _ latitude: Double, _ longitude: Double, kind: String = "cafe") -> CKRecord {
        let record = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: name))
        record["location"] = CLLocation(latitude: latitude, longitude: longitude)
        record["kind"] = kind
        return record
    }

    private func save(_ records: [CKRecord], to database: CKDatabase? = nil) async throws {
        let database = database ?? self.database
        for start in stride(from: 0, to: records.count, by: 400) {
            let (results, _) = try await database.modifyRecords(saving: Array(records[start..<min(start + 400, records.count)]), deleting: [], atomically: false)
            for (_, result) in results { _ = try result.get() }
        }
    }

    /// Every page of `query`, `limit` records a page, as record names.
    private func allPages(_ query: CKQuery, limit: Int, in database: CKDatabase? = nil) async throws -> [String] {
        let database = database ?? self.database
        var page = try await database.records(matching: query, resultsLimit: limit)
        var names = try page.matchResults.map { try $0.1.get().recordID.recordName }
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: limit)
            names += try page.matchResults.map { try $0.1.get().recordID.recordName }
        }
        return names
    }

    private func near(_ center: CLLocation, _ kilometres: Double, inclusive: Bool = false) -> NSPredicate {
        NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) \(inclusive ? "<=" : "<") %f", center, kilometres)
    }

    /// `count` places spread at random over the whole Earth, poles and antimeridian included.
    private func randomPlaces(_ count: Int, seed: UInt64) -> [CKRecord] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            // Uniform on the sphere, so the poles hold as many places per area as the equator.
            let latitude = asin(Double.random(in: -1...1, using: &generator)) * 180 / .pi
            return place(String(format: "p%06d", index), latitude, Double.random(in: -180...180, using: &generator))
        }
    }

    /// The distance a query measures between two locations.
    private func queryDistance(_ a: CLLocation, _ b: CLLocation) -> Double {
        EarthDistance.geodesic(
            WireLocation(latitude: a.coordinate.latitude, longitude: a.coordinate.longitude),
            WireLocation(latitude: b.coordinate.latitude, longitude: b.coordinate.longitude)
        )
    }

    private func bruteForce(_ places: [CKRecord], from center: CLLocation, within kilometres: Double? = nil) -> [String] {
        places.compactMap { record -> (Double, String)? in
            guard let location = record["location"] as? CLLocation else { return nil }
            let distance = queryDistance(location, center)
            if let kilometres, !(distance / 1000 < kilometres) { return nil }
            return (distance, record.recordID.recordName)
        }
        .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.unicodeScalars.lexicographicallyPrecedes($1.1.unicodeScalars) }
        .map(\.1)
    }

    func testACircleQueryFindsExactlyThePlacesInsideItAndReadsOnlyThoseNearIt() async throws {
        let places = randomPlaces(5_000, seed: 12)
        try await save(places)
        for (center, kilometres) in [(CLLocation(latitude: 48.85, longitude: 2.35), 1_500.0), (CLLocation(latitude: -89.5, longitude: 10), 900),
                                     (CLLocation(latitude: 5, longitude: 179.9), 700), (CLLocation(latitude: 0, longitude: 0), 0)] {
            let names = try await allPages(CKQuery(recordType: "Place", predicate: near(center, kilometres)), limit: 400)
            XCTAssertEqual(Set(names), Set(bruteForce(places, from: center, within: kilometres)), "\(center) \(kilometres) km")
            XCTAssertEqual(names, names.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }, "without a sort, record-name order")
        }
        _ = try await database.records(matching: CKQuery(recordType: "Place", predicate: near(CLLocation(latitude: 48.85, longitude: 2.35), 300)), resultsLimit: 400)
        XCTAssertLessThan(server.lastQueryExaminedCount, 200, "a 300 km circle reads the places near it, not 5,000")
    }

    func testNearestFirstAcrossPagesMatchesMeasuringEveryPlace() async throws {
        let places = randomPlaces(3_000, seed: 7)
        try await save(places)
        for center in [CLLocation(latitude: 51.5, longitude: -0.12), CLLocation(latitude: 90, longitude: 0),
                       CLLocation(latitude: -33.9, longitude: -179.999), CLLocation(latitude: 0, longitude: 180)] {
            let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
            query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
            let first = try await database.records(matching: query, resultsLimit: 20)
            XCTAssertEqual(try first.matchResults.map { try $0.1.get().recordID.recordName }, Array(bruteForce(places, from: center).prefix(20)))
            XCTAssertLessThan(server.lastQueryExaminedCount, 300, "20 nearest of 3,000 read a few leaves of the index")
            let everything = try await allPages(query, limit: 97)
            XCTAssertEqual(everything, bruteForce(places, from: center), "\(center)")
        }
    }

    func testNearestFirstWithinACircleStopsAtItsEdgeAndCombinesWithOtherConditions() async throws {
        var places = randomPlaces(2_000, seed: 3)
        for (index, record) in places.enumerated() where index % 3 == 0 { record["kind"] = "bar" }
        places.append(place("here", 45, 7, kind: "bar"))
        try await save(places)
        let center = CLLocation(latitude: 45, longitude: 7)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(format: "kind == %@ AND distanceToLocation:fromLocation:(location, %@) < %f", "bar", center, 2_000.0))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        let names = try await allPages(query, limit: 5)
        let expected = bruteForce(places.filter { $0["kind"] as? String == "bar" }, from: center, within: 2_000)
        XCTAssertEqual(names, expected)
        XCTAssertEqual(names.first, "here")
        XCTAssertFalse(expected.isEmpty)
    }

    func testACircleWithANearestFirstSortReadsOnlyTheCircleWhicheverPointTheSortMeasuresFrom() async throws {
        let places = randomPlaces(20_000, seed: 31)
        try await save(places)
        // The app makes its two CLLocations at different times: they still measure alike.
        let here = CLLocation(coordinate: CLLocationCoordinate2D(latitude: 40.4, longitude: -3.7), altitude: 0, horizontalAccuracy: 5, verticalAccuracy: -1, timestamp: Date(timeIntervalSinceReferenceDate: 1))
        let sameSpot = CLLocation(latitude: 40.4, longitude: -3.7)
        let elsewhere = CLLocation(latitude: 41.4, longitude: 2.2)
        for sortFrom in [sameSpot, elsewhere] {
            let query = CKQuery(recordType: "Place", predicate: near(here, 400))
            query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: sortFrom)]
            let names = try await allPages(query, limit: 400)
            XCTAssertEqual(names, bruteForce(places.filter { ($0["location"] as? CLLocation).map { queryDistance($0, here) / 1000 < 400 } ?? false }, from: sortFrom))
            XCTAssertFalse(names.isEmpty)
            XCTAssertLessThan(server.lastQueryExaminedCount, 400, "sorted from \(sortFrom): reads the circle, not 20,000 places")
        }
    }

    func testTiesInDistanceComeInRecordNameOrderOnEveryPage() async throws {
        // Eight points, five places at each, saved and named out of order; and a ring of
        // places at the pole under different longitudes.
        var places: [CKRecord] = []
        for group in (0..<8).reversed() {
            for member in [3, 0, 4, 1, 2] {
                places.append(place("g\(group)-\(member)", Double(group) * 3 - 10, Double(group) * 7 + 1))
            }
        }
        try await save(places)
        let center = CLLocation(latitude: -10, longitude: 1)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        let names = try await allPages(query, limit: 7)
        XCTAssertEqual(names, (0..<8).flatMap { group in (0..<5).map { "g\(group)-\($0)" } })
        XCTAssertEqual(names, bruteForce(places, from: center))
    }

    func testAPointExactlyOnTheRadiusIsInsideOnlyForLessOrEqual() async throws {
        let center = CLLocation(latitude: 40, longitude: -74)
        let edge = place("edge", 43, -70)
        try await save([edge, place("centre", 40, -74)])
        let kilometres = queryDistance(try XCTUnwrap(edge["location"] as? CLLocation), center) / 1000
        let strict = try await allPages(CKQuery(recordType: "Place", predicate: near(center, kilometres)), limit: 10)
        let inclusive = try await allPages(CKQuery(recordType: "Place", predicate: near(center, kilometres, inclusive: true)), limit: 10)
        XCTAssertEqual(strict, ["centre"])
        XCTAssertEqual(inclusive, ["centre", "edge"])
        let reversed = try await allPages(CKQuery(recordType: "Place", predicate: NSPredicate(format: "%f >= distanceToLocation:fromLocation:(location, %@)", kilometres, center)), limit: 10)
        XCTAssertEqual(reversed, ["centre", "edge"])
    }

    func testTheAntimeridianAndThePolesAreNoEdges() async throws {
        try await save([place("east", 0, 179.99), place("west", 0, -179.99), place("far", 0, 170),
                        place("north-a", 89.99, 0), place("north-b", 89.99, 180), place("south", -89.99, 45)])
        let acrossTheLine = try await allPages(CKQuery(recordType: "Place", predicate: near(CLLocation(latitude: 0, longitude: -179.995), 5)), limit: 10)
        XCTAssertEqual(acrossTheLine, ["east", "west"])
        let overThePole = try await allPages(CKQuery(recordType: "Place", predicate: near(CLLocation(latitude: 90, longitude: -90), 3)), limit: 10)
        XCTAssertEqual(overThePole, ["north-a", "north-b"])
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: CLLocation(latitude: -90, longitude: 0))]
        let fromSouthPole = try await allPages(query, limit: 10)
        XCTAssertEqual(fromSouthPole.first, "south")
    }

    func testRecordsWithoutALocationComeLastInALocationSortAndNeverMatchACircle() async throws {
        let unlocated = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "a-nowhere"))
        unlocated["kind"] = "cafe"
        let elsewhere = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "b-text"))
        elsewhere["kind"] = "cafe"
        try await save([place("z-far", 60, 60), unlocated, elsewhere, place("y-near", 1, 1)])
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(format: "kind == %@", "cafe"))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: CLLocation(latitude: 0, longitude: 0))]
        let sorted = try await allPages(query, limit: 1)
        XCTAssertEqual(sorted, ["y-near", "z-far", "a-nowhere", "b-text"])
        let inCircle = try await allPages(CKQuery(recordType: "Place", predicate: near(CLLocation(latitude: 0, longitude: 0), 20_000)), limit: 10)
        XCTAssertEqual(inCircle, ["y-near", "z-far"])
    }

    func testALocationSortAfterAnotherKeyOrDescendingStillOrdersEveryPage() async throws {
        let places = randomPlaces(300, seed: 5)
        for (index, record) in places.enumerated() { record["kind"] = index % 2 == 0 ? "bar" : "cafe" }
        try await save(places)
        let center = CLLocation(latitude: 10, longitude: 20)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "kind", ascending: true), CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        let expected = bruteForce(places.filter { $0["kind"] as? String == "bar" }, from: center) + bruteForce(places.filter { $0["kind"] as? String == "cafe" }, from: center)
        let names = try await allPages(query, limit: 33)
        XCTAssertEqual(names, expected)
    }

    func testMovingAndDeletingPlacesKeepsTheIndexInStep() async throws {
        let places = randomPlaces(500, seed: 9)
        try await save(places)
        let center = CLLocation(latitude: -10, longitude: -50)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        _ = try await database.records(matching: query, resultsLimit: 1)
        // Move a hundred places next to the centre, delete fifty, strip three of their location.
        let moved = try await database.records(for: places.prefix(100).map(\.recordID)).map { try $0.value.get() }
        for (offset, record) in moved.enumerated() { record["location"] = CLLocation(latitude: -10 + Double(offset) * 0.001, longitude: -50) }
        let stripped = try await database.records(for: places[200..<203].map(\.recordID)).map { try $0.value.get() }
        for record in stripped { record["location"] = nil }
        let deleted = places[300..<350].map(\.recordID)
        _ = try await database.modifyRecords(saving: moved + stripped, deleting: deleted)
        var current = places.filter { record in !deleted.contains(record.recordID) }
        current = current.map { record in (moved + stripped).first { $0.recordID == record.recordID } ?? record }
        let located = bruteForce(current, from: center)
        let names = try await allPages(query, limit: 50)
        XCTAssertEqual(names, located + stripped.map(\.recordID.recordName).sorted())
        XCTAssertEqual(Set(names.prefix(100)), Set(moved.map(\.recordID.recordName)))
    }

    func testACursorStaysStableWhenPlacesAreAddedBetweenPages() async throws {
        let places = randomPlaces(200, seed: 21)
        try await save(places)
        let center = CLLocation(latitude: 30, longitude: 30)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        let first = try await database.records(matching: query, resultsLimit: 50)
        let firstNames = try first.matchResults.map { try $0.1.get().recordID.recordName }
        // A place nearer than the whole first page, and one farther than everything.
        try await save([place("new-near", 30, 30), place("new-far", -30, -150)])
        var names = firstNames
        var cursor = first.queryCursor
        while let next = cursor {
            let page = try await database.records(continuingMatchFrom: next, resultsLimit: 50)
            names += try page.matchResults.map { try $0.1.get().recordID.recordName }
            cursor = page.queryCursor
        }
        XCTAssertEqual(names.filter { !$0.hasPrefix("new-") }, bruteForce(places, from: center), "no place twice, none skipped")
        XCTAssertFalse(names.contains("new-near"), "a place added behind the cursor is not returned")
        XCTAssertEqual(names.filter { $0 == "new-far" }.count, Int(bruteForce(places + [place("new-far", -30, -150)], from: center).last == "new-far" ? 1 : 0))
    }

    func testANearestQueryWithoutAZoneSearchesEveryZone() async throws {
        let zone = CKRecordZone(zoneName: "Trips")
        _ = try await database.modifyRecordZones(saving: [zone], deleting: [])
        let inZone = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "b-zoned", zoneID: zone.zoneID))
        inZone["location"] = CLLocation(latitude: 1, longitude: 1)
        try await save([inZone, place("a-default", 2, 2), place("c-default", 0.5, 0.5)])
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: CLLocation(latitude: 0, longitude: 0))]
        let (results, _) = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 10)
        XCTAssertEqual(results.map(\.0.recordName), ["c-default", "b-zoned", "a-default"])
    }

    func testTwentyNearestOfOneHundredThousandReadAboutAsManyAsOfOneThousand() async throws {
        let center = CLLocation(latitude: 35.68, longitude: 139.76)
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        try await save(randomPlaces(1_000, seed: 1))
        _ = try await database.records(matching: query, resultsLimit: 20)
        let small = server.lastQueryExaminedCount
        try await save(randomPlaces(100_000, seed: 2).map { record in
            let copy = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "more-" + record.recordID.recordName))
            copy["location"] = record["location"]
            return copy
        })
        let page = try await database.records(matching: query, resultsLimit: 20)
        XCTAssertEqual(page.matchResults.count, 20)
        XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, max(small * 2, 200), "examined \(server.lastQueryExaminedCount) of 101,000 (\(small) of 1,000)")
    }
}

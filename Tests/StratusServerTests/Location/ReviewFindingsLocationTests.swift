@_spi(Testing) import Stratus
import XCTest
import _StratusTestSupport

/// What the hostile review of part 12 (locations) found, each pinned by the behaviour a user relies on.
final class ReviewFindingsLocationTests: ServerTestCase {
    private var john: CKContainer!
    private var database: CKDatabase { john.privateCloudDatabase }

    override func setUp() {
        super.setUp()
        john = device("john")
    }

    private func place(_ name: String, _ location: CLLocation?, zone: CKRecordZone.ID = .default) -> CKRecord {
        let record = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        if let location { record["location"] = location }
        return record
    }

    private func save(_ records: [CKRecord]) async throws {
        let (results, _) = try await database.modifyRecords(saving: records, deleting: [], atomically: false)
        for (_, result) in results { _ = try result.get() }
    }

    /// Every page of `query` across all zones, `limit` a page, as "name@zone".
    private func allPages(_ query: CKQuery, limit: Int) async throws -> [String] {
        var page = try await database.records(matching: query, inZoneWith: nil, resultsLimit: limit)
        var names = try page.matchResults.map { try $0.1.get().recordID }
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: limit)
            names += try page.matchResults.map { try $0.1.get().recordID }
        }
        return names.map { "\($0.recordName)@\($0.zoneID.zoneName)" }
    }

    private func nearest(_ center: CLLocation) -> CKQuery {
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: center)]
        return query
    }

    // Found: paging a location sort over every zone skipped a record without a location whose name equals the
    // cursor's last record's name in a later zone (the tail compared names, not whole keys); CloudKit returns
    // every matching record exactly once across pages.
    func testPagingANearestFirstQueryOverAllZonesReturnsEveryRecordWithoutALocation() async throws {
        let a = CKRecordZone.ID(zoneName: "a-zone"), b = CKRecordZone.ID(zoneName: "b-zone")
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: a), CKRecordZone(zoneID: b)], deleting: [])
        try await save([place("located", CLLocation(latitude: 1, longitude: 1), zone: a), place("same", nil, zone: a), place("same", nil, zone: b)])
        let query = nearest(CLLocation(latitude: 0, longitude: 0))
        let onePage = try await allPages(query, limit: 10)
        XCTAssertEqual(onePage, ["located@a-zone", "same@a-zone", "same@b-zone"])
        let oneByOne = try await allPages(query, limit: 1)
        XCTAssertEqual(oneByOne, onePage, "the page that ends at same@a-zone must not swallow same@b-zone")
    }

    // Found: queries measured as CoreLocation does, whose tangent plane and Vincenty's formula disagree by ~4 m at
    // its 2° switch, so a place farther along a parallel measured nearer. Queries now measure the geodesic: a user
    // expects nearest-first to follow distance, and a circle holding a place to hold every nearer one.
    func testAPlaceFartherAlongTheSameParallelNeverComesFirstOrInsideACircleThatLeavesANearerOneOut() async throws {
        try await save([
            place("nearer", CLLocation(latitude: 60, longitude: 1.9999999)),
            place("farther", CLLocation(latitude: 60, longitude: 2.0000001)),
        ])
        let center = CLLocation(latitude: 60, longitude: 0)
        let ordered = try await allPages(nearest(center), limit: 10)
        XCTAssertEqual(ordered, ["nearer@_defaultZone", "farther@_defaultZone"])
        let circle = CKQuery(recordType: "Place", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", center, 111.5975))
        let inside = Set(try await allPages(circle, limit: 10))
        if inside.contains("farther@_defaultZone") {
            XCTAssertTrue(inside.contains("nearer@_defaultZone"), "a circle holds the farther place but not the nearer one: \(inside)")
        }
    }

    // Found: the North Pole named under two longitudes measured 4 m apart from a point 1° away (CoreLocation's
    // tangent plane gives the pole an east-west extent); one point is one distance, so the two records tie and
    // come in record-name order, as every tie does.
    func testThePoleUnderAnyLongitudeIsOnePointAndTiesInRecordNameOrder() async throws {
        try await save([
            place("a-pole", CLLocation(latitude: 90, longitude: 49)),
            place("b-pole", CLLocation(latitude: 90, longitude: 0)),
        ])
        let ordered = try await allPages(nearest(CLLocation(latitude: 89, longitude: 50)), limit: 10)
        XCTAssertEqual(ordered, ["a-pole@_defaultZone", "b-pole@_defaultZone"])
    }

    // Found: a record's altitude (with a valid vertical accuracy) changed its distance in queries and sorts
    // (CoreLocation raises short distances by the mean valid altitude); CloudKit's CKLocationSortDescriptor
    // documentation: "Distances don't account for altitude changes between the two locations".
    func testAltitudeDoesNotChangeHowFarAPlaceIsInALocationSort() async throws {
        let summit = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 27.9881, longitude: 86.925), altitude: 8_848,
            horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: Date(timeIntervalSinceReferenceDate: 0)
        )
        let base = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 27.9881, longitude: 86.925), altitude: 0,
            horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: Date(timeIntervalSinceReferenceDate: 0)
        )
        try await save([place("a-summit", summit), place("b-base", base)])
        let ordered = try await allPages(nearest(CLLocation(latitude: 27.5, longitude: 86.5)), limit: 10)
        XCTAssertEqual(ordered, ["a-summit@_defaultZone", "b-base@_defaultZone"], "one coordinate, one distance: a tie in record-name order")
    }
}

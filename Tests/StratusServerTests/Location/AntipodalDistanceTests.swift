@_spi(Testing) import Stratus
import XCTest
import _StratusTestSupport

/// Circles and location sorts that reach the far side of the Earth: the server measures nearly
/// antipodal places along the geodesic (GeographicLib's lengths), not along the sphere Vincenty's
/// formula used to fall back to, which put them up to 34 km farther than any geodesic is long.
final class AntipodalDistanceTests: ServerTestCase {
    private var database: CKDatabase!

    override func setUp() {
        super.setUp()
        database = device("john").privateCloudDatabase
    }

    override func tearDown() {
        database = nil
        super.tearDown()
    }

    private let origin = CLLocation(latitude: 0, longitude: 0)

    /// (0.5°, 179.7°): 19,944.127 km from the origin along the geodesic (the sphere: 19,972.7 km).
    private let farSide = CLLocation(latitude: 0.5, longitude: 179.7)
    /// (-0.01°, 179.99°): 20,002.817 km along the geodesic (the sphere: 20,036.0 km, more than
    /// half a meridian).
    private let antipode = CLLocation(latitude: -0.01, longitude: 179.99)

    private func place(_ name: String, _ location: CLLocation) -> CKRecord {
        let record = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: name))
        record["location"] = location
        return record
    }

    private func names(_ query: CKQuery) async throws -> [String] {
        let page = try await database.records(matching: query, resultsLimit: 10)
        return try page.matchResults.map { try $0.1.get().recordID.recordName }
    }

    private func wire(_ location: CLLocation) -> WireLocation {
        WireLocation(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude)
    }

    func testACircleReachingTheFarSideHoldsThePlacesWhoseGeodesicIsShorterThanItsRadius() async throws {
        _ = try await database.modifyRecords(saving: [place("far-side", farSide), place("antipode", antipode)], deleting: [])
        let circle = { (kilometres: Double) in
            CKQuery(recordType: "Place", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", self.origin, kilometres))
        }
        let withinFarSide = try await names(circle(19_950))
        XCTAssertEqual(withinFarSide, ["far-side"])
        let withinHalfAMeridian = try await names(circle(20_003.9315))
        XCTAssertEqual(withinHalfAMeridian, ["antipode", "far-side"], "every place lies within half a meridian of any other")
    }

    func testARawCircleQueryMeasuresTheGeodesicToo() async throws {
        _ = try await database.modifyRecords(saving: [place("far-side", farSide), place("antipode", antipode)], deleting: [])
        let query = WireQuery(recordType: "Place", predicate: .near(.field("location"), center: wire(origin), kilometres: 20_003.9315, inclusive: false))
        let response = try await server.queryRecords(WireQueryRequest(context: rawContext(database), query: query))
        XCTAssertEqual(response.records.map(\.recordID.recordName), ["antipode", "far-side"])
    }

    func testANearestFirstSortRanksNearlyAntipodalPlacesByTheirGeodesic() async throws {
        // 19,921.360 km along the geodesic, which the sphere measured 19,947.4 km: farther than
        // the 19,930.694 km to (0.42°, -179.28°), which Vincenty's formula measures.
        let nearer = CLLocation(latitude: 0.66, longitude: 179.53)
        let farther = CLLocation(latitude: 0.42, longitude: -179.28)
        _ = try await database.modifyRecords(saving: [place("nearer", nearer), place("farther", farther)], deleting: [])
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: origin)]
        let ordered = try await names(query)
        XCTAssertEqual(ordered, ["nearer", "farther"])
    }
}

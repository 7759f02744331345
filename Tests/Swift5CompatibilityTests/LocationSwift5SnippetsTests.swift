import Stratus
import XCTest

// Location code as apps in the Swift 5 language mode write it, compiled against `import
// Stratus` alone: completion handlers that change local state, an app's own Equatable
// coordinate, and a Codable model mapped to a record. It must build without warnings.

// An app's own conformance; it compiles only because Stratus's coordinate is not Equatable.
extension CLLocationCoordinate2D: Equatable {
    public static func == (lhs: CLLocationCoordinate2D, rhs: CLLocationCoordinate2D) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude
    }
}

private struct Store: Codable {
    var name: String
    var location: CLLocation

    enum CodingKeys: String, CodingKey {
        case name, latitude, longitude
    }

    init(name: String, location: CLLocation) {
        self.name = name
        self.location = location
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        location = CLLocation(latitude: try container.decode(Double.self, forKey: .latitude), longitude: try container.decode(Double.self, forKey: .longitude))
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(location.coordinate.latitude, forKey: .latitude)
        try container.encode(location.coordinate.longitude, forKey: .longitude)
    }

    var record: CKRecord {
        let record = CKRecord(recordType: "Store", recordID: CKRecord.ID(recordName: name))
        record["name"] = name as CKRecordValue
        record["location"] = location
        return record
    }

    init?(record: CKRecord) {
        guard let name = record["name"] as? String, let location = record["location"] as? CLLocation else { return nil }
        self.init(name: name, location: location)
    }
}

final class LocationSwift5SnippetsTests: XCTestCase {
    func testLocationsInRecordsPredicatesAndSortsBuildInSwift5Mode() throws {
        let cupertino = CLLocation(latitude: 37.3349, longitude: -122.0090)
        let store = Store(name: "infinite-loop", location: cupertino)
        let decoded = try JSONDecoder().decode(Store.self, from: try JSONEncoder().encode(store))
        XCTAssertEqual(decoded.location.coordinate, cupertino.coordinate)
        XCTAssertEqual(Store(record: store.record)?.location.coordinate, cupertino.coordinate)

        let radius = 10.0
        let predicate = NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", cupertino, radius)
        let query = CKQuery(recordType: "Store", predicate: predicate)
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: cupertino)]
        XCTAssertTrue(predicate.evaluate(with: store.record))
        XCTAssertEqual(query.sortDescriptors?.first?.key, "location")
    }

    func testCompletionHandlersSaveAndFetchALocation() {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.stores", account: "john").privateCloudDatabase
        let store = Store(name: "battersea", location: CLLocation(latitude: 51.4827, longitude: -0.1445))

        var saveError: Error?
        let saved = expectation(description: "saved")
        database.save(store.record) { _, error in
            saveError = error
            saved.fulfill()
        }
        wait(for: [saved], timeout: 10)
        XCTAssertNil(saveError)

        var fetchedStore: Store?
        let fetched = expectation(description: "fetched")
        database.fetch(withRecordID: CKRecord.ID(recordName: "battersea")) { record, _ in
            fetchedStore = record.flatMap(Store.init(record:))
            fetched.fulfill()
        }
        wait(for: [fetched], timeout: 10)
        XCTAssertEqual(fetchedStore?.location.coordinate, CLLocationCoordinate2D(latitude: 51.4827, longitude: -0.1445))

        var invalidError: CKError?
        let refused = expectation(description: "refused")
        let invalid = CKRecord(recordType: "Store")
        invalid["location"] = CLLocation(latitude: 91, longitude: 0)
        database.save(invalid) { _, error in
            invalidError = error as? CKError
            refused.fulfill()
        }
        wait(for: [refused], timeout: 10)
        XCTAssertEqual(invalidError?.code, .invalidArguments)
    }
}

import Foundation
import Stratus
import XCTest

// Location code as CloudKit's documentation and apps write it, in Swift 6, compiled against
// `import Stratus` alone: `CLLocation` comes with it (from CoreLocation where that exists,
// from Stratus elsewhere), as it comes with `import CloudKit`.

// Apps make CoreLocation's coordinate Equatable themselves; it must not already be.
// (An app in another package writes `@retroactive Equatable` here, as it does against
// CoreLocation; inside Stratus's own package the compiler refuses that attribute.)
extension CLLocationCoordinate2D: Equatable {
    public static func == (lhs: CLLocationCoordinate2D, rhs: CLLocationCoordinate2D) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude
    }
}

/// A model as record-coding libraries write it: `Codable` through its coordinate, and mapped
/// to and from a record field holding the `CLLocation`.
private struct Sighting: Codable {
    var species: String
    var location: CLLocation

    private enum CodingKeys: String, CodingKey {
        case species, latitude, longitude
    }

    init(species: String, location: CLLocation) {
        self.species = species
        self.location = location
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        species = try container.decode(String.self, forKey: .species)
        let latitude = try container.decode(CLLocationDegrees.self, forKey: .latitude)
        let longitude = try container.decode(CLLocationDegrees.self, forKey: .longitude)
        location = CLLocation(latitude: latitude, longitude: longitude)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(species, forKey: .species)
        try container.encode(location.coordinate.latitude, forKey: .latitude)
        try container.encode(location.coordinate.longitude, forKey: .longitude)
    }

    init?(record: CKRecord) {
        guard let species = record["species"] as? String, let location = record["location"] as? CLLocation else { return nil }
        self.init(species: species, location: location)
    }

    func record(named name: String) -> CKRecord {
        let record = CKRecord(recordType: "Sighting", recordID: CKRecord.ID(recordName: name))
        record["species"] = species
        record["location"] = location
        return record
    }
}

final class LocationSnippetsTests: XCTestCase {
    private let tower = CLLocationCoordinate2D(latitude: 51.5081, longitude: -0.0759)

    func testRecordsHoldLocationsAsTheDocumentationShows() throws {
        let store = CKRecord(recordType: "Store")
        store["location"] = CLLocation(latitude: 37.3349, longitude: -122.0090)
        store.setObject(CLLocation(latitude: 37.7749, longitude: -122.4194) as CKRecordValue, forKey: "warehouse")
        store["branches"] = [CLLocation(latitude: 40.7128, longitude: -74.0060), CLLocation(latitude: 34.0522, longitude: -118.2437)]
        store.encryptedValues["owner"] = CLLocation(latitude: 1, longitude: 2)

        let location = try XCTUnwrap(store["location"] as? CLLocation)
        XCTAssertEqual(location.coordinate, CLLocationCoordinate2D(latitude: 37.3349, longitude: -122.0090))
        let typed: CLLocation? = store["warehouse"]
        XCTAssertEqual(typed?.coordinate.latitude, 37.7749)
        let branches = store["branches"] as? [CLLocation] ?? []
        XCTAssertEqual(branches.map(\.coordinate.longitude), [-74.0060, -118.2437])
        let owner: CLLocation? = store.encryptedValues["owner"]
        XCTAssertEqual(owner?.coordinate, CLLocationCoordinate2D(latitude: 1, longitude: 2))
        XCTAssertGreaterThan(location.distance(from: branches[0]), 4_000_000)
    }

    func testPredicatesAndSortDescriptorsAsTheDocumentationWritesThem() throws {
        let here = CLLocation(latitude: 51.5072, longitude: -0.1276)
        let radiusInKilometers: CGFloat = 5
        let predicate = NSPredicate(format: "distanceToLocation:fromLocation:(%K, %@) < %f", "location", here, radiusInKilometers)
        let query = CKQuery(recordType: "Sighting", predicate: predicate)
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: here)]
        XCTAssertEqual((query.sortDescriptors?.first as? CKLocationSortDescriptor)?.relativeLocation.coordinate, here.coordinate)

        let near = Sighting(species: "raven", location: CLLocation(coordinate: tower, altitude: 20, horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: Date()))
        let far = Sighting(species: "puffin", location: CLLocation(latitude: 60.1, longitude: -1.2))
        XCTAssertTrue(predicate.evaluate(with: near.record(named: "raven")))
        XCTAssertFalse(predicate.evaluate(with: far.record(named: "puffin")))

        let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        let restored = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data))
        XCTAssertEqual((restored.sortDescriptors?.first as? CKLocationSortDescriptor)?.relativeLocation.coordinate, here.coordinate)
        XCTAssertEqual(restored.sortDescriptors?.first?.key, "location")
    }

    func testACodableModelRoundTripsThroughJSONAndThroughARecord() throws {
        let sighting = Sighting(species: "raven", location: CLLocation(latitude: tower.latitude, longitude: tower.longitude))
        let json = try JSONEncoder().encode(sighting)
        let decoded = try JSONDecoder().decode(Sighting.self, from: json)
        XCTAssertEqual(decoded.species, "raven")
        XCTAssertEqual(decoded.location.coordinate, tower)

        let fromRecord = try XCTUnwrap(Sighting(record: sighting.record(named: "raven-1")))
        XCTAssertEqual(fromRecord.location.coordinate, tower)
        XCTAssertEqual(fromRecord.location.distance(from: sighting.location), 0)
        XCTAssertNil(Sighting(record: CKRecord(recordType: "Sighting")))
    }

    func testALocationSurvivesASaveAndAFetch() async throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.birds", account: "john").privateCloudDatabase
        let sighting = Sighting(species: "raven", location: CLLocation(coordinate: tower, altitude: 20, horizontalAccuracy: 5, verticalAccuracy: 3, course: 90, speed: 1.5, timestamp: Date(timeIntervalSinceReferenceDate: 800_000_000)))
        let record = sighting.record(named: "raven-1")
        record["trail"] = [CLLocation(latitude: 51.5, longitude: -0.08), CLLocation(latitude: 51.51, longitude: -0.07)]
        _ = try await database.save(record)

        let fetched = try await database.record(for: record.recordID)
        let location = try XCTUnwrap(fetched["location"] as? CLLocation)
        XCTAssertEqual(location.coordinate, tower)
        XCTAssertEqual(location.altitude, 20)
        XCTAssertEqual(location.course, 90)
        XCTAssertEqual(location.speed, 1.5)
        XCTAssertEqual(location.timestamp, Date(timeIntervalSinceReferenceDate: 800_000_000))
        XCTAssertEqual((fetched["trail"] as? [CLLocation])?.count, 2)
        XCTAssertEqual(Sighting(record: fetched)?.species, "raven")

        let withinFive = NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < 5", CLLocation(latitude: 51.5072, longitude: -0.1276))
        XCTAssertTrue(withinFive.evaluate(with: fetched))
        let withinOne = NSPredicate(format: "1 > distanceToLocation:fromLocation:(location, %@)", CLLocation(latitude: 51.5072, longitude: -0.1276))
        XCTAssertFalse(withinOne.evaluate(with: fetched))
    }

    func testAnInvalidLocationFailsTheSaveAndAnOutsideCircleQueryFailsBeforeTheServer() async throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.birds", account: "john").privateCloudDatabase
        let record = CKRecord(recordType: "Sighting")
        record["location"] = CLLocation(coordinate: kCLLocationCoordinate2DInvalid, altitude: 0, horizontalAccuracy: -1, verticalAccuracy: -1, timestamp: Date())
        do {
            _ = try await database.save(record)
            XCTFail("saved a record with an invalid coordinate")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .invalidArguments)
        }

        let requests = server.requestCount
        let outside = NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) > 5", CLLocation(latitude: 0, longitude: 0))
        do {
            _ = try await database.records(matching: CKQuery(recordType: "Sighting", predicate: outside))
            XCTFail("ran a query for locations outside a circle")
        } catch CKError.invalidArguments {
            XCTAssertEqual(server.requestCount, requests, "refused before it was sent")
        }
    }
}

import Foundation
import StratusCore
import StratusWire
import XCTest

/// `distanceToLocation:fromLocation:` predicates (every accepted spelling, every refused one,
/// local evaluation on the circle, across the antimeridian and at the poles) and
/// `CKLocationSortDescriptor` (its properties, its archive, and in a `CKQuery` and its archive).
final class LocationPredicateTests: XCTestCase {
    private let noon = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private lazy var london = CLLocation(coordinate: CLLocationCoordinate2D(latitude: 51.5072, longitude: -0.1276), altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: noon)
    private var londonWire: WireLocation { WireLocation(latitude: 51.5072, longitude: -0.1276, timestamp: noon) }

    private func refusal(_ predicate: NSPredicate) -> String? {
        if case .failure(let error) = predicate.cloudKitPredicate { return error.message }
        return nil
    }

    private func near(_ kilometres: Double, inclusive: Bool, field: String = "place") -> WirePredicate {
        .near(.field(field), center: londonWire, kilometres: kilometres, inclusive: inclusive)
    }

    private func place(_ latitude: Double, _ longitude: Double) -> CLLocation {
        CLLocation(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: noon)
    }

    private func sighting(at location: CLLocation?, key: String = "place") -> CKRecord {
        let record = CKRecord(recordType: "Sighting")
        record[key] = location
        return record
    }

    // MARK: - Accepted forms

    func testEverySpellingOfInsideACircleParses() {
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(%K, %@) < %f", "place", london, 5.5)), near(5.5, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", london)), near(5, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) <= %f", london, 5.5)), near(5.5, inclusive: true))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) =< %d", london, 5)), near(5, inclusive: true))
        XCTAssertEqual(parsed(NSPredicate(format: "%f > distanceToLocation:fromLocation:(place, %@)", 5.5, london)), near(5.5, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "%f >= distanceToLocation:fromLocation:(%K, %@)", 5.5, "place", london)), near(5.5, inclusive: true))
        XCTAssertEqual(parsed(NSPredicate(format: "5 => distanceToLocation:fromLocation:(place, %@)", london)), near(5, inclusive: true))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %@", london, NSNumber(value: 2.5))), near(2.5, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place,%@)<1e1", london)), near(10, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", argumentArray: [london, 5.5])), near(5.5, inclusive: false))
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", london, CGFloat(5.5))), near(5.5, inclusive: false), "CloudKit's samples pass a CGFloat radius")
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %d", london, CGFloat(5))), near(5, inclusive: false))
    }

    func testTheCenterKeepsTheComponentsARecordWouldKeep() {
        let moving = CLLocation(coordinate: CLLocationCoordinate2D(latitude: 1, longitude: 2), altitude: 3, horizontalAccuracy: 4, verticalAccuracy: 5, course: 6, courseAccuracy: 7, speed: 8, speedAccuracy: 9, timestamp: noon)
        let center = WireLocation(latitude: 1, longitude: 2, altitude: 3, horizontalAccuracy: 4, verticalAccuracy: 5, course: 6, speed: 8, timestamp: noon)
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 1", moving)), .near(.field("place"), center: center, kilometres: 1, inclusive: false))
    }

    func testDistancesCombineWithOtherConditionsUnderAND() {
        let expected: WirePredicate = .and([near(10, inclusive: false), .compare(.field("kind"), .equal, .value(.string("owl"))), near(20, inclusive: true, field: "nest")])
        XCTAssertEqual(parsed(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 10 AND kind == 'owl' AND distanceToLocation:fromLocation:(nest, %@) <= 20", london, london)), expected)
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 10", london),
            NSPredicate(format: "kind == 'owl'"),
            NSPredicate(format: "20 >= distanceToLocation:fromLocation:(nest, %@)", london),
        ])
        XCTAssertEqual(parsed(compound), expected)
        XCTAssertEqual(parsed(NSPredicate(format: "(distanceToLocation:fromLocation:(place, %@) < 10)", london)), near(10, inclusive: false))
    }

    // MARK: - Refused forms

    /// Asserts that each predicate is refused with a message naming its part.
    private func assertRefused(_ cases: [(NSPredicate, String)], file: StaticString = #filePath, line: UInt = #line) {
        for (index, (predicate, part)) in cases.enumerated() {
            guard let message = refusal(predicate) else {
                XCTFail("case \(index) accepted, expected a refusal naming \(part)", file: file, line: line)
                continue
            }
            XCTAssertTrue(message.contains(part), "case \(index): '\(message)' does not name \(part)", file: file, line: line)
        }
    }

    func testOutsideACircleAndOtherComparisonsAreRefused() {
        let cases: [(NSPredicate, String)] = [
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) > 5", london), "outside a circle"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) >= 5", london), "outside a circle"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) == 5", london), "outside a circle"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) = 5", london), "outside a circle"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) != 5", london), "outside a circle"),
            (NSPredicate(format: "5 < distanceToLocation:fromLocation:(place, %@)", london), "outside a circle"),
            (NSPredicate(format: "5 <= distanceToLocation:fromLocation:(place, %@)", london), "outside a circle"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) BETWEEN {1, 5}", london), "distanceToLocation"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) IN {1, 5}", london), "distanceToLocation"),
        ]
        assertRefused(cases)
    }

    func testNegatedDistancesAreRefusedInEverySpelling() {
        let inside = NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", london)
        let negations: [NSPredicate] = [
            NSPredicate(format: "NOT distanceToLocation:fromLocation:(place, %@) < 5", london),
            NSPredicate(format: "!(distanceToLocation:fromLocation:(place, %@) < 5)", london),
            NSPredicate(format: "kind == 'owl' AND NOT (5 > distanceToLocation:fromLocation:(place, %@))", london),
            NSCompoundPredicate(notPredicateWithSubpredicate: inside),
            NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "kind == 'owl'"), NSCompoundPredicate(notPredicateWithSubpredicate: inside)]),
        ]
        for predicate in negations {
            let message = refusal(predicate)
            XCTAssertTrue(message?.contains("distanceToLocation:fromLocation:") == true, "\(predicate): \(message ?? "accepted")")
        }
    }

    func testQuantifiersAndMalformedArgumentsAreRefused() {
        let cases: [(NSPredicate, String)] = [
            (NSPredicate(format: "ANY distanceToLocation:fromLocation:(place, %@) < 5", london), "ANY and ALL"),
            (NSPredicate(format: "ALL distanceToLocation:fromLocation:(place, %@) < 5", london), "ANY and ALL"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", "London"), "CLLocation"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", CLLocationCoordinate2D(latitude: 1, longitude: 2)), "CLLocation"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", [london]), "CLLocation"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, other) < 5"), "CLLocation"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(%@, place) < 5", london), "field"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", place(91, 0)), "not valid"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", place(0, .nan)), "not valid"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 5", CLLocation(coordinate: CLLocationCoordinate2D(latitude: 0, longitude: 0), altitude: .infinity, horizontalAccuracy: 0, verticalAccuracy: 1, timestamp: noon)), "finite"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %@", london, "5"), "radius"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 'five'", london), "radius"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %@", london, london), "radius"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < other", london), "radius"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", london, Double.infinity), "finite"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %@", london, Double.nan), "finite"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place.name, %@) < 5", london), "key paths"),
            (NSPredicate(format: "distanceToLocation:(place, %@) < 5", london), "distanceToLocation:fromLocation:"),
            (NSPredicate(format: "distanceToLocation:toLocation:(place, %@) < 5", london), "distanceToLocation:fromLocation:"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place %@) < 5", london), "between the field and the location"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@ < 5", london), "to close"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(place, %@)", london), "operator"),
        ]
        assertRefused(cases)
    }

    func testMalformedDistanceStringsNeverCrash() {
        let junk = [
            "distanceToLocation", "distanceToLocation:", "distanceToLocation:fromLocation", "distanceToLocation:fromLocation:",
            "distanceToLocation:fromLocation:(", "distanceToLocation:fromLocation:()", "distanceToLocation:fromLocation:(place)",
            "distanceToLocation:fromLocation:(place,)", "distanceToLocation:fromLocation:(,) < 1", "distanceToLocation:fromLocation:(place, 1) < 1",
            "distanceToLocation:fromLocation:(1, 2) < 3", "distanceToLocation:fromLocation:(place, {1, 2}) < 3",
            "distanceToLocation:fromLocation:(distanceToLocation:fromLocation:(a, b), c) < 1", "1 < 2 distanceToLocation",
        ]
        for format in junk {
            XCTAssertNotNil(refusal(NSPredicate(format: format)), format)
        }
    }

    func testARefusedDistanceFailsTheQueryWithInvalidArguments() {
        let query = CKQuery(recordType: "Sighting", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) > 5", london))
        guard case .failure(let error) = query.wireQuery() else { return XCTFail("accepted") }
        XCTAssertEqual(error.code, .invalidArguments)
        XCTAssertTrue(error.localizedDescription.contains("outside a circle"), error.localizedDescription)
    }

    // MARK: - Local evaluation

    func testEvaluateWithARecordMeasuresTheDistanceInKilometres() {
        let tower = sighting(at: place(51.5081, -0.0759))  // about 3.6 km east of the centre
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 4", london).evaluate(with: tower))
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 3", london).evaluate(with: tower))
        XCTAssertTrue(NSPredicate(format: "4 > distanceToLocation:fromLocation:(place, %@)", london).evaluate(with: tower))
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 4 AND distanceToLocation:fromLocation:(place, %@) < 400", london, place(48.8566, 2.3522)).evaluate(with: tower))
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 4 AND distanceToLocation:fromLocation:(place, %@) < 300", london, place(48.8566, 2.3522)).evaluate(with: tower), "Paris is 340 km away")
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(elsewhere, %@) < 20000", london).evaluate(with: tower), "a missing field is nowhere")
        let text = CKRecord(recordType: "Sighting")
        text["place"] = "London"
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 20000", london).evaluate(with: text), "a field that is not a location is nowhere")
        let list = CKRecord(recordType: "Sighting")
        list["place"] = [london]
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 20000", london).evaluate(with: list), "a list of locations is not a location")
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) > 1", london).evaluate(with: tower), "a refused predicate matches nothing")
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 0", london).evaluate(with: sighting(at: london)), "nothing lies within a radius of 0")
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) <= 0", london).evaluate(with: sighting(at: london)), "the centre lies on a circle of radius 0")
    }

    /// A radius of exactly the distance a query measures (``EarthDistance/geodesic(_:_:)``)
    /// over 1,000 puts the point on the circle: `<` leaves it out and `<=` takes it in,
    /// measured either way round.
    func testAPointExactlyOnTheRadiusIsOutsideForLessAndInsideForLessOrEqual() {
        let points = [place(51.5081, -0.0759), place(51.3, 0.5), place(40.7128, -74.0060), place(-33.8688, 151.2093), place(89.9, 100), place(51.5072, -0.1275)]
        func wire(_ location: CLLocation) -> WireLocation {
            WireLocation(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude)
        }
        for point in points {
            let record = sighting(at: point)
            for radius in [EarthDistance.geodesic(wire(point), wire(london)) / 1000, EarthDistance.geodesic(wire(london), wire(point)) / 1000] {
                XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", london, radius).evaluate(with: record), "\(point) at \(radius) km")
                XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) <= %f", london, radius).evaluate(with: record), "\(point) at \(radius) km")
                XCTAssertFalse(NSPredicate(format: "%f > distanceToLocation:fromLocation:(place, %@)", radius, london).evaluate(with: record), "\(point) at \(radius) km")
                XCTAssertTrue(NSPredicate(format: "%f >= distanceToLocation:fromLocation:(place, %@)", radius, london).evaluate(with: record), "\(point) at \(radius) km")
                XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", london, radius.nextUp).evaluate(with: record), "\(point) just inside \(radius.nextUp) km")
                XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) <= %f", london, radius.nextDown).evaluate(with: record), "\(point) just outside \(radius.nextDown) km")
            }
        }
    }

    func testCirclesReachAcrossTheAntimeridian() {
        let east = place(0, 179.9), west = place(0, -179.9)
        // 22.26 km apart the short way; 40,000 km the long way.
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 23", east).evaluate(with: sighting(at: west)))
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 22", east).evaluate(with: sighting(at: west)))
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 23", west).evaluate(with: sighting(at: east)))
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 12", place(60, 179.9)).evaluate(with: sighting(at: place(60, -179.9))))
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 1", place(10, 180)).evaluate(with: sighting(at: place(10, -180))))
    }

    func testCirclesAroundThePolesHoldEveryLongitude() {
        let northPole = place(90, 0)
        for longitude in stride(from: -180.0, through: 180, by: 22.5) {
            // 89° N is 111.7 km from the pole, whatever its longitude.
            let record = sighting(at: place(89, longitude))
            XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 112", northPole).evaluate(with: record), "\(longitude)")
            XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 111", northPole).evaluate(with: record), "\(longitude)")
            // Every longitude at a pole names one point (the geodesic leaves under a nanometre).
            XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 0.000001", place(-90, longitude)).evaluate(with: sighting(at: place(-90, 0))), "\(longitude)")
        }
        // Across the pole: 89° N on opposite meridians is 223 km apart, not 40,000 km.
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 224", place(89, 0)).evaluate(with: sighting(at: place(89, 180))))
        XCTAssertFalse(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 20000", place(90, 0)).evaluate(with: sighting(at: place(-90, 0))), "the poles are 20,004 km apart")
        XCTAssertTrue(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 20004", place(90, 0)).evaluate(with: sighting(at: place(-90, 0))))
    }

    // MARK: - CKLocationSortDescriptor

    func testALocationSortDescriptorIsAscendingOnItsKeyFromItsLocation() {
        let descriptor = CKLocationSortDescriptor(key: "place", relativeLocation: london)
        XCTAssertEqual(descriptor.key, "place")
        XCTAssertTrue(descriptor.ascending)
        XCTAssertTrue(descriptor.relativeLocation === london)
        let sortDescriptor: NSSortDescriptor = descriptor
        XCTAssertEqual(sortDescriptor.key, "place")
        XCTAssertTrue(CKLocationSortDescriptor.supportsSecureCoding)
    }

    func testALocationSortDescriptorArchivesAndUnarchivesSecurely() throws {
        let moving = CLLocation(coordinate: CLLocationCoordinate2D(latitude: -33.8688, longitude: 151.2093), altitude: 58, horizontalAccuracy: 5, verticalAccuracy: 3, course: 45, speed: 2, timestamp: noon)
        let descriptor = CKLocationSortDescriptor(key: "place", relativeLocation: moving)
        let data = try NSKeyedArchiver.archivedData(withRootObject: descriptor, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKLocationSortDescriptor.self, from: data))
        XCTAssertEqual(decoded.key, "place")
        XCTAssertTrue(decoded.ascending)
        XCTAssertEqual(decoded.relativeLocation.coordinate.latitude, -33.8688)
        XCTAssertEqual(decoded.relativeLocation.coordinate.longitude, 151.2093)
        XCTAssertEqual(decoded.relativeLocation.altitude, 58)
        XCTAssertEqual(decoded.relativeLocation.course, 45)
        XCTAssertEqual(decoded.relativeLocation.speed, 2)
        XCTAssertEqual(decoded.relativeLocation.timestamp, noon)
    }

    func testALocationSortDescriptorArchiveMissingItsKeyOrLocationDoesNotDecode() throws {
        func decoded(_ fill: (NSKeyedArchiver) -> Void) throws -> CKLocationSortDescriptor? {
            let coder = NSKeyedArchiver(requiringSecureCoding: true)
            fill(coder)
            coder.finishEncoding()
            let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
            decoder.decodingFailurePolicy = .setErrorAndReturn
            defer { decoder.finishDecoding() }
            return CKLocationSortDescriptor(coder: decoder)
        }
        XCTAssertNotNil(try decoded { $0.encode(NSString(string: "place"), forKey: "Key"); $0.encode(london, forKey: "Location") })
        XCTAssertNil(try decoded { $0.encode(london, forKey: "Location") })
        XCTAssertNil(try decoded { $0.encode(NSString(string: "place"), forKey: "Key") })
        XCTAssertNil(try decoded { $0.encode(NSString(string: "place"), forKey: "Key"); $0.encode(NSString(string: "London"), forKey: "Location") })
    }

    func testAQueryCarriesLocationSortDescriptorsToTheWire() throws {
        let query = CKQuery(recordType: "Sighting", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < 10", london))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "place", relativeLocation: london), NSSortDescriptor(key: "creationDate", ascending: false)]
        let wire = try query.wireQuery().get()
        XCTAssertEqual(wire.predicate, near(10, inclusive: false))
        XCTAssertEqual(wire.sortDescriptors, [
            WireSortDescriptor(field: .field("place"), ascending: true, relativeLocation: londonWire),
            WireSortDescriptor(field: .creationDate, ascending: false),
        ])
        XCTAssertTrue(query.description.contains("place nearest <+51.50720000,-0.12760000>"), query.description)
    }

    func testAnInvalidRelativeLocationFailsTheQueryWithInvalidArguments() {
        for invalid in [place(91, 0), place(0, 181), place(.nan, 0), CLLocation(coordinate: CLLocationCoordinate2D(latitude: 0, longitude: 0), altitude: 0, horizontalAccuracy: 0, verticalAccuracy: 1, course: 0, speed: -.infinity, timestamp: noon)] {
            let query = CKQuery(recordType: "Sighting", predicate: NSPredicate(value: true))
            query.sortDescriptors = [CKLocationSortDescriptor(key: "place", relativeLocation: invalid)]
            guard case .failure(let error) = query.wireQuery() else {
                XCTFail("accepted \(invalid)")
                continue
            }
            XCTAssertEqual(error.code, .invalidArguments)
            XCTAssertTrue(error.localizedDescription.contains("'place'"), error.localizedDescription)
        }
        let badKey = CKQuery(recordType: "Sighting", predicate: NSPredicate(value: true))
        badKey.sortDescriptors = [CKLocationSortDescriptor(key: "_place", relativeLocation: london)]
        XCTAssertEqual(badKey.wireQuery().failure?.code, .invalidArguments)
    }

    func testACopiedQueryKeepsItsLocationSortDescriptor() throws {
        let query = CKQuery(recordType: "Sighting", predicate: NSPredicate(value: true))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "place", relativeLocation: london)]
        let copy = try XCTUnwrap(query.copy() as? CKQuery)
        XCTAssertEqual(try copy.wireQuery().get().sortDescriptors.first?.relativeLocation, londonWire)
    }

    func testAQueryArchiveKeepsItsLocationSortDescriptorsInPlace() throws {
        let sydney = place(-33.8688, 151.2093)
        let query = CKQuery(recordType: "Sighting", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) <= 10 AND kind == 'owl'", london))
        query.sortDescriptors = [
            NSSortDescriptor(key: "kind", ascending: false),
            CKLocationSortDescriptor(key: "place", relativeLocation: london),
            NSSortDescriptor(key: "modificationDate", ascending: true),
            CKLocationSortDescriptor(key: "nest", relativeLocation: sydney),
        ]
        let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data))
        XCTAssertEqual(try decoded.wireQuery().get(), try query.wireQuery().get())
        let descriptors = try XCTUnwrap(decoded.sortDescriptors)
        XCTAssertEqual(descriptors.map { $0 is CKLocationSortDescriptor }, [false, true, false, true])
        XCTAssertEqual(descriptors.map(\.key), ["kind", "place", "modificationDate", "nest"])
        XCTAssertEqual((descriptors[3] as? CKLocationSortDescriptor)?.relativeLocation.coordinate.longitude, 151.2093)
        XCTAssertEqual((descriptors[1] as? CKLocationSortDescriptor)?.relativeLocation.timestamp, noon)
    }

    /// The blob a `CKQuery` archive held before locations: type, predicate, sort keys, and
    /// nothing after them.
    private func queryBlob(sort: [(String, Bool)], locations: [(UInt32, WireLocation)]? = nil, declaredCount: Int? = nil, trailing: [UInt8] = []) -> [UInt8] {
        ArchiveEnvelope.seal(.query) { writer in
            writer.write("Sighting")
            writer.write(true)
            WirePredicate.constant(true).write(to: &writer)
            writer.writeCount(sort.count)
            for (key, ascending) in sort {
                writer.write(key)
                writer.write(ascending)
            }
            if let locations {
                writer.writeCount(declaredCount ?? locations.count)
                for (index, location) in locations {
                    writer.write(index)
                    location.write(to: &writer)
                }
            }
            for byte in trailing { writer.write(byte) }
        }
    }

    private func decodeQuery(blob: [UInt8]) throws -> CKQuery? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: archive(withBlob: Data(blob)))
        decoder.decodingFailurePolicy = .setErrorAndReturn
        defer { decoder.finishDecoding() }
        return CKQuery(coder: decoder)
    }

    func testAQueryArchivedBeforeLocationsStillDecodes() throws {
        let decoded = try XCTUnwrap(try decodeQuery(blob: queryBlob(sort: [("place", true), ("creationDate", false)])))
        XCTAssertEqual(decoded.recordType, "Sighting")
        XCTAssertEqual(decoded.sortDescriptors?.map(\.key), ["place", "creationDate"])
        XCTAssertEqual(decoded.sortDescriptors?.map(\.ascending), [true, false])
        XCTAssertFalse(decoded.sortDescriptors?.contains { $0 is CKLocationSortDescriptor } ?? true)
        XCTAssertNotNil(try decodeQuery(blob: queryBlob(sort: [], locations: [])), "an empty location section")
    }

    func testAForgedLocationSectionOfAQueryArchiveDecodesToNil() throws {
        let sort = [("place", true), ("nest", true)]
        XCTAssertNotNil(try decodeQuery(blob: queryBlob(sort: sort, locations: [(1, londonWire)])), "the well-formed one decodes")
        let forgeries: [(String, [UInt8])] = [
            ("an index past the sort keys", queryBlob(sort: sort, locations: [(2, londonWire)])),
            ("the same index twice", queryBlob(sort: sort, locations: [(0, londonWire), (0, londonWire)])),
            ("an invalid latitude", queryBlob(sort: sort, locations: [(0, WireLocation(latitude: 91, longitude: 0))])),
            ("a NaN speed", queryBlob(sort: sort, locations: [(0, WireLocation(latitude: 0, longitude: 0, speed: .nan))])),
            ("a count larger than the bytes", queryBlob(sort: sort, locations: [(0, londonWire)], declaredCount: 2)),
            ("bytes after the section", queryBlob(sort: sort, locations: [(0, londonWire)], trailing: [0])),
            ("a section cut short", queryBlob(sort: sort, locations: nil, trailing: [1])),
        ]
        for (name, blob) in forgeries {
            XCTAssertNil(try decodeQuery(blob: blob), name)
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

import Foundation
import StratusCore
import StratusWire
import XCTest

/// The `CLLocation` Stratus declares where CoreLocation does not exist: CoreLocation's
/// initialisers and their defaults, its description, archive keys and copying, coordinate
/// validity, and `distance(from:)` measured as CoreLocation measures it.
final class CLLocationTests: XCTestCase {
    private let noon = Date(timeIntervalSinceReferenceDate: 800_000_000.125)
    private let london = CLLocationCoordinate2D(latitude: 51.5072, longitude: -0.1276)

    private func assertUnknownCourseAndSpeed(_ location: CLLocation, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(location.courseAccuracy, -1, "courseAccuracy", file: file, line: line)
        XCTAssertEqual(location.speedAccuracy, -1, "speedAccuracy", file: file, line: line)
    }

    // MARK: - Initialisers and their defaults

    func testLatitudeLongitudeInitialiserHasCoreLocationsDefaultsAndTheCurrentTime() {
        let before = Date()
        let location = CLLocation(latitude: 51.5072, longitude: -0.1276)
        let after = Date()
        XCTAssertEqual(location.coordinate.latitude, 51.5072)
        XCTAssertEqual(location.coordinate.longitude, -0.1276)
        XCTAssertEqual(location.altitude, 0)
        XCTAssertEqual(location.horizontalAccuracy, 0)
        XCTAssertEqual(location.verticalAccuracy, -1)
        XCTAssertEqual(location.course, -1)
        XCTAssertEqual(location.speed, -1)
        assertUnknownCourseAndSpeed(location)
        XCTAssertTrue((before...after).contains(location.timestamp), "\(location.timestamp) is not between \(before) and \(after)")
    }

    func testCoordinateInitialiserKeepsWhatItIsGivenAndLeavesCourseAndSpeedUnknown() {
        let location = CLLocation(coordinate: london, altitude: 35, horizontalAccuracy: 5, verticalAccuracy: 3, timestamp: noon)
        XCTAssertEqual(location.coordinate.latitude, london.latitude)
        XCTAssertEqual(location.coordinate.longitude, london.longitude)
        XCTAssertEqual(location.altitude, 35)
        XCTAssertEqual(location.horizontalAccuracy, 5)
        XCTAssertEqual(location.verticalAccuracy, 3)
        XCTAssertEqual(location.course, -1)
        XCTAssertEqual(location.speed, -1)
        assertUnknownCourseAndSpeed(location)
        XCTAssertEqual(location.timestamp, noon)
    }

    func testCourseAndSpeedInitialiserLeavesOnlyTheirAccuraciesUnknown() {
        let location = CLLocation(coordinate: london, altitude: -2, horizontalAccuracy: 10, verticalAccuracy: -1, course: 270.5, speed: 1.25, timestamp: noon)
        XCTAssertEqual(location.altitude, -2)
        XCTAssertEqual(location.course, 270.5)
        XCTAssertEqual(location.speed, 1.25)
        assertUnknownCourseAndSpeed(location)
        XCTAssertEqual(location.timestamp, noon)
    }

    func testTheFullInitialiserKeepsEveryComponent() {
        let location = CLLocation(
            coordinate: london, altitude: 12, horizontalAccuracy: 4, verticalAccuracy: 6,
            course: 90, courseAccuracy: 7.5, speed: 3, speedAccuracy: 0.5, timestamp: noon
        )
        XCTAssertEqual(location.course, 90)
        XCTAssertEqual(location.courseAccuracy, 7.5)
        XCTAssertEqual(location.speed, 3)
        XCTAssertEqual(location.speedAccuracy, 0.5)
        XCTAssertEqual(location.verticalAccuracy, 6)
    }

    // MARK: - Description

    func testDescriptionFollowsCoreLocationsFormat() {
        let moving = CLLocation(coordinate: london, altitude: 0, horizontalAccuracy: 5, verticalAccuracy: -1, course: 90, speed: 1.5, timestamp: noon)
        XCTAssertEqual(moving.description, "<+51.50720000,-0.12760000> +/- 5.00m (speed 1.50 mps / course 90.00) @ \(noon)")
        let sydney = CLLocation(coordinate: CLLocationCoordinate2D(latitude: -33.8688, longitude: 151.2093), altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: noon)
        XCTAssertEqual(sydney.description, "<-33.86880000,+151.20930000> +/- 0.00m (speed -1.00 mps / course -1.00) @ \(noon)")
        XCTAssertEqual("\(sydney)", sydney.description, "string interpolation uses the description")
    }

    // MARK: - Secure coding and copying

    func testSecureArchiveRoundTripKeepsEveryComponent() throws {
        let location = CLLocation(
            coordinate: london, altitude: 12.5, horizontalAccuracy: 4, verticalAccuracy: 6,
            course: 90, courseAccuracy: 7.5, speed: 3, speedAccuracy: 0.5, timestamp: noon
        )
        XCTAssertTrue(CLLocation.supportsSecureCoding)
        let data = try NSKeyedArchiver.archivedData(withRootObject: location, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLLocation.self, from: data))
        XCTAssertEqual(decoded.coordinate.latitude, london.latitude)
        XCTAssertEqual(decoded.coordinate.longitude, london.longitude)
        XCTAssertEqual(decoded.altitude, 12.5)
        XCTAssertEqual(decoded.horizontalAccuracy, 4)
        XCTAssertEqual(decoded.verticalAccuracy, 6)
        XCTAssertEqual(decoded.course, 90)
        XCTAssertEqual(decoded.courseAccuracy, 7.5, "an archive keeps the accuracies a record does not")
        XCTAssertEqual(decoded.speed, 3)
        XCTAssertEqual(decoded.speedAccuracy, 0.5)
        XCTAssertEqual(decoded.timestamp, noon)
    }

    func testArchivesUseCoreLocationsCodingKeys() throws {
        let location = CLLocation(coordinate: london, altitude: 12.5, horizontalAccuracy: 4, verticalAccuracy: 6, course: 90, speed: 3, timestamp: noon)
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        location.encode(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        defer { decoder.finishDecoding() }
        let expected: [(String, Double)] = [
            ("kCLLocationCodingKeyCoordinateLatitude", 51.5072), ("kCLLocationCodingKeyCoordinateLongitude", -0.1276),
            ("kCLLocationCodingKeyAltitude", 12.5), ("kCLLocationCodingKeyHorizontalAccuracy", 4),
            ("kCLLocationCodingKeyVerticalAccuracy", 6), ("kCLLocationCodingKeyCourse", 90),
            ("kCLLocationCodingKeyCourseAccuracy", -1), ("kCLLocationCodingKeySpeed", 3),
            ("kCLLocationCodingKeySpeedAccuracy", -1),
        ]
        for (key, value) in expected {
            XCTAssertTrue(decoder.containsValue(forKey: key), key)
            XCTAssertEqual(decoder.decodeDouble(forKey: key), value, key)
        }
        XCTAssertEqual(decoder.decodeObject(of: NSDate.self, forKey: "kCLLocationCodingKeyTimestamp") as Date?, noon)
    }

    /// A keyed archive holding only the given doubles and, when given, the timestamp.
    private func archive(_ values: [String: Double], timestamp: Date?) throws -> NSKeyedUnarchiver {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        for (key, value) in values { coder.encode(value, forKey: key) }
        if let timestamp { coder.encode(timestamp as NSDate, forKey: "kCLLocationCodingKeyTimestamp") }
        coder.finishEncoding()
        return try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
    }

    func testAnArchiveWithoutATimestampDoesNotDecode() throws {
        let decoder = try archive(["kCLLocationCodingKeyCoordinateLatitude": 1, "kCLLocationCodingKeyCoordinateLongitude": 2], timestamp: nil)
        defer { decoder.finishDecoding() }
        XCTAssertNil(CLLocation(coder: decoder))
    }

    func testComponentsMissingFromAnArchiveTakeTheirUnknownValues() throws {
        let decoder = try archive(["kCLLocationCodingKeyCoordinateLatitude": 1, "kCLLocationCodingKeyCoordinateLongitude": 2], timestamp: noon)
        defer { decoder.finishDecoding() }
        let location = try XCTUnwrap(CLLocation(coder: decoder))
        XCTAssertEqual(location.coordinate.latitude, 1)
        XCTAssertEqual(location.coordinate.longitude, 2)
        XCTAssertEqual(location.altitude, 0)
        XCTAssertEqual(location.horizontalAccuracy, -1)
        XCTAssertEqual(location.verticalAccuracy, -1)
        XCTAssertEqual(location.course, -1)
        XCTAssertEqual(location.speed, -1)
        assertUnknownCourseAndSpeed(location)
        XCTAssertEqual(location.timestamp, noon)
    }

    func testAnArchiveHoldingAnotherClassUnderTheTimestampKeyDoesNotDecode() throws {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode(NSString(string: "yesterday"), forKey: "kCLLocationCodingKeyTimestamp")
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.decodingFailurePolicy = .setErrorAndReturn
        defer { decoder.finishDecoding() }
        XCTAssertNil(CLLocation(coder: decoder))
    }

    func testACopyIsTheSameImmutableLocation() {
        let location = CLLocation(latitude: 1, longitude: 2)
        XCTAssertTrue(location.copy() as AnyObject === location)
        XCTAssertTrue(location.copy(with: nil) as AnyObject === location)
    }

    // MARK: - Coordinates

    func testCoordinatesAreValidOnlyOnEarth() {
        let valid = [(0.0, 0.0), (90, 180), (-90, -180), (51.5072, -0.1276), (-89.999_999, 179.999_999)]
        for (latitude, longitude) in valid {
            XCTAssertTrue(CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: latitude, longitude: longitude)), "(\(latitude), \(longitude))")
        }
        let invalid = [(91.0, 0.0), (-90.000_001, 0), (0, 180.000_001), (0, -181), (0, 200), (.nan, 0), (0, .nan), (.infinity, 0), (0, -.infinity)]
        for (latitude, longitude) in invalid {
            XCTAssertFalse(CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: latitude, longitude: longitude)), "(\(latitude), \(longitude))")
        }
    }

    func testTheInvalidCoordinateConstantIsMinus180AndInvalid() {
        XCTAssertEqual(kCLLocationCoordinate2DInvalid.latitude, -180)
        XCTAssertEqual(kCLLocationCoordinate2DInvalid.longitude, -180)
        XCTAssertFalse(CLLocationCoordinate2DIsValid(kCLLocationCoordinate2DInvalid))
    }

    func testCoordinateMakeAndTheEmptyCoordinate() {
        let made = CLLocationCoordinate2DMake(48.8566, 2.3522)
        XCTAssertEqual(made.latitude, 48.8566)
        XCTAssertEqual(made.longitude, 2.3522)
        let zero = CLLocationCoordinate2D()
        XCTAssertEqual(zero.latitude, 0)
        XCTAssertEqual(zero.longitude, 0)
        var changed = zero
        changed.latitude = 10
        XCTAssertEqual(zero.latitude, 0, "a coordinate is a value")
    }

    // MARK: - Distances

    private func location(_ latitude: Double, _ longitude: Double, altitude: Double = 0, verticalAccuracy: Double = -1) -> CLLocation {
        CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
            altitude: altitude, horizontalAccuracy: 0, verticalAccuracy: verticalAccuracy, timestamp: noon
        )
    }

    private func degrees(_ degrees: Double, _ minutes: Double, _ seconds: Double) -> Double {
        (abs(degrees) + minutes / 60 + seconds / 3600) * (degrees < 0 ? -1 : 1)
    }

    func testTheDistanceFromAPointToItselfIsZero() {
        for (latitude, longitude) in [(0.0, 0.0), (51.5072, -0.1276), (90, 0), (-90, 45), (0, 180), (0, -180)] {
            let here = location(latitude, longitude)
            XCTAssertEqual(here.distance(from: here), 0, "(\(latitude), \(longitude))")
            XCTAssertEqual(here.distance(from: location(latitude, longitude)), 0, "(\(latitude), \(longitude))")
        }
    }

    /// Vincenty's published example (Flinders Peak to Buninyong, 54,972.271 m on WGS-84) lies
    /// under 2° apart, so CoreLocation measures it in the tangent plane: 54,972.424 m by hand
    /// (meridional and normal radii of curvature at the mean latitude), within 0.2 m of the
    /// geodesic.
    func testShortDistancesAreMeasuredInTheTangentPlane() {
        let flindersPeak = location(degrees(-37, 57, 3.720_30), degrees(144, 25, 29.524_40))
        let buninyong = location(degrees(-37, 39, 10.156_10), degrees(143, 55, 35.383_90))
        let distance = flindersPeak.distance(from: buninyong)
        XCTAssertEqual(distance, 54_972.423_619, accuracy: 0.001)
        XCTAssertEqual(distance, 54_972.271, accuracy: 0.2, "the geodesic")
        XCTAssertEqual(buninyong.distance(from: flindersPeak), distance, "symmetric")

        // One degree of longitude along London's parallel.
        XCTAssertEqual(location(51.5072, -0.1276).distance(from: location(51.5072, 0.8724)), 69_429.574, accuracy: 0.001)
    }

    func testShortDistancesRiseWithTheMeanValidAltitude() {
        let flindersPeak = degrees(-37, 57, 3.720_30), flindersPeakEast = degrees(144, 25, 29.524_40)
        let buninyong = degrees(-37, 39, 10.156_10), buninyongEast = degrees(143, 55, 35.383_90)
        let ground = location(flindersPeak, flindersPeakEast).distance(from: location(buninyong, buninyongEast))
        let unknownAltitude = location(flindersPeak, flindersPeakEast, altitude: 1_000).distance(from: location(buninyong, buninyongEast, altitude: 1_000))
        XCTAssertEqual(unknownAltitude, ground, "an altitude whose vertical accuracy is not valid does not count")
        let raised = location(flindersPeak, flindersPeakEast, altitude: 1_000, verticalAccuracy: 5)
            .distance(from: location(buninyong, buninyongEast, altitude: 1_000, verticalAccuracy: 5))
        XCTAssertEqual(raised, 54_981.044_789, accuracy: 0.001)
    }

    /// Reference values: GeographicLib's geodesic on WGS-84 (Karney 2013), accurate to
    /// nanometres; Vincenty's formula agrees to well under a millimetre away from antipodes.
    func testLongDistancesFollowTheWGS84Geodesic() {
        let cases: [(String, CLLocation, CLLocation, Double)] = [
            ("London–New York", location(51.5072, -0.1276), location(40.7128, -74.0060), 5_585_253.769_594),
            ("Sydney–Santiago", location(-33.8688, 151.2093), location(-33.4489, -70.6693), 11_368_984.480_281),
            ("a quarter of the equator", location(0, 0), location(0, 90), 10_018_754.171_395),
            ("pole to pole", location(90, 0), location(-90, 0), 20_003_931.458_625),
            ("over the north pole", location(89, 0), location(89, 180), 223_387.729_828),
        ]
        for (name, a, b, geodesic) in cases {
            XCTAssertEqual(a.distance(from: b), geodesic, accuracy: 0.01, name)
            XCTAssertEqual(b.distance(from: a), geodesic, accuracy: 0.01, "\(name), the other way")
        }
    }

    func testLongDistancesIgnoreAltitude() {
        let london = location(51.5072, -0.1276), newYork = location(40.7128, -74.0060)
        let high = location(51.5072, -0.1276, altitude: 10_000, verticalAccuracy: 3)
        let deep = location(40.7128, -74.0060, altitude: -400, verticalAccuracy: 3)
        XCTAssertEqual(high.distance(from: deep), london.distance(from: newYork))
    }

    func testDistancesAcrossTheAntimeridianTakeTheShortWay() {
        XCTAssertEqual(location(0, 179.9).distance(from: location(0, -179.9)), 22_263.898_159, accuracy: 0.01)
        XCTAssertEqual(location(60, 179.9).distance(from: location(60, -179.9)), 11_159.996_065, accuracy: 0.01)
        XCTAssertEqual(location(60, -179.9).distance(from: location(60, 179.9)), 11_159.996_065, accuracy: 0.01)
        XCTAssertEqual(location(0, 180).distance(from: location(0, -180)), 0, accuracy: 1e-6, "180° and -180° are one meridian")
    }

    /// Where Vincenty's iteration does not converge, CoreLocation falls back to a sphere that
    /// measures up to 34 km past the longest geodesic; `distance(from:)` measures those pairs
    /// along the geodesic instead, by Karney's algorithm (GeographicLib's values, to 1 mm).
    func testNearlyAntipodalPointsAreMeasuredAlongTheGeodesicWhereVincentyFails() {
        let pairs: [(CLLocation, CLLocation, Double)] = [
            (location(0, 0), location(0.5, 179.7), 19_944_127.420_750),
            (location(10, 20), location(-10, -160), 20_003_931.458_625),
            (location(-45, 0), location(44.99, 179.99), 20_002_811.206_220),
            (location(0, 0), location(-0.01, 179.99), 20_002_816.634_988),
        ]
        for (a, b, geographicLib) in pairs {
            XCTAssertEqual(a.distance(from: b), geographicLib, accuracy: 0.001, "\(a) to \(b)")
            XCTAssertEqual(b.distance(from: a), a.distance(from: b), "\(b) to \(a)")
            XCTAssertLessThanOrEqual(a.distance(from: b), EarthDistance.longestGeodesic, "\(a) to \(b)")
        }
        // CoreLocation's own rule for two points on the equator: along it, at any separation.
        XCTAssertEqual(location(0, 0).distance(from: location(0, 180)), 6_378_137 * .pi, accuracy: 1e-6)
    }
}

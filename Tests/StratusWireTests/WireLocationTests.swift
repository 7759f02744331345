import Foundation
import StratusWire
import XCTest
import _StratusTestSupport

/// Locations on the wire: the binary forms of `WireLocation`, of a `.location` value, of a
/// `.near` predicate and of a sort descriptor with a relative location, forged bytes refused;
/// and the properties of `EarthDistance` that queries and the server's spatial index rely on.
final class WireLocationTests: XCTestCase {
    private let london = WireLocation(
        latitude: 51.5072, longitude: -0.1276, altitude: 11.5, horizontalAccuracy: 5, verticalAccuracy: 3,
        course: 359.75, speed: 1.25, timestamp: Date(timeIntervalSinceReferenceDate: 800_000_000.125)
    )

    // MARK: - Binary forms

    private func bytes(_ write: (inout BinaryWriter) -> Void) -> [UInt8] {
        var writer = BinaryWriter()
        write(&writer)
        return writer.bytes
    }

    /// Reads the whole of `bytes` with `read`; nil when it throws or leaves bytes over.
    private func read<T>(_ bytes: [UInt8], _ read: (inout BinaryReader) throws(BinaryFormatError) -> T) -> T? {
        var reader = BinaryReader(bytes)
        guard let value = try? read(&reader), reader.remaining == 0 else { return nil }
        return value
    }

    func testALocationIsSixtyFourBytesAndRoundTripsExactly() {
        let locations = [
            london,
            WireLocation(latitude: 90, longitude: 180),
            WireLocation(latitude: -90, longitude: -180, altitude: -450, horizontalAccuracy: -1, verticalAccuracy: -1, course: -1, speed: -1, timestamp: Date(timeIntervalSinceReferenceDate: -1e9)),
            WireLocation(latitude: -0.0, longitude: 1e-300, altitude: 8_848.86, horizontalAccuracy: 1e6, verticalAccuracy: 0.001, course: 0, speed: 300),
        ]
        for location in locations {
            let encoded = bytes { location.write(to: &$0) }
            XCTAssertEqual(encoded.count, 64, "\(location)")
            let decoded = read(encoded) { reader throws(BinaryFormatError) in try WireLocation.read(from: &reader) }
            XCTAssertEqual(decoded, location)
            XCTAssertEqual(decoded?.latitude.sign, location.latitude.sign, "the sign of -0 survives")
        }
    }

    func testLocationValuesAndListsOfThemRoundTrip() {
        let values: [WireFieldValue] = [
            .location(london),
            .list([.location(london), .location(WireLocation(latitude: 0, longitude: 0))]),
        ]
        for value in values {
            let encoded = bytes { value.write(to: &$0) }
            XCTAssertEqual(read(encoded) { reader throws(BinaryFormatError) in try WireFieldValue.read(from: &reader) }, value)
        }
        let fields: [String: WireFieldValue] = ["place": .location(london), "title": .string("Tower")]
        let encoded = bytes { WireFieldValue.write(fields, to: &$0) }
        XCTAssertEqual(read(encoded) { reader throws(BinaryFormatError) in try WireFieldValue.readFields(from: &reader) }, fields)
    }

    func testNearPredicatesRoundTripAloneAndInsideConjunctions() {
        let predicates: [WirePredicate] = [
            .near(.field("place"), center: london, kilometres: 5, inclusive: false),
            .near(.field("place"), center: london, kilometres: 0, inclusive: true),
            .near(.field("place"), center: WireLocation(latitude: -90, longitude: 180), kilometres: 20_000.5, inclusive: true),
            .and([
                .near(.field("place"), center: london, kilometres: 1.5, inclusive: false),
                .compare(.field("kind"), .equal, .value(.string("owl"))),
                .near(.field("nest"), center: london, kilometres: 3, inclusive: true),
            ]),
        ]
        for predicate in predicates {
            let encoded = bytes { predicate.write(to: &$0) }
            XCTAssertEqual(read(encoded) { reader throws(BinaryFormatError) in try WirePredicate.read(from: &reader) }, predicate)
            XCTAssertNil(predicate.valueProblem)
        }
        // Readable, but no query may use them: locations compare only by distance, inside a circle.
        for refused: WirePredicate in [.compare(.field("place"), .equal, .value(.location(london))),
                                       .not(.near(.field("place"), center: london, kilometres: 5, inclusive: false))] {
            let encoded = bytes { refused.write(to: &$0) }
            XCTAssertEqual(read(encoded) { reader throws(BinaryFormatError) in try WirePredicate.read(from: &reader) }, refused)
            XCTAssertNotNil(refused.valueProblem)
        }
    }

    func testQueriesRoundTripWithTheirRelativeLocations() {
        let query = WireQuery(
            recordType: "Sighting",
            predicate: .near(.field("place"), center: london, kilometres: 10, inclusive: false),
            sortDescriptors: [
                WireSortDescriptor(field: .field("place"), ascending: true, relativeLocation: london),
                WireSortDescriptor(field: .creationDate, ascending: false),
                WireSortDescriptor(field: .field("nest"), ascending: false, relativeLocation: WireLocation(latitude: -33.8688, longitude: 151.2093)),
            ]
        )
        let encoded = bytes { query.write(to: &$0) }
        XCTAssertEqual(read(encoded) { reader throws(BinaryFormatError) in try WireQuery.read(from: &reader) }, query)
        XCTAssertNil(WireSortDescriptor(field: .creationDate, ascending: true).relativeLocation, "a plain sort has no location")
    }

    func testForgedLocationsAreRefused() {
        let forged = [
            WireLocation(latitude: 90.000_001, longitude: 0),
            WireLocation(latitude: -91, longitude: 0),
            WireLocation(latitude: 0, longitude: 180.5),
            WireLocation(latitude: 0, longitude: -200),
            WireLocation(latitude: .nan, longitude: 0),
            WireLocation(latitude: 0, longitude: .infinity),
            WireLocation(latitude: 0, longitude: 0, altitude: .nan),
            WireLocation(latitude: 0, longitude: 0, horizontalAccuracy: .infinity),
            WireLocation(latitude: 0, longitude: 0, verticalAccuracy: -.infinity),
            WireLocation(latitude: 0, longitude: 0, course: .nan),
            WireLocation(latitude: 0, longitude: 0, speed: .infinity),
            WireLocation(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSinceReferenceDate: .nan)),
        ]
        for location in forged {
            XCTAssertNotNil(location.problem, "\(location)")
            XCTAssertNil(read(bytes { location.write(to: &$0) }) { reader throws(BinaryFormatError) in try WireLocation.read(from: &reader) }, "\(location)")
            XCTAssertNil(read(bytes { WireFieldValue.location(location).write(to: &$0) }) { reader throws(BinaryFormatError) in try WireFieldValue.read(from: &reader) }, "\(location)")
            let predicate = WirePredicate.near(.field("place"), center: location, kilometres: 1, inclusive: false)
            XCTAssertNotNil(predicate.valueProblem, "\(location)")
            XCTAssertNil(read(bytes { predicate.write(to: &$0) }) { reader throws(BinaryFormatError) in try WirePredicate.read(from: &reader) }, "\(location)")
            let query = WireQuery(recordType: "Sighting", predicate: .constant(true), sortDescriptors: [WireSortDescriptor(field: .field("place"), ascending: true, relativeLocation: location)])
            XCTAssertNil(read(bytes { query.write(to: &$0) }) { reader throws(BinaryFormatError) in try WireQuery.read(from: &reader) }, "\(location)")
        }
    }

    func testANonFiniteRadiusIsRefused() {
        for radius in [Double.infinity, -.infinity, .nan] {
            let predicate = WirePredicate.near(.field("place"), center: london, kilometres: radius, inclusive: true)
            XCTAssertNotNil(predicate.valueProblem)
            XCTAssertNil(read(bytes { predicate.write(to: &$0) }) { reader throws(BinaryFormatError) in try WirePredicate.read(from: &reader) }, "\(radius)")
        }
    }

    func testEveryTruncationOfALocationEncodingIsRefused() {
        let encodings: [(String, [UInt8], (inout BinaryReader) throws(BinaryFormatError) -> Any)] = [
            ("location", bytes { london.write(to: &$0) }, { reader throws(BinaryFormatError) in try WireLocation.read(from: &reader) }),
            ("value", bytes { WireFieldValue.location(london).write(to: &$0) }, { reader throws(BinaryFormatError) in try WireFieldValue.read(from: &reader) }),
            ("predicate", bytes { WirePredicate.near(.field("place"), center: london, kilometres: 2, inclusive: true).write(to: &$0) }, { reader throws(BinaryFormatError) in try WirePredicate.read(from: &reader) }),
            ("query", bytes { WireQuery(recordType: "S", predicate: .constant(true), sortDescriptors: [WireSortDescriptor(field: .field("place"), ascending: true, relativeLocation: london)]).write(to: &$0) }, { reader throws(BinaryFormatError) in try WireQuery.read(from: &reader) }),
        ]
        for (name, encoded, reader) in encodings {
            XCTAssertNotNil(read(encoded, reader), name)
            for length in 0..<encoded.count {
                XCTAssertNil(read(Array(encoded.prefix(length)), reader), "\(name): first \(length) bytes")
            }
        }
    }

    func testAForgedRelativeLocationFlagIsRefused() {
        let query = WireQuery(recordType: "S", predicate: .constant(true), sortDescriptors: [WireSortDescriptor(field: .field("place"), ascending: true)])
        var encoded = bytes { query.write(to: &$0) }
        XCTAssertEqual(encoded.last, 0, "no relative location")
        encoded[encoded.count - 1] = 2
        XCTAssertNil(read(encoded) { reader throws(BinaryFormatError) in try WireQuery.read(from: &reader) }, "2 is not a boolean")
        encoded[encoded.count - 1] = 1
        XCTAssertNil(read(encoded) { reader throws(BinaryFormatError) in try WireQuery.read(from: &reader) }, "a location promised and missing")
    }

    func testRandomBytesAfterALocationTagNeverCrash() {
        var generator = SeededGenerator(seed: 0x10CA_7104)
        let tag = bytes { WireFieldValue.location(london).write(to: &$0) }[0]
        for _ in 0..<2_000 {
            let body = (0..<Int.random(in: 0...80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let value = read([tag] + body, { reader throws(BinaryFormatError) in try WireFieldValue.read(from: &reader) }) {
                guard case .location(let location) = value else { return XCTFail("a location tag read as \(value)") }
                XCTAssertNil(location.problem, "a decoded location is one a record may hold")
            }
        }
    }

    // MARK: - Descriptions and kinds

    func testALocationDescribesItsCoordinate() {
        XCTAssertEqual(london.description, "<+51.50720000,-0.12760000>")
        XCTAssertEqual(WireFieldValue.location(WireLocation(latitude: -33.8688, longitude: 151.2093)).description, "<-33.86880000,+151.20930000>")
        XCTAssertEqual(WireFieldValue.location(london).kind, .location)
        XCTAssertEqual(WireFieldValue.list([.location(london)]).kind, .list(.location))
        XCTAssertEqual(WireFieldValue.location(london).byteSize, 64)
        XCTAssertEqual(WireFieldValue.list([.location(london), .location(london)]).byteSize, 128)
    }

    func testDefaultsAreCoreLocationsUnknownValues() {
        let bare = WireLocation(latitude: 1, longitude: 2)
        XCTAssertEqual(bare.altitude, 0)
        XCTAssertEqual(bare.horizontalAccuracy, 0)
        XCTAssertEqual(bare.verticalAccuracy, -1)
        XCTAssertEqual(bare.course, -1)
        XCTAssertEqual(bare.speed, -1)
        XCTAssertEqual(bare.timestamp, Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertNil(bare.problem)
    }

    // MARK: - Radius

    func testTheRadiusComparesWithTheDistanceOverAThousand() {
        let metres = 12_345.678_9
        XCTAssertFalse(WirePredicate.isWithin(metres, kilometres: metres / 1000, inclusive: false))
        XCTAssertTrue(WirePredicate.isWithin(metres, kilometres: metres / 1000, inclusive: true))
        XCTAssertTrue(WirePredicate.isWithin(metres, kilometres: (metres / 1000).nextUp, inclusive: false))
        XCTAssertFalse(WirePredicate.isWithin(metres, kilometres: (metres / 1000).nextDown, inclusive: true))
        XCTAssertTrue(WirePredicate.isWithin(0, kilometres: 0, inclusive: true))
        XCTAssertFalse(WirePredicate.isWithin(0, kilometres: 0, inclusive: false))
        XCTAssertFalse(WirePredicate.isWithin(0, kilometres: -1, inclusive: true))
    }

    // MARK: - EarthDistance

    /// A coordinate drawn from one of the places distances go wrong: anywhere, near a pole,
    /// on a pole, near the antimeridian, or on one of the edges of the valid range.
    private func randomLocation(using generator: inout SeededGenerator) -> WireLocation {
        let latitude: Double, longitude: Double
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            latitude = Double.random(in: -90...90, using: &generator)
            longitude = Double.random(in: -180...180, using: &generator)
        case 1:
            latitude = Double.random(in: 85...90, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
            longitude = Double.random(in: -180...180, using: &generator)
        case 2:
            latitude = Bool.random(using: &generator) ? 90 : -90
            longitude = Double.random(in: -180...180, using: &generator)
        case 3:
            latitude = Double.random(in: -90...90, using: &generator)
            longitude = Double.random(in: 178...180, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
        case 4:
            latitude = [-90, -45, 0, 45, 90].randomElement(using: &generator) ?? 0
            longitude = [-180, -90, 0, 90, 180].randomElement(using: &generator) ?? 0
        default:
            latitude = Double.random(in: -1...1, using: &generator)
            longitude = Double.random(in: -180...180, using: &generator)
        }
        let hasAltitude = Bool.random(using: &generator)
        return WireLocation(
            latitude: latitude, longitude: longitude,
            altitude: Double.random(in: -450...9_000, using: &generator),
            verticalAccuracy: hasAltitude ? Double.random(in: 0.5...50, using: &generator) : -1
        )
    }

    /// A second point for `a`: anywhere, within 2° (the tangent plane), just past 2°, across the
    /// antimeridian, or (nearly) antipodal.
    private func partner(of a: WireLocation, using generator: inout SeededGenerator) -> WireLocation {
        var b = randomLocation(using: &generator)
        func clampedLatitude(_ value: Double) -> Double { min(90, max(-90, value)) }
        func wrappedLongitude(_ value: Double) -> Double { value > 180 ? value - 360 : (value < -180 ? value + 360 : value) }
        switch Int.random(in: 0..<5, using: &generator) {
        case 0:
            break
        case 1:
            b.latitude = clampedLatitude(a.latitude + Double.random(in: -2...2, using: &generator))
            b.longitude = min(180, max(-180, a.longitude + Double.random(in: -2...2, using: &generator)))
        case 2:
            b.latitude = clampedLatitude(a.latitude + Double.random(in: -2.5...2.5, using: &generator))
            b.longitude = wrappedLongitude(a.longitude + Double.random(in: -2.5...2.5, using: &generator))
        case 3:
            b.latitude = clampedLatitude(a.latitude + Double.random(in: -1...1, using: &generator))
            b.longitude = wrappedLongitude(a.longitude + 180 + Double.random(in: -1...1, using: &generator))
            if Bool.random(using: &generator) { b.latitude = -b.latitude }
        default:
            b.latitude = clampedLatitude(-a.latitude + Double.random(in: -0.01...0.01, using: &generator))
            b.longitude = wrappedLongitude(a.longitude + 180 + Double.random(in: -0.01...0.01, using: &generator))
        }
        return b
    }

    private func pairs(count: Int, seed: UInt64) -> [(WireLocation, WireLocation)] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let a = randomLocation(using: &generator)
            return (a, partner(of: a, using: &generator))
        }
    }

    /// The server's spatial index prunes with this bound: a distance is never shorter than the
    /// great-circle distance on a sphere of ``EarthDistance/lowerBoundRadius``, give or take a
    /// nanometre of rounding (two longitudes of one pole can measure 5e-10 m apart by the
    /// sphere's formula), so the index must allow a micrometre of slack.
    func testEveryDistanceIsAtLeastTheLowerBoundSphereDistance() {
        for (a, b) in pairs(count: 20_000, seed: 0x5EED_0001) {
            let distance = EarthDistance.geodesic(a, b)
            let bound = EarthDistance.lowerBoundRadius * EarthDistance.centralAngle(latitude: a.latitude, longitude: a.longitude, latitude: b.latitude, longitude: b.longitude)
            if !(distance + 1e-6 >= bound) {
                return XCTFail("\(a) to \(b): \(distance) m is below the bound \(bound) m")
            }
        }
    }

    func testDistancesAreFiniteNonNegativeAndAtMostHalfTheMeridianRound() {
        for (a, b) in pairs(count: 20_000, seed: 0x5EED_0002) {
            for distance in [EarthDistance.geodesic(a, b), EarthDistance.coreLocation(a, b)] {
                // Half the equator, 20,037.5 km, is the longest any path between two points needs.
                if !(distance.isFinite && distance >= 0 && distance <= 20_040_000) {
                    return XCTFail("\(a) to \(b): \(distance) m")
                }
            }
        }
    }

    func testDistancesAreSymmetric() {
        for (a, b) in pairs(count: 20_000, seed: 0x5EED_0003) {
            for measure in [EarthDistance.geodesic, EarthDistance.coreLocation] {
                let there = measure(a, b), back = measure(b, a)
                if there != back {
                    return XCTFail("\(a) to \(b) is \(there) m, back \(back) m")
                }
            }
        }
    }

    func testThePointItselfIsAtDistanceZero() {
        var generator = SeededGenerator(seed: 0x5EED_0004)
        for _ in 0..<5_000 {
            let a = randomLocation(using: &generator)
            XCTAssertEqual(EarthDistance.geodesic(a, a), 0, "\(a)")
            XCTAssertEqual(EarthDistance.coreLocation(a, a), 0, "\(a)")
        }
    }

    func testTheCentralAngleIsTheHaversineAngle() {
        XCTAssertEqual(EarthDistance.centralAngle(latitude: 0, longitude: 0, latitude: 0, longitude: 90), .pi / 2, accuracy: 1e-15)
        XCTAssertEqual(EarthDistance.centralAngle(latitude: 90, longitude: 0, latitude: -90, longitude: 0), .pi, accuracy: 1e-15)
        XCTAssertEqual(EarthDistance.centralAngle(latitude: 0, longitude: 179.5, latitude: 0, longitude: -179.5), .pi / 180, accuracy: 1e-15)
        XCTAssertEqual(EarthDistance.centralAngle(latitude: 89, longitude: 0, latitude: 89, longitude: 180), .pi / 90, accuracy: 1e-14)
        XCTAssertEqual(EarthDistance.centralAngle(latitude: 12, longitude: 34, latitude: 12, longitude: 34), 0)
        XCTAssertEqual(EarthDistance.centralAngle(latitude: -45, longitude: -180, latitude: -45, longitude: 180), 0, "one meridian, two names")
        XCTAssertEqual(EarthDistance.geodesic(WireLocation(latitude: -45, longitude: -180), WireLocation(latitude: -45, longitude: 180)), 0)
        XCTAssertEqual(EarthDistance.coreLocation(WireLocation(latitude: -45, longitude: -180), WireLocation(latitude: -45, longitude: 180)), 0)
        XCTAssertLessThanOrEqual(EarthDistance.lowerBoundRadius, 6_356_752 * 0.995, "below the polar radius, with room for the sphere's rounding")
    }

    // MARK: The geodesic queries measure

    /// A point (nearly) antipodal to `a`: off the antipode by up to a degree, a thousandth, a
    /// millionth or a billionth of one in latitude and longitude, or on it.
    private func nearAntipode(of a: WireLocation, using generator: inout SeededGenerator) -> WireLocation {
        let scale = ([1, 1e-3, 1e-6, 1e-9, 0] as [Double]).randomElement(using: &generator) ?? 0
        let latitude = min(90, max(-90, -a.latitude + scale * Double.random(in: -1...1, using: &generator)))
        var longitude = a.longitude + 180 + scale * Double.random(in: -1...1, using: &generator)
        if longitude > 180 { longitude -= 360 }
        if longitude < -180 { longitude += 360 }
        return WireLocation(latitude: latitude, longitude: longitude)
    }

    /// Points all over the Earth, each with a partner drawn as ``partner(of:using:)`` draws, or
    /// (one in two) nearly antipodal, often on or near the equator, where Vincenty's iteration
    /// does not converge.
    private func pairsWithNearAntipodes(count: Int, seed: UInt64) -> [(WireLocation, WireLocation)] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            var a = randomLocation(using: &generator)
            if Bool.random(using: &generator) { a.latitude *= ([1, 1e-2, 1e-6, 0] as [Double]).randomElement(using: &generator) ?? 1 }
            return (a, Bool.random(using: &generator) ? nearAntipode(of: a, using: &generator) : partner(of: a, using: &generator))
        }
    }

    func testTheLongestGeodesicIsHalfAMeridianAsGeographicLibMeasuresIt() {
        let pole = WireLocation(latitude: 90, longitude: 0), otherPole = WireLocation(latitude: -90, longitude: 0)
        XCTAssertEqual(EarthDistance.geodesic(pole, otherPole), EarthDistance.longestGeodesic)
        XCTAssertEqual(EarthDistance.longestGeodesic, 20_003_931.458_625, accuracy: 1e-6, "GeographicLib's WGS-84 half meridian")
    }

    /// Reference values: GeographicLib 2.1's `Geodesic.WGS84.Inverse`, exact to nanometres.
    /// Vincenty's iteration does not converge for any of these pairs; the sphere the
    /// geodesic used to fall back to measured them up to 34 km long, past the longest geodesic.
    func testNearlyAntipodalGeodesicsAreKarneysAndNeverLongerThanHalfAMeridian() {
        let cases: [(WireLocation, WireLocation, Double)] = [
            (WireLocation(latitude: 0, longitude: 0), WireLocation(latitude: 0.5, longitude: 179.7), 19_944_127.420_750),
            (WireLocation(latitude: 10, longitude: 20), WireLocation(latitude: -10, longitude: -160), 20_003_931.458_625),
            (WireLocation(latitude: -45, longitude: 0), WireLocation(latitude: 44.99, longitude: 179.99), 20_002_811.206_220),
            (WireLocation(latitude: 0, longitude: 0), WireLocation(latitude: 0, longitude: 179.9), 20_003_008.421_509),
            (WireLocation(latitude: 30, longitude: 0), WireLocation(latitude: -30, longitude: 179.99), 20_003_922.228_149),
            (WireLocation(latitude: 1, longitude: 0), WireLocation(latitude: -1, longitude: 179.5), 19_980_861.908_891),
            (WireLocation(latitude: 0, longitude: 0), WireLocation(latitude: 0.2, longitude: 179.6), 19_970_890.876_540),
            (WireLocation(latitude: -20, longitude: 40), WireLocation(latitude: 20.05, longitude: -140.1), 19_997_552.465_387),
            (WireLocation(latitude: 0, longitude: 0), WireLocation(latitude: -0.01, longitude: 179.99), 20_002_816.634_988),
            (WireLocation(latitude: 0, longitude: 0), WireLocation(latitude: 0, longitude: 180), 20_003_931.458_625),
        ]
        for (a, b, geographicLib) in cases {
            for distance in [EarthDistance.geodesic(a, b), EarthDistance.geodesic(b, a)] {
                XCTAssertEqual(distance, geographicLib, accuracy: 0.001, "\(a) to \(b)")
                XCTAssertLessThanOrEqual(distance, EarthDistance.longestGeodesic, "\(a) to \(b)")
            }
        }
    }

    /// Karney's algorithm converges for every pair: over random and nearly antipodal pairs
    /// every distance is finite, symmetric to the bit, and no longer than half a meridian
    /// (give or take a micrometre of rounding).
    func testEveryGeodesicConvergesToAFiniteSymmetricDistanceNoLongerThanHalfAMeridian() {
        for (a, b) in pairsWithNearAntipodes(count: 20_000, seed: 0x5EED_0006) {
            let there = EarthDistance.geodesic(a, b), back = EarthDistance.geodesic(b, a)
            if !(there.isFinite && there >= 0 && there <= EarthDistance.longestGeodesic + 1e-6 && there == back) {
                return XCTFail("\(a) to \(b) is \(there) m, back \(back) m")
            }
        }
    }

    /// CoreLocation's own algorithm where Vincenty's iteration converges, Karney's where it does
    /// not: no distance is longer than half a meridian, except along the equator, which
    /// CoreLocation follows at any separation (up to half the equator, 20,037.5 km).
    func testCoreLocationDistancesAreNeverLongerThanHalfAMeridianOffTheEquator() {
        for (a, b) in pairsWithNearAntipodes(count: 20_000, seed: 0x5EED_0007) where !(a.latitude == 0 && b.latitude == 0) {
            let distance = EarthDistance.coreLocation(a, b)
            if !(distance.isFinite && distance >= 0 && distance <= EarthDistance.longestGeodesic + 1e-6) {
                return XCTFail("\(a) to \(b): \(distance) m")
            }
        }
    }

    /// The geodesic distance is a metric: going through a third point is never shorter, in
    /// particular not around nearly antipodal points (a micrometre allowed for rounding).
    func testGoingThroughAThirdPointIsNeverShorterThanTheGeodesic() {
        var generator = SeededGenerator(seed: 0x5EED_0008)
        for (a, c) in pairsWithNearAntipodes(count: 10_000, seed: 0x5EED_0009) {
            let b = Bool.random(using: &generator) ? randomLocation(using: &generator) : partner(of: a, using: &generator)
            let direct = EarthDistance.geodesic(a, c)
            let through = EarthDistance.geodesic(a, b) + EarthDistance.geodesic(b, c)
            if !(direct <= through + 1e-6) {
                return XCTFail("\(a) to \(c) is \(direct) m, through \(b) only \(through) m")
            }
        }
    }

    func testTheGeodesicGrowsSteadilyWhereCoreLocationSwitchesFormulas() {
        let origin = WireLocation(latitude: 60, longitude: 0)
        var previous = 0.0
        for step in 0...400 {
            let distance = EarthDistance.geodesic(origin, WireLocation(latitude: 60, longitude: 1.98 + Double(step) * 1e-4))
            XCTAssertGreaterThan(distance, previous, "step \(step)")
            previous = distance
        }
        let nearer = WireLocation(latitude: 60, longitude: 1.9999999), farther = WireLocation(latitude: 60, longitude: 2.0000001)
        XCTAssertLessThan(EarthDistance.geodesic(origin, nearer), EarthDistance.geodesic(origin, farther))
        XCTAssertGreaterThan(EarthDistance.coreLocation(origin, nearer), EarthDistance.coreLocation(origin, farther), "CoreLocation's own jump, kept in distance(from:)")
    }

    func testTheGeodesicIgnoresAltitudeAndAPolesLongitude() {
        let from = WireLocation(latitude: 27.5, longitude: 86.5)
        let summit = WireLocation(latitude: 27.9881, longitude: 86.925, altitude: 8_848, verticalAccuracy: 5)
        let base = WireLocation(latitude: 27.9881, longitude: 86.925, altitude: 0, verticalAccuracy: 5)
        XCTAssertEqual(EarthDistance.geodesic(from, summit), EarthDistance.geodesic(from, base))
        XCTAssertNotEqual(EarthDistance.coreLocation(from, summit), EarthDistance.coreLocation(from, base), "CoreLocation raises short distances by the mean altitude")
        let poles = [0.0, 49, -120, 180].map { WireLocation(latitude: 90, longitude: $0) }
        let seen = WireLocation(latitude: 89, longitude: 50)
        XCTAssertEqual(Set(poles.map { EarthDistance.geodesic(seen, $0) }).count, 1)
        XCTAssertEqual(EarthDistance.geodesic(poles[0], poles[2]), 0)
        XCTAssertTrue(EarthDistance.measuresAlike(from: poles[1], and: poles[3]))
        XCTAssertTrue(EarthDistance.measuresAlike(from: summit, and: base))
        XCTAssertFalse(EarthDistance.measuresAlike(from: summit, and: from))
    }

    func testTheGeodesicAndCoreLocationDifferByAFractionOfAPercentAtMost() {
        for (a, b) in pairs(count: 20_000, seed: 0x5EED_0005) {
            let geodesic = EarthDistance.geodesic(a, b), coreLocation = EarthDistance.coreLocation(a, b)
            // Aside: CoreLocation's equator rule (0.17% over for nearly antipodal points on it),
            // and its tangent plane within 10° of a pole, which drifts by tens of metres.
            guard !(a.latitude == 0 && b.latitude == 0), abs(a.latitude) < 80, abs(b.latitude) < 80 else { continue }
            // The tangent plane is CoreLocation's approximation for points under 2° apart: off
            // by up to about 0.1%.
            if !(abs(geodesic - coreLocation) <= 1 + geodesic * 2e-3) {
                return XCTFail("\(a) to \(b): geodesic \(geodesic) m, CoreLocation \(coreLocation) m")
            }
        }
    }
}

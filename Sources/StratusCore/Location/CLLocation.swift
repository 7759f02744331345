#if !canImport(CoreLocation)
import Foundation
import StratusWire

/// A place on Earth with its altitude, accuracy, course, speed and time: CoreLocation's
/// `CLLocation`, declared by Stratus where CoreLocation does not exist.
///
/// Immutable, as CoreLocation's is. Components a location does not know hold CoreLocation's
/// "invalid" values: -1 for a vertical accuracy, course, speed or their accuracies.
///
/// ```swift
/// record["place"] = CLLocation(latitude: 51.5072, longitude: -0.1276)
/// ```
open class CLLocation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The latitude and longitude, in degrees.
    public let coordinate: CLLocationCoordinate2D
    /// Metres above sea level.
    public let altitude: CLLocationDistance
    /// The radius of uncertainty of ``coordinate``, in metres; negative when not valid.
    public let horizontalAccuracy: CLLocationAccuracy
    /// The uncertainty of ``altitude``, in metres; negative when not valid.
    public let verticalAccuracy: CLLocationAccuracy
    /// Degrees clockwise from true north; negative when not known.
    public let course: CLLocationDirection
    /// The uncertainty of ``course``, in degrees; negative when not valid.
    public let courseAccuracy: CLLocationDirectionAccuracy
    /// Metres per second; negative when not known.
    public let speed: CLLocationSpeed
    /// The uncertainty of ``speed``; negative when not valid.
    public let speedAccuracy: CLLocationSpeedAccuracy
    /// When the location was determined.
    public let timestamp: Date

    /// A location at the given latitude and longitude, determined now: altitude 0, horizontal
    /// accuracy 0, and no vertical accuracy, course or speed (-1).
    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
            altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: Date()
        )
    }

    /// A location with the given position and accuracies, and no course or speed (-1).
    public convenience init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: -1, speed: -1, timestamp: timestamp
        )
    }

    /// A location with the given position, accuracies, course and speed, whose course and
    /// speed accuracies are not known (-1).
    public convenience init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        speed: CLLocationSpeed,
        timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp
        )
    }

    /// A location with every component given.
    public init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy,
        timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
        super.init()
    }

    /// The distance to `location` in metres along the Earth's surface, ignoring the difference
    /// in altitude, computed as CoreLocation computes it (``EarthDistance``): on the plane
    /// tangent to WGS-84 under 2° apart, by Vincenty's formula beyond. Where Vincenty's
    /// iteration does not converge (nearly antipodal points) CoreLocation falls back to a sphere
    /// that can measure more than the longest geodesic; Stratus measures those pairs along the
    /// geodesic (Karney's algorithm), so no distance between points off the equator exceeds half
    /// a meridian (20,003,931.46 m).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        EarthDistance.coreLocation(wireValue, location.wireValue)
    }

    // MARK: NSCopying

    /// The location itself: it never changes.
    public func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    // MARK: NSSecureCoding

    /// Locations decode securely.
    public class var supportsSecureCoding: Bool { true }

    private enum CodingKey {
        static let latitude = "kCLLocationCodingKeyCoordinateLatitude"
        static let longitude = "kCLLocationCodingKeyCoordinateLongitude"
        static let altitude = "kCLLocationCodingKeyAltitude"
        static let horizontalAccuracy = "kCLLocationCodingKeyHorizontalAccuracy"
        static let verticalAccuracy = "kCLLocationCodingKeyVerticalAccuracy"
        static let course = "kCLLocationCodingKeyCourse"
        static let courseAccuracy = "kCLLocationCodingKeyCourseAccuracy"
        static let speed = "kCLLocationCodingKeySpeed"
        static let speedAccuracy = "kCLLocationCodingKeySpeedAccuracy"
        static let timestamp = "kCLLocationCodingKeyTimestamp"
    }

    /// Writes every component under its own key.
    public func encode(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: CodingKey.latitude)
        coder.encode(coordinate.longitude, forKey: CodingKey.longitude)
        coder.encode(altitude, forKey: CodingKey.altitude)
        coder.encode(horizontalAccuracy, forKey: CodingKey.horizontalAccuracy)
        coder.encode(verticalAccuracy, forKey: CodingKey.verticalAccuracy)
        coder.encode(course, forKey: CodingKey.course)
        coder.encode(courseAccuracy, forKey: CodingKey.courseAccuracy)
        coder.encode(speed, forKey: CodingKey.speed)
        coder.encode(speedAccuracy, forKey: CodingKey.speedAccuracy)
        coder.encode(timestamp as NSDate, forKey: CodingKey.timestamp)
    }

    /// Reads what ``encode(with:)`` wrote; a component missing from the archive takes its
    /// "not known" value, and an archive without a timestamp does not decode.
    public required init?(coder: NSCoder) {
        func component(_ key: String, missing: Double) -> Double {
            coder.containsValue(forKey: key) ? coder.decodeDouble(forKey: key) : missing
        }
        // Checked first: on Linux, decoding a missing object under the default failure policy
        // (.raiseException) ends the process.
        guard coder.containsValue(forKey: CodingKey.timestamp),
              let timestamp = coder.decodeObject(of: NSDate.self, forKey: CodingKey.timestamp)
        else { return nil }
        coordinate = CLLocationCoordinate2D(latitude: component(CodingKey.latitude, missing: 0), longitude: component(CodingKey.longitude, missing: 0))
        altitude = component(CodingKey.altitude, missing: 0)
        horizontalAccuracy = component(CodingKey.horizontalAccuracy, missing: -1)
        verticalAccuracy = component(CodingKey.verticalAccuracy, missing: -1)
        course = component(CodingKey.course, missing: -1)
        courseAccuracy = component(CodingKey.courseAccuracy, missing: -1)
        speed = component(CodingKey.speed, missing: -1)
        speedAccuracy = component(CodingKey.speedAccuracy, missing: -1)
        self.timestamp = timestamp as Date
        super.init()
    }

    // MARK: Description

    /// The location as CoreLocation describes it:
    /// `<+51.50720000,-0.12760000> +/- 0.00m (speed -1.00 mps / course -1.00) @ <timestamp>`.
    open override var description: String {
        let position = String(format: "<%+.8f,%+.8f> +/- %.2fm", coordinate.latitude, coordinate.longitude, horizontalAccuracy)
        return "\(position) (speed \(String(format: "%.2f", speed)) mps / course \(String(format: "%.2f", course))) @ \(timestamp)"
    }
}
#endif

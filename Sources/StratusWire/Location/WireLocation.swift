import Foundation

/// A place on Earth as a record stores it: the value twin of `CLLocation`.
///
/// It keeps the components CloudKit Web Services' location dictionary names: the coordinate,
/// altitude, both accuracies, course, speed and timestamp. A component CoreLocation marks
/// unknown with a negative number (an accuracy, course or speed of -1) keeps that number.
public struct WireLocation: Hashable, Sendable {
    /// Degrees north of the equator, -90 to 90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180 to 180.
    public var longitude: Double
    /// Metres above sea level.
    public var altitude: Double
    /// The radius of uncertainty of the coordinate, in metres; negative when it is not valid.
    public var horizontalAccuracy: Double
    /// The uncertainty of the altitude, in metres; negative when it is not valid.
    public var verticalAccuracy: Double
    /// Degrees clockwise from true north; negative when not known.
    public var course: Double
    /// Metres per second; negative when not known.
    public var speed: Double
    /// When the location was determined.
    public var timestamp: Date

    /// Creates a location value.
    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double = 0,
        horizontalAccuracy: Double = 0,
        verticalAccuracy: Double = -1,
        course: Double = -1,
        speed: Double = -1,
        timestamp: Date = Date(timeIntervalSinceReferenceDate: 0)
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
    }

    /// Why the location cannot be stored, as the end of a sentence that starts "a location
    /// whose", or nil when it can: the latitude must lie in -90…90, the longitude in
    /// -180…180, and every component must be a finite number.
    public var problem: String? {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return "coordinate (\(latitude), \(longitude)) is not valid: the latitude must lie in -90…90 and the longitude in -180…180"
        }
        let components = [("altitude", altitude), ("horizontalAccuracy", horizontalAccuracy), ("verticalAccuracy", verticalAccuracy),
                          ("course", course), ("speed", speed), ("timestamp", timestamp.timeIntervalSinceReferenceDate)]
        if let (name, value) = components.first(where: { !$0.1.isFinite }) {
            return "\(name) is \(value), not a finite number"
        }
        return nil
    }
}

extension WireLocation: CustomStringConvertible {
    /// The coordinate, as `<+51.50000000,-0.12000000>`.
    public var description: String {
        "<\(Self.signed(latitude)),\(Self.signed(longitude))>"
    }

    private static func signed(_ degrees: Double) -> String {
        (degrees < 0 ? "-" : "+") + String(format: "%.8f", abs(degrees))
    }
}

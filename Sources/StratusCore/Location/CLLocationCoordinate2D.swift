#if !canImport(CoreLocation)
import Foundation

// CoreLocation does not exist on Linux. Stratus declares the part of it CloudKit code touches,
// with CoreLocation's names and meaning; where CoreLocation exists it is used instead and none
// of this is compiled.

/// Degrees of latitude or longitude: CoreLocation's `CLLocationDegrees`.
public typealias CLLocationDegrees = Double
/// Metres: CoreLocation's `CLLocationDistance`.
public typealias CLLocationDistance = Double
/// The uncertainty of a position, in metres; negative when not valid.
public typealias CLLocationAccuracy = Double
/// Metres per second; negative when not known.
public typealias CLLocationSpeed = Double
/// The uncertainty of a speed, in metres per second; negative when not valid.
public typealias CLLocationSpeedAccuracy = Double
/// Degrees clockwise from true north, 0…359.9; negative when not known.
public typealias CLLocationDirection = Double
/// The uncertainty of a direction, in degrees; negative when not valid.
public typealias CLLocationDirectionAccuracy = Double

/// The largest distance CoreLocation reports.
public let CLLocationDistanceMax: CLLocationDistance = .greatestFiniteMagnitude
/// The largest time interval CoreLocation reports.
public let CLTimeIntervalMax: TimeInterval = .greatestFiniteMagnitude

/// A latitude and longitude in degrees (WGS 84): CoreLocation's `CLLocationCoordinate2D`.
///
/// As in CoreLocation, it is a plain C-like struct: not `Equatable`, `Hashable` or `Codable`,
/// so an app's own conformance, written for Apple's platforms, compiles here too.
public struct CLLocationCoordinate2D: Sendable {
    /// Degrees north of the equator, -90…90.
    public var latitude: CLLocationDegrees
    /// Degrees east of Greenwich, -180…180.
    public var longitude: CLLocationDegrees

    /// The coordinate (0, 0).
    public init() {
        latitude = 0
        longitude = 0
    }

    /// A coordinate with the given latitude and longitude.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The coordinate CoreLocation uses for "no coordinate": (-180, -180).
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)

/// Whether `coord` is a coordinate on Earth: latitude in -90…90 and longitude in -180…180
/// (a coordinate holding NaN is not).
public func CLLocationCoordinate2DIsValid(_ coord: CLLocationCoordinate2D) -> Bool {
    (-90...90).contains(coord.latitude) && (-180...180).contains(coord.longitude)
}

/// A coordinate with the given latitude and longitude, as CoreLocation's C function makes it.
public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}
#endif

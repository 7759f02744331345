import Foundation
import StratusWire
#if canImport(CoreLocation)
import CoreLocation
#endif

// A `CLLocation` is a record value (CloudKit's Location type), on every platform.

extension CLLocation: __CKRecordObjCValue {}

extension CLLocation: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        let value = wireValue
        if let problem = value.problem { return .failure("a CLLocation whose \(problem.dropFirst("holds a location whose ".count))") }
        return .success(.location(value))
    }
}

extension CLLocation {
    /// The components a record keeps: all but the course and speed accuracies, which
    /// CloudKit's location type does not hold (they read back as -1).
    var wireValue: WireLocation {
        WireLocation(
            latitude: coordinate.latitude, longitude: coordinate.longitude, altitude: altitude,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: course, speed: speed, timestamp: timestamp
        )
    }

    /// The location a record's value stands for.
    convenience init(wire: WireLocation) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: wire.latitude, longitude: wire.longitude),
            altitude: wire.altitude, horizontalAccuracy: wire.horizontalAccuracy, verticalAccuracy: wire.verticalAccuracy,
            course: wire.course, speed: wire.speed, timestamp: wire.timestamp
        )
    }
}

import Foundation
import StratusWire
#if canImport(CoreLocation)
import CoreLocation
#endif

/// Orders a query's records by the distance between a location field and a point, nearest
/// first: CloudKit's `CKLocationSortDescriptor`.
///
/// ```swift
/// query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: here)]
/// ```
///
/// Distances are measured along the Earth's curvature without regard to altitude, as CloudKit
/// documents (``EarthDistance/geodesic(_:_:)``, which `CLLocation.distance(from:)` matches to
/// within a fraction of a percent); records at the same
/// distance come in record-name order, and records without a location in the field come after
/// all the others. The descriptor is ascending, as CloudKit makes it.
///
/// CloudKit document: *CKLocationSortDescriptor*.
open class CKLocationSortDescriptor: NSSortDescriptor, NSSecureCoding {
    /// The point distances are measured from.
    public let relativeLocation: CLLocation

    /// A descriptor ordering records by the distance of their `key` field from
    /// `relativeLocation`, nearest first.
    public init(key: String, relativeLocation: CLLocation) {
        self.relativeLocation = relativeLocation
        super.init(keyPath: \SortDescriptorKey[stratusKey: key], ascending: true)
    }

    // MARK: NSSecureCoding

    /// Location sort descriptors decode securely.
    public class var supportsSecureCoding: Bool { true }

    /// Writes the key and the location (under `"Location"`, as CloudKit does).
    public func encode(with coder: NSCoder) {
        coder.encode(key as NSString?, forKey: "Key")
        coder.encode(relativeLocation, forKey: "Location")
    }

    /// Reads what ``encode(with:)`` wrote; nil when the key or the location is missing.
    public required init?(coder: NSCoder) {
        // Presence checked first: on Linux, decoding a missing object under the default failure
        // policy (.raiseException) ends the process.
        guard coder.containsValue(forKey: "Key"), coder.containsValue(forKey: "Location"),
              let key = coder.decodeObject(of: NSString.self, forKey: "Key") as String?,
              let location = coder.decodeObject(of: CLLocation.self, forKey: "Location")
        else { return nil }
        relativeLocation = location
        super.init(keyPath: \SortDescriptorKey[stratusKey: key], ascending: true)
    }
}

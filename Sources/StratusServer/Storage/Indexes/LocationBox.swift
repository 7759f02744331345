import Foundation
import StratusWire

/// A latitude/longitude rectangle of the spatial index, and how close a point can come to it.
struct LocationBox {
    var south: Double
    var north: Double
    var west: Double
    var east: Double

    /// The whole Earth.
    static let world = LocationBox(south: -90, north: 90, west: -180, east: 180)

    /// The four quarters: south-west, south-east, north-west, north-east. A point on a
    /// dividing line belongs to the quarter north or east of it (``quarter(of:)``).
    var quarters: [LocationBox] {
        let (midLatitude, midLongitude) = ((south + north) / 2, (west + east) / 2)
        return [
            LocationBox(south: south, north: midLatitude, west: west, east: midLongitude),
            LocationBox(south: south, north: midLatitude, west: midLongitude, east: east),
            LocationBox(south: midLatitude, north: north, west: west, east: midLongitude),
            LocationBox(south: midLatitude, north: north, west: midLongitude, east: east),
        ]
    }

    /// The index in ``quarters`` of the quarter holding `location`.
    func quarter(of location: WireLocation) -> Int {
        (location.latitude >= (south + north) / 2 ? 2 : 0) + (location.longitude >= (west + east) / 2 ? 1 : 0)
    }

    /// A distance in metres that no point of the box is nearer to `point` than, as
    /// ``EarthDistance/geodesic(_:_:)`` measures: the least central angle from the point to the box on a
    /// sphere, times ``EarthDistance/lowerBoundRadius``.
    ///
    /// Inside the box's longitudes the nearest point lies due north or south. Outside them it
    /// lies on one of the two bounding meridians (along a parallel, distance grows with the
    /// difference in longitude, so the parallels' nearest points are corners): on a meridian
    /// facing the point (less than 90° of longitude away) the nearest point of the whole
    /// meridian is at latitude atan(tan φ / cos Δλ), and distance grows away from it, so the
    /// nearest point of the edge is that latitude clamped to the edge; on a meridian facing
    /// away, the nearest point of the edge is one of its ends.
    func lowerBound(from point: WireLocation) -> Double {
        Self.lowerBound(ofAngle: leastAngle(from: point))
    }

    /// The distance in metres no two points `angle` radians apart on a sphere are nearer than,
    /// as ``EarthDistance/geodesic(_:_:)`` measures: the angle on a sphere of
    /// ``EarthDistance/lowerBoundRadius``, less a micrometre: rounding can put two names of one
    /// point (a pole under two longitudes) a fraction of that apart, and a bound must never
    /// exceed a distance.
    static func lowerBound(ofAngle angle: Double) -> Double {
        max(0, EarthDistance.lowerBoundRadius * angle - 1e-6)
    }

    private func leastAngle(from point: WireLocation) -> Double {
        let φ = point.latitude
        if point.longitude >= west, point.longitude <= east {
            if φ >= south, φ <= north { return 0 }
            return min(abs(φ - south), abs(φ - north)) * .pi / 180
        }
        return min(angle(from: point, toMeridian: west), angle(from: point, toMeridian: east))
    }

    private func angle(from point: WireLocation, toMeridian λ: Double) -> Double {
        let Δλ = remainder(point.longitude - λ, 360) * .pi / 180
        let φ = point.latitude
        func angle(to latitude: Double) -> Double {
            EarthDistance.centralAngle(latitude: φ, longitude: point.longitude, latitude: latitude, longitude: λ)
        }
        guard cos(Δλ) > 0 else { return min(angle(to: south), angle(to: north)) }
        let nearest = atan(tan(φ * .pi / 180) / cos(Δλ)) * 180 / .pi
        return angle(to: min(max(nearest, south), north))
    }
}

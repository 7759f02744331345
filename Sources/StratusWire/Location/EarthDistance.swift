import Foundation

/// Distances over the Earth's surface, on the WGS-84 ellipsoid: as queries measure them
/// (``geodesic(_:_:)``), and as CoreLocation's `distance(from:)` computes them
/// (``coreLocation(_:_:)``).
///
/// The two differ by metres only between points less than 2° apart: CoreLocation measures
/// those in the plane tangent to the ellipsoid at their mean latitude, raised by their mean
/// valid altitude (an altitude counts when its vertical accuracy is positive), so its distances
/// jump by a few metres where it switches to Vincenty's formula, give a pole an east–west
/// extent, and move with altitude. A query's order and circles must follow distance without
/// such jumps, and CloudKit's documentation says its distances do not account for altitude, so
/// queries measure the geodesic itself. Farther apart, Vincenty's formula agrees with the
/// geodesic to under a millimetre (a few millimetres within a degree or so of the antipode);
/// CoreLocation's one other departure is the equator, which it follows between any two points
/// on it, up to 33.6 km longer than the geodesic over the poles between nearly antipodal ones.
public enum EarthDistance {
    /// WGS-84's equatorial radius, in metres.
    static let equatorialRadius = 6_378_137.0
    /// WGS-84's flattening.
    static let flattening = 1 / 298.257_223_563
    /// WGS-84's polar radius, in metres.
    static let polarRadius = equatorialRadius * (1 - flattening)
    /// WGS-84's first eccentricity, squared.
    static let eccentricitySquared = 0.006_694_379_990_14

    /// A sphere radius whose great-circle distances never exceed this type's: the ellipsoid
    /// differs from a 6,371 km sphere by under 0.6%, so 1% less is a safe lower bound.
    public static let lowerBoundRadius = 6_371_000.0 * 0.99

    /// Whether every geodesic distance from `a` equals the one from `b`: the same coordinate
    /// (a pole under any longitude). Locations made at different times, or with other
    /// altitudes, accuracies, course or speed, measure alike.
    public static func measuresAlike(from a: WireLocation, and b: WireLocation) -> Bool {
        a.latitude == b.latitude && (a.longitude == b.longitude || abs(a.latitude) == 90)
    }

    /// The length of the longest geodesic on WGS-84, in metres: half a meridian, from pole to
    /// pole (half the equator is longer, but between two antipodes on the equator the
    /// shortest path runs over the poles). No distance ``geodesic(_:_:)`` measures exceeds it.
    public static let longestGeodesic = 20_003_931.458_625_447

    /// The distance between `a` and `b` in metres as queries measure it: the length of the
    /// geodesic on the WGS-84 ellipsoid by Karney's algorithm (as GeographicLib computes it, to
    /// within nanometres), ignoring altitude; it converges for every pair, nearly antipodal
    /// ones included, and never exceeds ``longestGeodesic``. It grows steadily with separation,
    /// is the same for a pole under any longitude, and the same to the last bit between `b` and
    /// `a`. Used by `distanceToLocation:fromLocation:`, location sorts and the server's spatial
    /// index.
    public static func geodesic(_ a: WireLocation, _ b: WireLocation) -> Double {
        var (a, b) = inOrder(a, b)
        // A pole's longitude names no direction: measure it along the other point's meridian.
        if abs(a.latitude) == 90 { a.longitude = b.longitude }
        if abs(b.latitude) == 90 { b.longitude = a.longitude }
        guard abs(a.latitude) <= 90, abs(b.latitude) <= 90 else { return 0 }
        return karney(a, b)
    }

    /// The distance between `a` and `b` in metres as CoreLocation's `distance(from:)`
    /// computes it (see the type's discussion); the same to the last bit between `b` and `a`.
    ///
    /// Where Vincenty's iteration does not converge (nearly antipodal points), CoreLocation
    /// falls back to a sphere that measures up to 34 km more than the longest geodesic; this
    /// function measures those pairs by Karney's algorithm instead, as ``geodesic(_:_:)`` does,
    /// so that no distance between points off the equator exceeds ``longestGeodesic``. (Two
    /// points on the equator keep CoreLocation's rule: measured along it at any separation.)
    public static func coreLocation(_ a: WireLocation, _ b: WireLocation) -> Double {
        let (a, b) = inOrder(a, b)
        let Δφ = b.latitude - a.latitude
        let Δλ = b.longitude - a.longitude
        if abs(Δφ) <= 2, abs(Δλ) <= 2 {
            return tangentPlane(a, b, Δφ: Δφ, Δλ: Δλ)
        }
        guard abs(a.latitude) <= 90, abs(b.latitude) <= 90 else { return 0 }
        return vincenty(a, b) ?? karney(a, b)
    }

    /// The geodesic between two points of valid latitude, by ``InverseGeodesic``.
    private static func karney(_ a: WireLocation, _ b: WireLocation) -> Double {
        InverseGeodesic.distance(latitude: a.latitude, longitude: a.longitude, latitude: b.latitude, longitude: b.longitude)
    }

    /// The two points, the one that sorts first first: Vincenty's iteration and the last bits
    /// of Karney's depend on which point comes first, and a distance must not.
    private static func inOrder(_ a: WireLocation, _ b: WireLocation) -> (WireLocation, WireLocation) {
        (b.latitude, b.longitude) < (a.latitude, a.longitude) ? (b, a) : (a, b)
    }

    private static let radiansPerDegree = Double.pi / 180

    /// Short distances: the plane tangent to the ellipsoid at the mean latitude, raised by the
    /// mean valid altitude.
    private static func tangentPlane(_ a: WireLocation, _ b: WireLocation, Δφ: Double, Δλ: Double) -> Double {
        let φ = (a.latitude + b.latitude) / 2 * radiansPerDegree
        let sinφ = sin(φ)
        let w = (1 - eccentricitySquared * sinφ * sinφ).squareRoot()
        let meridional = equatorialRadius * (1 - eccentricitySquared) / (w * w * w)
        let normal = equatorialRadius / w
        let altitudes = [a, b].filter { $0.verticalAccuracy > 0 }.map(\.altitude)
        let h = altitudes.isEmpty ? 0 : min(max(altitudes.reduce(0, +) / Double(altitudes.count), -450), 1_000_000)
        let north = Δφ * radiansPerDegree * (meridional + h)
        let east = Δλ * radiansPerDegree * (normal + h) * cos(φ)
        return (north * north + east * east).squareRoot()
    }

    /// Vincenty's inverse formula on WGS-84, as CoreLocation uses it; nil when it does not
    /// converge in 50 steps. Two points on the equator are measured along it at any separation,
    /// as CoreLocation does (the geodesic leaves the equator beyond (1 - f)π).
    private static func vincenty(_ a: WireLocation, _ b: WireLocation) -> Double? {
        let f = flattening
        let L = remainder(b.longitude - a.longitude, 360) * radiansPerDegree
        if a.latitude == 0, b.latitude == 0 { return equatorialRadius * abs(L) }
        let U1 = atan((1 - f) * tan(a.latitude * radiansPerDegree))
        let U2 = atan((1 - f) * tan(b.latitude * radiansPerDegree))
        let (sinU1, cosU1, sinU2, cosU2) = (sin(U1), cos(U1), sin(U2), cos(U2))
        var λ = L
        for _ in 0..<50 {
            let (sinλ, cosλ) = (sin(λ), cos(λ))
            let sinσ = ((cosU2 * sinλ) * (cosU2 * sinλ) + (cosU1 * sinU2 - sinU1 * cosU2 * cosλ) * (cosU1 * sinU2 - sinU1 * cosU2 * cosλ)).squareRoot()
            if sinσ == 0 { return 0 }
            let cosσ = sinU1 * sinU2 + cosU1 * cosU2 * cosλ
            let σ = atan2(sinσ, cosσ)
            let sinα = cosU1 * cosU2 * sinλ / sinσ
            let cos²α = 1 - sinα * sinα
            let cos2σm = cos²α == 0 ? 0 : cosσ - 2 * sinU1 * sinU2 / cos²α
            let C = f / 16 * cos²α * (4 + f * (4 - 3 * cos²α))
            let previous = λ
            λ = L + (1 - C) * f * sinα * (σ + C * sinσ * (cos2σm + C * cosσ * (-1 + 2 * cos2σm * cos2σm)))
            guard abs(λ) <= .pi else { return nil }
            if abs(λ - previous) < 1e-9 {
                let u² = cos²α * (equatorialRadius * equatorialRadius - polarRadius * polarRadius) / (polarRadius * polarRadius)
                let A = 1 + u² / 16384 * (4096 + u² * (-768 + u² * (320 - 175 * u²)))
                let B = u² / 1024 * (256 + u² * (-128 + u² * (74 - 47 * u²)))
                let Δσ = B * sinσ * (cos2σm + B / 4 * (cosσ * (-1 + 2 * cos2σm * cos2σm)
                    - B / 6 * cos2σm * (-3 + 4 * sinσ * sinσ) * (-3 + 4 * cos2σm * cos2σm)))
                return polarRadius * A * (σ - Δσ)
            }
        }
        return nil
    }

    /// The angle at the centre of a sphere between two coordinates given in degrees, in
    /// radians (0…π), by the haversine formula.
    public static func centralAngle(latitude φ1: Double, longitude λ1: Double, latitude φ2: Double, longitude λ2: Double) -> Double {
        let sinHalfΔφ = sin((φ2 - φ1) * radiansPerDegree / 2)
        // Reduced to -180…180 first, so that the two names of the antimeridian (180 and -180)
        // are 0° apart exactly, not sin(π) ≈ 1e-16 apart.
        let sinHalfΔλ = sin(remainder(λ2 - λ1, 360) * radiansPerDegree / 2)
        let h = sinHalfΔφ * sinHalfΔφ + cos(φ1 * radiansPerDegree) * cos(φ2 * radiansPerDegree) * sinHalfΔλ * sinHalfΔλ
        return 2 * asin(min(1, max(0, h).squareRoot()))
    }
}

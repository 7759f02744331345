import Foundation

/// The length of the geodesic between two points of the WGS-84 ellipsoid, by Karney's solution
/// of the inverse problem (C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 2013):
/// the geodesic is mapped onto a great circle of an auxiliary sphere, its length and longitude
/// are series in the third flattening and in the circle's own small parameter ε (to ε⁶, which
/// leaves errors of nanometres on the Earth), and the azimuth at the first point is found by
/// Newton's method, started from the spherical solution for most points and from the astroid
/// that describes the geodesics of nearly antipodal points. Unlike Vincenty's iteration it
/// converges for every pair, antipodes included.
///
/// Every step works on local values, without allocating: distances are measured in the
/// server's sorts and spatial index by the thousand.
enum InverseGeodesic {
    private static let a = EarthDistance.equatorialRadius
    private static let f = EarthDistance.flattening
    /// 1 − f: the polar radius over the equatorial one.
    private static let f1 = 1 - f
    private static let b = EarthDistance.polarRadius
    /// The second eccentricity, squared.
    private static let ep2 = f * (2 - f) / (f1 * f1)
    /// The third flattening, (a − b)/(a + b).
    private static let n = f / (2 - f)

    private static let tol0 = Double.ulpOfOne
    private static let tol1 = 200 * tol0
    private static let tol2 = tol0.squareRoot()
    /// Below this angle on the auxiliary sphere a short line's spherical solution is final.
    private static let shortLineLimit = 0.1 * tol2 / (max(0.001, f) * min(1, 1 - f / 2) / 2).squareRoot()
    /// A value that keeps a cosine from being exactly zero, far above underflow.
    private static let tiny = Double.leastNormalMagnitude.squareRoot()
    /// Newton steps before only bisection is trusted, and steps in all.
    private static let newtonSteps = 20
    private static let allSteps = newtonSteps + Double.significandBitCount + 11
    private static let radiansPerDegree = Double.pi / 180

    /// The coefficients of A3 and C3 (the longitude's series) as polynomials in ε, whose own
    /// coefficients depend on the ellipsoid's third flattening alone: computed once.
    private static let longitudeSeries = LongitudeSeries(n: n)

    /// The geodesic distance in metres between two points given in degrees, latitudes within
    /// ±90. The same to the last bit whichever point comes first only when the caller orders
    /// them (``EarthDistance`` does).
    static func distance(latitude lat1: Double, longitude lon1: Double, latitude lat2: Double, longitude lon2: Double) -> Double {
        // Longitude difference in 0…180; the geodesic's mirror images have the same length.
        let lon12 = abs(remainder(lon2 - lon1, 360))
        // Put the point farther from the equator first, in the southern hemisphere: then
        // -90 ≤ φ1 ≤ 0 and φ1 ≤ φ2 ≤ -φ1.
        var (φ1, φ2) = abs(lat1) >= abs(lat2) ? (lat1, lat2) : (lat2, lat1)
        if φ1 > 0 { (φ1, φ2) = (-φ1, -φ2) }

        let (sbet1, cbet1) = reducedLatitude(φ1)
        var (sbet2, cbet2) = reducedLatitude(φ2)
        // Points at opposite latitudes of one magnitude must stay exactly so after rounding.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2 < 0 ? sbet1 : -sbet1 }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()
        let lam12 = lon12 * radiansPerDegree
        let slam12 = lon12 == 180 ? 0 : sin(lam12)
        let clam12 = cos(lam12)
        let ends = Ends(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2)

        if φ1 == -90 || slam12 == 0 {
            // Along a meridian (through a pole when the longitudes differ by 180°): on an
            // oblate ellipsoid the meridian is the shortest path.
            let ssig1 = sbet1, csig1 = clam12 * cbet1
            let ssig2 = sbet2, csig2 = cbet2
            let sig12 = atan2(positive(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
            let k2 = ep2 * (clam12 * clam12 + slam12 * slam12 * sbet1 * sbet1)
            return b * arcLength(sig12, ssig1, csig1, ssig2, csig2, ε: epsilon(k2))
        }
        if sbet1 == 0, lon12 <= 180 * f1 {
            // Both on the equator, and near enough that the equator is the geodesic.
            return a * lam12
        }

        let start = startingAzimuth(ends, lam12: lam12, slam12: slam12, clam12: clam12)
        if let sig12 = start.shortLineSigma {
            return b * start.dnm * sig12
        }

        // Newton's method on the azimuth α1 at the first point, solving λ12(α1) = λ12 within
        // a bracket [α1a, α1b] that bisection falls back to if a step leaves it.
        var (salp1, calp1) = (start.salp1, start.calp1)
        var (salp1a, calp1a) = (tiny, 1.0)
        var (salp1b, calp1b) = (tiny, -1.0)
        var nearlyThere = false, bracketCollapsed = false
        var line = longitude(ends, salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12)
        for step in 0..<allSteps {
            if step > 0 {
                line = longitude(ends, salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12)
            }
            let v = line.lam12Error
            if bracketCollapsed || !(abs(v) >= (nearlyThere ? 8 : 1) * tol0) { break }
            if v > 0, step > newtonSteps || calp1 / salp1 > calp1b / salp1b {
                (salp1b, calp1b) = (salp1, calp1)
            } else if v < 0, step > newtonSteps || calp1 / salp1 < calp1a / salp1a {
                (salp1a, calp1a) = (salp1, calp1)
            }
            // The derivative is needed only for a step, not once the line has converged.
            if step < newtonSteps {
                let dlam12 = derivative(ends, line)
                let dalp1 = -v / dlam12
                if dlam12 > 0, abs(dalp1) < .pi {
                    let (sdalp1, cdalp1) = (sin(dalp1), cos(dalp1))
                    let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                    if nsalp1 > 0 {
                        calp1 = calp1 * cdalp1 - salp1 * sdalp1
                        salp1 = nsalp1
                        (salp1, calp1) = normalized(salp1, calp1)
                        nearlyThere = abs(v) <= 16 * tol0
                        continue
                    }
                }
            }
            // The step left the bracket, or Newton's method is not converging: bisect.
            (salp1, calp1) = normalized((salp1a + salp1b) / 2, (calp1a + calp1b) / 2)
            nearlyThere = false
            bracketCollapsed = abs(salp1a - salp1) + (calp1a - calp1) < tol0 * tol2
                || abs(salp1 - salp1b) + (calp1 - calp1b) < tol0 * tol2
        }
        return b * arcLength(line.sig12, line.ssig1, line.csig1, line.ssig2, line.csig2, ε: line.ε)
    }

    // MARK: - The pieces

    /// The reduced (parametric) latitude β of a geodetic latitude in degrees, as (sin β, cos β),
    /// the cosine kept above zero so that a pole still has a direction.
    private static func reducedLatitude(_ φ: Double) -> (Double, Double) {
        let sinφ = abs(φ) == 90 ? (φ < 0 ? -1.0 : 1) : sin(φ * radiansPerDegree)
        let cosφ = abs(φ) == 90 ? 0 : cos(φ * radiansPerDegree)
        let (s, c) = normalized(f1 * sinφ, cosφ)
        return (s, max(tiny, c))
    }

    /// `x` where it is positive, else +0 (not -0, which would turn atan2's π into -π).
    private static func positive(_ x: Double) -> Double {
        x > 0 ? x : 0
    }

    /// (x, y) scaled to unit length.
    private static func normalized(_ x: Double, _ y: Double) -> (Double, Double) {
        let r = (x * x + y * y).squareRoot()
        return (x / r, y / r)
    }

    /// The small parameter of a geodesic whose k² = e′² cos² α0.
    private static func epsilon(_ k2: Double) -> Double {
        k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
    }

    /// The two end points on the auxiliary sphere.
    private struct Ends {
        var sbet1, cbet1, dn1, sbet2, cbet2, dn2: Double
    }

    /// Six coefficients of a Fourier series in sin 2σ, 4σ, …, 12σ.
    private struct SineSeries {
        var c1, c2, c3, c4, c5, c6: Double

        /// Σ cₗ sin(2lσ) for sin σ and cos σ, by Clenshaw's recurrence in cos 2σ.
        func sum(_ sσ: Double, _ cσ: Double) -> Double {
            let twoCos2σ = 2 * (cσ - sσ) * (cσ + sσ)
            var next = 0.0, current = c6
            (current, next) = (c5 + twoCos2σ * current - next, current)
            (current, next) = (c4 + twoCos2σ * current - next, current)
            (current, next) = (c3 + twoCos2σ * current - next, current)
            (current, next) = (c2 + twoCos2σ * current - next, current)
            (current, next) = (c1 + twoCos2σ * current - next, current)
            return 2 * sσ * cσ * current
        }
    }

    /// A1 − 1: the scale of the distance integral (Karney 2013, eq. 17).
    private static func a1m1(_ ε: Double) -> Double {
        let ε2 = ε * ε
        let t = ε2 * (ε2 * (ε2 + 4) + 64) / 256
        return (t + ε) / (1 - ε)
    }

    /// C1ₗ: the distance integral's Fourier coefficients (eq. 18).
    private static func c1(_ ε: Double) -> SineSeries {
        let ε2 = ε * ε
        let ε3 = ε2 * ε, ε4 = ε2 * ε2, ε5 = ε4 * ε, ε6 = ε4 * ε2
        return SineSeries(
            c1: -ε / 2 + 3 * ε3 / 16 - ε5 / 32,
            c2: -ε2 / 16 + ε4 / 32 - 9 * ε6 / 2048,
            c3: -ε3 / 48 + 3 * ε5 / 256,
            c4: -5 * ε4 / 512 + 3 * ε6 / 512,
            c5: -7 * ε5 / 1280,
            c6: -7 * ε6 / 2048
        )
    }

    /// A2 − 1: the scale of the reduced length's second integral (eq. 42).
    private static func a2m1(_ ε: Double) -> Double {
        let ε2 = ε * ε
        let t = ε2 * (ε2 * (25 * ε2 + 36) + 64) / 256
        return t * (1 - ε) - ε
    }

    /// C2ₗ (eq. 43).
    private static func c2(_ ε: Double) -> SineSeries {
        let ε2 = ε * ε
        let ε3 = ε2 * ε, ε4 = ε2 * ε2, ε5 = ε4 * ε, ε6 = ε4 * ε2
        return SineSeries(
            c1: ε / 2 + ε3 / 16 + ε5 / 32,
            c2: 3 * ε2 / 16 + ε4 / 32 + 35 * ε6 / 2048,
            c3: 5 * ε3 / 48 + 5 * ε5 / 256,
            c4: 35 * ε4 / 512 + 7 * ε6 / 512,
            c5: 63 * ε5 / 1280,
            c6: 77 * ε6 / 2048
        )
    }

    /// A3 and C3ₗ (eqs. 24 and 25) as polynomials in ε, their coefficients evaluated for one
    /// third flattening.
    private struct LongitudeSeries {
        // A3 = 1 − a1 ε − a2 ε² − a3 ε³ − a4 ε⁴ − a5 ε⁵
        let a1, a2, a3, a4, a5: Double
        // C3ₗ = Σₖ cₗₖ εᵏ, k = l…5
        let c11, c12, c13, c14, c15: Double
        let c22, c23, c24, c25: Double
        let c33, c34, c35: Double
        let c44, c45: Double
        let c55: Double

        init(n: Double) {
            let n2 = n * n
            a1 = 1.0 / 2 - n / 2
            a2 = 1.0 / 4 + n / 8 - 3 * n2 / 8
            a3 = 1.0 / 16 + 3 * n / 16 + n2 / 16
            a4 = 3.0 / 64 + n / 32
            a5 = 3.0 / 128
            c11 = 1.0 / 4 - n / 4
            c12 = 1.0 / 8 - n2 / 8
            c13 = 3.0 / 64 + 3 * n / 64 - n2 / 64
            c14 = 5.0 / 128 + n / 64
            c15 = 3.0 / 128
            c22 = 1.0 / 16 - 3 * n / 32 + n2 / 32
            c23 = 3.0 / 64 - n / 32 - 3 * n2 / 64
            c24 = 3.0 / 128 + n / 128
            c25 = 5.0 / 256
            c33 = 5.0 / 192 - 3 * n / 64 + 5 * n2 / 192
            c34 = 3.0 / 128 - 5 * n / 192
            c35 = 7.0 / 512
            c44 = 7.0 / 512 - 7 * n / 256
            c45 = 7.0 / 512
            c55 = 21.0 / 2560
        }

        func a3(_ ε: Double) -> Double {
            1 - ε * (a1 + ε * (a2 + ε * (a3 + ε * (a4 + ε * a5))))
        }

        func c3(_ ε: Double) -> SineSeries {
            let ε2 = ε * ε
            let ε3 = ε2 * ε, ε4 = ε2 * ε2, ε5 = ε4 * ε
            return SineSeries(
                c1: ε * (c11 + ε * (c12 + ε * (c13 + ε * (c14 + ε * c15)))),
                c2: ε2 * (c22 + ε * (c23 + ε * (c24 + ε * c25))),
                c3: ε3 * (c33 + ε * (c34 + ε * c35)),
                c4: ε4 * (c44 + ε * c45),
                c5: ε5 * c55,
                c6: 0
            )
        }
    }

    /// The arc length s12/b of the geodesic spanning σ1…σ2 on the auxiliary sphere.
    private static func arcLength(_ sig12: Double, _ ssig1: Double, _ csig1: Double, _ ssig2: Double, _ csig2: Double, ε: Double) -> Double {
        let series = c1(ε)
        return (1 + a1m1(ε)) * (sig12 + series.sum(ssig2, csig2) - series.sum(ssig1, csig1))
    }

    /// Where Newton's method starts, or the answer itself for a short line.
    private struct Start {
        var salp1, calp1: Double
        /// σ12 when the spherical solution is already exact to rounding.
        var shortLineSigma: Double?
        /// The scale of a short line's distance: b · dnm · σ12.
        var dnm: Double
    }

    /// A first azimuth α1 (Karney 2013, §4–5): the great circle on a sphere scaled to the mean
    /// latitude for short lines, the auxiliary sphere's great circle for most, and the astroid's
    /// solution for nearly antipodal points, where the great circle is a poor guess.
    private static func startingAzimuth(_ ends: Ends, lam12: Double, slam12: Double, clam12: Double) -> Start {
        let (sbet1, cbet1, sbet2, cbet2) = (ends.sbet1, ends.cbet1, ends.sbet2, ends.cbet2)
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1
        let shortLine = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12 = slam12, comg12 = clam12, dnm = 1.0
        if shortLine {
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            (somg12, comg12) = (sin(omg12), cos(omg12))
        }
        var salp1 = cbet2 * somg12
        var calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = (salp1 * salp1 + calp1 * calp1).squareRoot()
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if shortLine, ssig12 < shortLineLimit {
            return Start(salp1: salp1, calp1: calp1, shortLineSigma: atan2(ssig12, csig12), dnm: dnm)
        }
        if csig12 < 0, ssig12 < 6 * abs(n) * .pi * cbet1 * cbet1 {
            // Nearly antipodal: scale the neighbourhood of the antipode so that the geodesics
            // through it follow the astroid (x/(1+k))² + (y/k)² … and solve for α1 there.
            let lam12x = atan2(-slam12, -clam12)  // λ12 − π, at most 0
            let k2 = sbet1 * sbet1 * ep2
            let lamScale = f * cbet1 * longitudeSeries.a3(epsilon(k2)) * .pi
            let betScale = lamScale * cbet1
            let x = lam12x / lamScale
            let y = sbet12a / betScale
            if y > -tol1, x > -1 - 1000 * tol2 {
                // Points on (or all but on) the equator: the astroid degenerates.
                salp1 = min(1, -x)
                calp1 = -(1 - salp1 * salp1).squareRoot()
            } else {
                let k = astroid(x, y)
                let omg12a = lamScale * (-x * k / (1 + k))
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        if salp1 > 0 {
            (salp1, calp1) = normalized(salp1, calp1)
        } else {
            (salp1, calp1) = (1, 0)
        }
        return Start(salp1: salp1, calp1: calp1, shortLineSigma: nil, dnm: dnm)
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (Karney 2013, eq. 55),
    /// in closed form; 0 where y = 0 and the root is not positive.
    private static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = x * x, q = y * y
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else { return 0 }
        let s = p * q / 4
        let r2 = r * r, r3 = r * r2
        let discriminant = s * (s + 2 * r3)
        var u = r
        if discriminant >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -discriminant.squareRoot() : discriminant.squareRoot()
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            let angle = atan2((-discriminant).squareRoot(), -(s + r3))
            u += 2 * r * cos(angle / 3)
        }
        let v = (u * u + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }

    /// One geodesic from the first point at azimuth α1, followed to the second point's latitude.
    private struct Line {
        /// λ12(α1) minus the wanted λ12, in radians.
        var lam12Error: Double
        var sig12, ssig1, csig1, ssig2, csig2: Double
        /// cos α2, the azimuth at the second point.
        var calp2: Double
        var ε: Double
    }

    /// The longitude the geodesic at azimuth α1 reaches at the second point's latitude (eqs. 5,
    /// 8 and 23), compared with the wanted one.
    private static func longitude(_ ends: Ends, salp1: Double, calp1: Double, slam12: Double, clam12: Double) -> Line {
        let (sbet1, cbet1, sbet2, cbet2) = (ends.sbet1, ends.cbet1, ends.sbet2, ends.cbet2)
        // A line along the equator heading east or west is nudged off it, so that the
        // derivative exists.
        let calp1 = sbet1 == 0 && calp1 == 0 ? -tiny : calp1
        let salp0 = salp1 * cbet1
        let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
        let (ssig1, csig1) = normalized(sbet1, calp1 * cbet1)
        let somg1 = salp0 * sbet1, comg1 = calp1 * cbet1
        let calp2: Double
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let squared = (calp1 * cbet1) * (calp1 * cbet1)
                + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2))
            calp2 = squared.squareRoot() / cbet2
        } else {
            calp2 = abs(calp1)
        }
        let (ssig2, csig2) = normalized(sbet2, calp2 * cbet2)
        let somg2 = salp0 * sbet2, comg2 = calp2 * cbet2
        let sig12 = atan2(positive(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        let somg12 = positive(comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        // ω12 − λ12, in one angle for accuracy.
        let eta = atan2(somg12 * clam12 - comg12 * slam12, comg12 * clam12 + somg12 * slam12)
        let ε = epsilon(calp0 * calp0 * ep2)
        let c3 = longitudeSeries.c3(ε)
        let b312 = c3.sum(ssig2, csig2) - c3.sum(ssig1, csig1)
        let domg12 = -f * longitudeSeries.a3(ε) * salp0 * (sig12 + b312)
        return Line(lam12Error: eta + domg12, sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2, calp2: calp2, ε: ε)
    }

    /// dλ12/dα1 along `line`, from its reduced length m12 (eq. 46; m12 by eqs. 38–42).
    private static func derivative(_ ends: Ends, _ line: Line) -> Double {
        if line.calp2 == 0 {
            return -2 * f1 * ends.dn1 / ends.sbet1
        }
        let (ssig1, csig1, ssig2, csig2) = (line.ssig1, line.csig1, line.ssig2, line.csig2)
        let first = c1(line.ε), second = c2(line.ε)
        let a1 = 1 + a1m1(line.ε), a2 = 1 + a2m1(line.ε)
        let b1 = first.sum(ssig2, csig2) - first.sum(ssig1, csig1)
        let b2 = second.sum(ssig2, csig2) - second.sum(ssig1, csig1)
        let j12 = (a1 - a2) * line.sig12 + (a1 * b1 - a2 * b2)
        let m12 = ends.dn2 * (csig1 * ssig2) - ends.dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return m12 * f1 / (line.calp2 * ends.cbet2)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Great-circle geometry on a sphere: the reference every query of the index is
/// exact against.
public enum GeoMath {
    /// The mean Earth radius in metres (IUGG), the sphere all distances use.
    public static let earthRadius: Double = 6_371_008.8
    /// Metres in one degree of latitude on that sphere.
    public static let metresPerDegree: Double = earthRadius * .pi / 180

    /// The haversine distance between two points, in metres.
    ///
    /// This is the reference: the index computes each candidate's distance with
    /// exactly these operations, so its answers are bit-identical to a brute-force
    /// scan that calls this function.
    /// - Parameters:
    ///   - a: One point.
    ///   - b: The other point.
    /// - Returns: The distance in metres.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let origin = Origin(a)
        return origin.distance(toHaversine: origin.haversine(to: b))
    }

    /// A query centre with the values every candidate's distance reuses.
    struct Origin {
        let latitude: Double
        let longitude: Double
        let cosLatitude: Double

        init(_ point: GeoPoint) {
            latitude = point.latitude * .pi / 180
            longitude = point.longitude * .pi / 180
            cosLatitude = cos(latitude)
        }

        /// The haversine term `sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2)`.
        @inline(__always) func haversine(to point: GeoPoint) -> Double {
            let lat = point.latitude * .pi / 180
            let lon = point.longitude * .pi / 180
            let sinLat = GeoMath.sine((lat - latitude) / 2)
            let sinLon = GeoMath.sine((lon - longitude) / 2)
            return sinLat * sinLat + cosLatitude * cos(lat) * sinLon * sinLon
        }

        /// Metres from the haversine term.
        @inline(__always) func distance(toHaversine h: Double) -> Double {
            2 * GeoMath.earthRadius * GeoMath.arcsine(Swift.min(1, h.squareRoot()))
        }
    }

    /// `sin(x)`: below |x| = 0.01 (half-angles of up to 63 km) by its Taylor series,
    /// whose first omitted term is 10⁻²² of the value, so the answer is libm's to the
    /// last bit or one ulp, at a third of the cost; beyond, libm. Radius search spends
    /// most of its time here and in ``arcsine(_:)``.
    @inline(__always) static func sine(_ x: Double) -> Double {
        let x2 = x * x
        guard x2 < 1e-4 else { return sin(x) }
        return x + x * x2 * (-1.0 / 6 + x2 * (1.0 / 120 - x2 * (1.0 / 5_040)))
    }

    /// `asin(x)` for 0 ≤ x ≤ 1: by its Taylor series below 0.01 (distances up to
    /// 127 km), libm beyond; as exact as ``sine(_:)``.
    @inline(__always) static func arcsine(_ x: Double) -> Double {
        let x2 = x * x
        guard x2 < 1e-4 else { return asin(x) }
        return x + x * x2 * (1.0 / 6 + x2 * (3.0 / 40 + x2 * (5.0 / 112 + x2 * (35.0 / 1_152))))
    }

    /// A haversine term no smaller than that of any point within `metres`,
    /// so comparing against it never rejects a point the exact test keeps.
    static func haversineBound(forRadius metres: Double) -> Double {
        let angle = Swift.min(metres / earthRadius, .pi) / 2
        let s = sin(angle)
        return Swift.min(1, s * s * (1 + 1e-9) + 1e-18)
    }
}

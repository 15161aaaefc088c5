import Foundation

@testable import GeoGrid

/// A small, fast, seedable generator (SplitMix64), so every property test replays.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func normal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// Kinds of places the property tests draw points and centres from.
enum Region: CaseIterable {
    case city, uniform, northPole, southPole, antimeridian, duplicate
}

struct PointFactory {
    var rng: SeededGenerator
    let cities: [GeoPoint]
    var recent: [GeoPoint] = []

    init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
        cities = [
            GeoPoint(latitude: 48.8566, longitude: 2.3522)!,
            GeoPoint(latitude: -33.8688, longitude: 151.2093)!,
            GeoPoint(latitude: 64.1466, longitude: -21.9426)!,
            GeoPoint(latitude: -18.1248, longitude: 178.4501)!,  // Suva, near the antimeridian
            GeoPoint(latitude: 69.6492, longitude: 18.9553)!,  // Tromsø
        ]
    }

    mutating func point(in region: Region) -> GeoPoint {
        switch region {
        case .city:
            let c = cities[Int.random(in: 0..<cities.count, using: &rng)]
            let sigma = [0.01, 0.05, 0.2].randomElement(using: &rng)!
            return clamp(c.latitude + rng.normal() * sigma, c.longitude + rng.normal() * sigma * 1.5)
        case .uniform:
            return clamp(asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi, Double.random(in: -180...180, using: &rng))
        case .northPole:
            return clamp(90 - abs(rng.normal()) * 0.5, Double.random(in: -180...180, using: &rng))
        case .southPole:
            return clamp(-90 + abs(rng.normal()) * 0.5, Double.random(in: -180...180, using: &rng))
        case .antimeridian:
            return clamp(Double.random(in: -60...60, using: &rng) * 0.05 + 10, 180 + rng.normal() * 0.3)
        case .duplicate:
            if let p = recent.randomElement(using: &rng) { return p }
            return point(in: .city)
        }
    }

    mutating func anyPoint() -> GeoPoint {
        let p = point(in: Region.allCases.randomElement(using: &rng)!)
        recent.append(p)
        if recent.count > 64 { recent.removeFirst() }
        return p
    }

    func clamp(_ lat: Double, _ lon: Double) -> GeoPoint {
        var lon = lon
        while lon > 180 { lon -= 360 }
        while lon < -180 { lon += 360 }
        return GeoPoint(latitude: min(90, max(-90, lat)), longitude: lon)!
    }
}

/// The reference: a scan of every entry with the public haversine function.
enum BruteForce {
    static func radius(
        _ entries: some Collection<GeoEntry>, center: GeoPoint, radius: Double, filter: GeoFilter = .all, after cursor: GeoCursor? = nil,
        limit: Int = .max
    ) -> [GeoHit] {
        var hits: [GeoHit] = []
        for e in entries where filter.accepts(e.tags) {
            let d = GeoMath.distance(center, e.point)
            guard d <= radius else { continue }
            if let cursor, !(d > cursor.distance || (d == cursor.distance && e.key > cursor.key)) { continue }
            hits.append(GeoHit(entry: e, distance: d))
        }
        hits.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.entry.key < $1.entry.key }
        return Array(hits.prefix(limit))
    }

    /// Everything within `radius`, those sharing more of `preferring`'s bits first, then nearest, then by key.
    static func preferring(_ entries: some Collection<GeoEntry>, center: GeoPoint, radius: Double, filter: GeoFilter, preferring: UInt64)
        -> [GeoHit]
    {
        let shared = { (hit: GeoHit) in (hit.entry.tags.mask & preferring).nonzeroBitCount }
        return Self.radius(entries, center: center, radius: radius, filter: filter).sorted {
            shared($0) != shared($1)
                ? shared($0) > shared($1) : $0.distance != $1.distance ? $0.distance < $1.distance : $0.entry.key < $1.entry.key
        }
    }

    static func box(
        _ entries: some Collection<GeoEntry>, box: GeoBox, filter: GeoFilter = .all, after cursor: GeoCursor? = nil, limit: Int = .max
    ) -> [GeoHit] {
        let center = box.center
        var hits: [GeoHit] = []
        for e in entries where filter.accepts(e.tags) && box.contains(e.point) {
            let d = GeoMath.distance(center, e.point)
            if let cursor, !(d > cursor.distance || (d == cursor.distance && e.key > cursor.key)) { continue }
            hits.append(GeoHit(entry: e, distance: d))
        }
        hits.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.entry.key < $1.entry.key }
        return Array(hits.prefix(limit))
    }
}

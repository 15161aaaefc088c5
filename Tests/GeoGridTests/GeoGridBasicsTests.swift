import Foundation
import Testing

@testable import GeoGrid

@Suite("GeoGrid basics")
struct GeoGridBasicsTests {
    @Test("haversine matches known distances")
    func knownDistances() {
        let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)!
        let london = GeoPoint(latitude: 51.5074, longitude: -0.1278)!
        #expect(abs(GeoMath.distance(paris, london) - 343_556) < 100)
        let a = GeoPoint(latitude: 0, longitude: 0)!
        let b = GeoPoint(latitude: 1, longitude: 0)!
        #expect(abs(GeoMath.distance(a, b) - 111_195.08) < 0.01)
        // Across the antimeridian the short way round.
        let east = GeoPoint(latitude: 0, longitude: 179.9)!
        let west = GeoPoint(latitude: 0, longitude: -179.9)!
        #expect(abs(GeoMath.distance(east, west) - 22_239.0) < 1)
        #expect(GeoMath.distance(paris, paris) == 0)
        #expect(GeoMath.distance(paris, london) == GeoMath.distance(london, paris))
    }

    @Test("the series for small angles agree with libm to an ulp")
    func smallAngleSeries() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200_000 {
            // Spread over every magnitude below and around the series' threshold.
            let x = Double.random(in: 0.5...1, using: &rng) * pow(10, -Double.random(in: 0...9, using: &rng)) * 0.02
            let signed = Bool.random(using: &rng) ? x : -x
            #expect(abs(GeoMath.sine(signed) - sin(signed)) <= signed.ulp, "sine(\(signed))")
            #expect(abs(GeoMath.arcsine(x) - asin(x)) <= x.ulp, "arcsine(\(x))")
        }
        #expect(GeoMath.sine(0) == 0 && GeoMath.arcsine(0) == 0)
        #expect(GeoMath.sine(-0.003) == -GeoMath.sine(0.003))
    }

    @Test("points are validated and rounded to 1e-7 degree")
    func points() {
        #expect(GeoPoint(latitude: 90.0001, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: -180.5) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        let p = GeoPoint(latitude: 12.345678949, longitude: -0.00000004)!
        #expect(p.latitudeE7 == 123_456_789)
        #expect(p.longitudeE7 == 0)
        #expect(GeoBox(minLatitude: 10, minLongitude: 0, maxLatitude: 5, maxLongitude: 1) == nil)
        #expect(GeoBox(minLatitude: 0, minLongitude: 170, maxLatitude: 1, maxLongitude: -170)!.crossesAntimeridian)
    }

    @Test("the nearest k stop early in dense areas")
    func nearestStopsEarly() {
        var factory = PointFactory(seed: 11)
        let center = factory.cities[0]
        let entries = (0..<20_000).map { i in
            GeoEntry(
                key: GeoKey(i),
                point: factory.clamp(center.latitude + factory.rng.normal() * 0.1, center.longitude + factory.rng.normal() * 0.15))
        }
        let grid = GeoGrid(cellSize: 1_250, entries: entries)
        let near = grid.searchWithStatistics(within: 1_000, of: center, limit: 50)
        let far = grid.searchWithStatistics(within: 25_000, of: center, limit: 50)
        let all = grid.searchWithStatistics(within: 25_000, of: center)
        #expect(far.hits == Array(all.hits.prefix(50)))
        // Growing outward examines a small fraction of what the full disc holds.
        #expect(far.statistics.candidates * 10 < all.statistics.candidates)
        #expect(near.hits.count <= 50)
    }

    @Test("ties at the k-th distance keep the smallest keys, in the bulk and in recent changes")
    func tiesKeepSmallestKeys() {
        var rng = SeededGenerator(seed: 5)
        let here = GeoPoint(latitude: 45.5, longitude: 9.2)!
        let near = GeoPoint(latitude: 45.5009, longitude: 9.2)!  // about 100 m north
        // Hundreds at one position, more than twice any limit below, in shuffled key order.
        var keys = Array(0..<600).shuffled(using: &rng)
        let entries = keys.prefix(500).map { GeoEntry(key: GeoKey($0), point: $0 % 3 == 0 ? near : here) }
        let grid = GeoGrid(cellSize: 1_250, entries: Array(entries))
        // The rest arrive later, so they sit among the recent changes.
        for key in keys.suffix(100) { grid.upsert(GeoEntry(key: GeoKey(key), point: key % 3 == 0 ? near : here)) }
        keys.sort()
        let atHere = keys.filter { $0 % 3 != 0 }
        let atNear = keys.filter { $0 % 3 == 0 }
        for limit in [1, 7, 50, 120, 399, 450] {
            for radius in [150.0, 5_000, 25_000] {
                let hits = grid.search(within: radius, of: here, limit: limit)
                let want = Array((atHere + atNear).prefix(limit)).map { GeoKey($0) }
                #expect(hits.map(\.entry.key) == want, "limit \(limit) radius \(radius)")
                #expect(
                    hits.map(\.entry.key) == BruteForce.radius(grid.allEntries, center: here, radius: radius, limit: limit).map(\.entry.key)
                )
            }
        }
    }

    @Test("statistics describe the index")
    func statistics() {
        var factory = PointFactory(seed: 3)
        let entries = (0..<200_000).map { GeoEntry(key: GeoKey($0), point: factory.anyPoint(), tags: GeoTags(mask: 1, time: 1)) }
        let grid = GeoGrid(cellSize: 1_250, entries: entries)
        let stats = grid.statistics
        #expect(stats.entries == 200_000)
        #expect(stats.cells > 0 && stats.cells <= 200_000)
        #expect(stats.largestCell >= 1)
        #expect(stats.pendingChanges == 0)
        // Uniform points over the globe: nearly every entry has a cell of its own, the
        // worst case — 32 (record) + 16 (key) + 8 (key table) + 12 (cell) bytes.
        #expect(stats.bytesPerEntry <= 72, "\(stats)")
        grid.upsert(GeoEntry(key: GeoKey(-1), point: factory.anyPoint()))
        #expect(grid.statistics.pendingChanges == 1)
        grid.compact()
        #expect(grid.statistics.pendingChanges == 0)
        #expect(grid.count == 200_001)
    }

    @Test("replaceAll swaps the whole content")
    func replaceAll() {
        let grid = GeoGrid(entries: [GeoEntry(key: GeoKey(1), point: GeoPoint(latitude: 1, longitude: 1)!)])
        grid.replaceAll(with: [GeoEntry(key: GeoKey(2), point: GeoPoint(latitude: 2, longitude: 2)!)])
        #expect(grid[GeoKey(1)] == nil)
        #expect(grid[GeoKey(2)]?.point == GeoPoint(latitude: 2, longitude: 2))
    }
}

@Suite("GeoGrid under concurrency")
struct GeoGridConcurrencyTests {
    @Test("readers always see a whole batch, never part of one")
    func readersSeeConsistentSnapshots() async {
        let west = GeoPoint(latitude: 45, longitude: 5)!
        let east = GeoPoint(latitude: 45, longitude: 6.2)!
        let middle = GeoPoint(latitude: 45, longitude: 5.6)!
        let count = 1_500
        func batch(at place: GeoPoint, generation: Int) -> [GeoChange] {
            (0..<count).map { i in
                let p = GeoPoint(
                    latitudeE7: place.latitudeE7 + Int32(i % 40) * 1_000, longitudeE7: place.longitudeE7 + Int32(i / 40) * 1_000)
                return .upsert(GeoEntry(key: GeoKey(i), point: p, tags: GeoTags(mask: 1, time: Int64(generation))))
            }
        }
        let grid = GeoGrid(cellSize: 1_000)
        grid.apply(batch(at: west, generation: 0))
        let writes = 300
        await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for generation in 1...writes { grid.apply(batch(at: generation % 2 == 0 ? west : east, generation: generation)) }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var torn = 0
                    for _ in 0..<400 {
                        let hits = grid.search(within: 80_000, of: middle)
                        let generations = Set(hits.map(\.entry.tags.time))
                        let westward = hits.filter { $0.entry.point.longitude < 5.6 }.count
                        if hits.count != count || generations.count != 1 || (westward != 0 && westward != count) { torn += 1 }
                        let nearest = grid.search(within: 80_000, of: middle, limit: 10)
                        if nearest.count != 10 { torn += 1 }
                    }
                    return torn
                }
            }
            var torn = 0
            for await t in group { torn += t }
            #expect(torn == 0)
        }
        #expect(grid.count == count)
    }
}

import Testing

@testable import GeoGrid

@Suite("GeoGrid against brute force")
struct GeoGridPropertyTests {
    static let radii: [Double] = [1, 30, 250, 1_000, 5_000, 25_000, 100_000, 200_000]

    func randomFilter(_ rng: inout SeededGenerator) -> GeoFilter {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .all
        case 1: return GeoFilter(anyOf: 1 << UInt64.random(in: 0..<4, using: &rng))
        case 2: return GeoFilter(timeFrom: Int64.random(in: 0..<500, using: &rng), timeTo: Int64.random(in: 500..<1000, using: &rng))
        case 3: return GeoFilter(traitGroups: SIMD4(1 << UInt64.random(in: 0..<8, using: &rng), 0, 0b11 << 8, 0))
        case 4:
            // Selective: about one entry in ten passes.
            return GeoFilter(anyOf: 0b0111, traitGroups: SIMD4(0b1 << UInt64.random(in: 0..<4, using: &rng), 0b1 << 8, 0, 0b1 << 12))
        default: return GeoFilter(anyOf: 0b0101, timeFrom: 100, timeTo: 900)
        }
    }

    func makeEntries(count: Int, factory: inout PointFactory) -> [GeoEntry] {
        (0..<count).map { i in
            GeoEntry(
                key: GeoKey(high: UInt64.random(in: 0..<4, using: &factory.rng), low: UInt64(i)),
                point: factory.anyPoint(),
                tags: GeoTags(
                    mask: 1 << UInt64.random(in: 0..<4, using: &factory.rng), time: Int64.random(in: 0..<1000, using: &factory.rng),
                    traits: Self.randomTraits(&factory.rng)
                )
            )
        }
    }

    /// A run of level bits (0–7), one of two audience bits (8, 9), and a free bit (12) half the time.
    static func randomTraits(_ rng: inout SeededGenerator) -> UInt64 {
        let low = UInt64.random(in: 0..<8, using: &rng)
        let high = UInt64.random(in: low..<8, using: &rng)
        let levels: UInt64 = ((1 << (high + 1)) - 1) & ~((1 << low) - 1)
        let audience: UInt64 = 1 << UInt64.random(in: 8..<10, using: &rng)
        let free: UInt64 = Bool.random(using: &rng) ? 1 << 12 : 0
        return levels | audience | free
    }

    @Test("a filter's trait groups each need one shared bit; a zero group asks nothing")
    func traitGroups() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<20_000 {
            let traits = UInt64.random(in: 0...UInt64.max, using: &rng) & UInt64.random(in: 0...UInt64.max, using: &rng) & ((1 << 40) - 1)
            let groups = (0..<4).map { _ in
                Bool.random(using: &rng)
                    ? 0 : UInt64.random(in: 0...UInt64.max, using: &rng) & UInt64.random(in: 0...UInt64.max, using: &rng)
            }
            let filter = GeoFilter(traitGroups: SIMD4(groups))
            let want = groups.allSatisfy { $0 == 0 || $0 & traits != 0 }
            #expect(filter.accepts(GeoTags(traits: traits)) == want)
        }
        #expect(GeoFilter(traitGroups: SIMD4(0b10, 0, 0, 0)).accepts(GeoTags(traits: 0b01)) == false)
        #expect(GeoFilter(traitGroups: SIMD4(0b11, 0b100, 0, 0)).accepts(GeoTags(traits: 0b101)))
        #expect(GeoFilter(traitGroups: SIMD4(0b11, 0b100, 0, 0)).accepts(GeoTags(traits: 0b001)) == false)
        #expect(GeoFilter.all.accepts(GeoTags(traits: 0)))
    }

    @Test("an entry of a scope passes only a filter naming it; scope 0 passes every filter; traits and scope never mix")
    func scopes() {
        var rng = SeededGenerator(seed: 11)
        for round in 0..<5_000 {
            // Small sets (scanned) and large ones (searched).
            let size = round % 2 == 0 ? Int.random(in: 0...16, using: &rng) : Int.random(in: 17...200, using: &rng)
            let named = Set((0..<size).map { _ in UInt32.random(in: 1...300, using: &rng) })
            let filter = GeoFilter(scopes: GeoScopes(named))
            let scope = Bool.random(using: &rng) ? 0 : UInt32.random(in: 1...300, using: &rng)
            let traits = UInt64.random(in: 0...((1 << 40) - 1), using: &rng)
            let tags = GeoTags(traits: traits, scope: scope)
            #expect(tags.traits == traits && tags.scope == scope)
            #expect(filter.accepts(tags) == (scope == 0 || named.contains(scope)))
            #expect(
                GeoFilter(traitGroups: SIMD4(traits | 1, 0, 0, 0), scopes: GeoScopes(named)).accepts(
                    GeoTags(traits: traits | 1, scope: scope)) == (scope == 0 || named.contains(scope)))
        }
        var tags = GeoTags(traits: (1 << 40) - 1, scope: GeoTags.maxScope)
        #expect(tags.traits == (1 << 40) - 1 && tags.scope == GeoTags.maxScope)
        tags.scope = 0
        #expect(tags.traits == (1 << 40) - 1 && GeoFilter.all.accepts(tags))
        tags.traits = 0
        tags.scope = 5
        #expect(tags.traits == 0 && !GeoFilter.all.accepts(tags) && GeoFilter(scopes: GeoScopes([5])).accepts(tags))
    }

    @Test("radius queries equal a haversine scan", arguments: [1_250.0, 300, 20_000])
    func radiusQueries(cellSize: Double) {
        var factory = PointFactory(seed: 42 &+ UInt64(cellSize))
        let entries = makeEntries(count: 6_000, factory: &factory)
        let grid = GeoGrid(cellSize: cellSize, entries: entries)
        #expect(grid.count == entries.count)
        for q in 0..<1_500 {
            let center = factory.anyPoint()
            let radius = Self.radii[q % Self.radii.count] * Double.random(in: 0.5...1.5, using: &factory.rng)
            let filter = randomFilter(&factory.rng)
            let limit = [Int.max, 1, 7, 50].randomElement(using: &factory.rng)!
            let got = grid.search(within: radius, of: center, filter: filter, limit: limit)
            let want = BruteForce.radius(entries, center: center, radius: radius, filter: filter, limit: limit)
            #expect(got == want, "query \(q) at \(center) r=\(radius) limit=\(limit)")
            if got != want { return }
        }
    }

    @Test("box queries equal a scan, across the antimeridian too")
    func boxQueries() {
        var factory = PointFactory(seed: 7)
        let entries = makeEntries(count: 5_000, factory: &factory)
        let grid = GeoGrid(cellSize: 2_000, entries: entries)
        for q in 0..<800 {
            let c = factory.anyPoint()
            let h = [0.01, 0.3, 2, 20].randomElement(using: &factory.rng)!
            var west = c.longitude - h * 1.5
            var east = c.longitude + h * 1.5
            if west < -180 { west += 360 }
            if east > 180 { east -= 360 }
            guard
                let box = GeoBox(
                    minLatitude: max(-90, c.latitude - h), minLongitude: west, maxLatitude: min(90, c.latitude + h), maxLongitude: east)
            else {
                Issue.record("bad box")
                return
            }
            let filter = randomFilter(&factory.rng)
            let limit = [Int.max, 5, 50].randomElement(using: &factory.rng)!
            let got = grid.search(in: box, filter: filter, limit: limit)
            let want = BruteForce.box(entries, box: box, filter: filter, limit: limit)
            #expect(got == want, "box query \(q) \(box)")
            if got != want { return }
        }
    }

    @Test(
        "a search preferring some bits ranks by bits shared, then distance, then key; its pages concatenate to the whole answer",
        arguments: [1_250.0, 20_000])
    func preferringQueries(cellSize: Double) {
        var factory = PointFactory(seed: 11 &+ UInt64(cellSize))
        var entries = makeEntries(count: 4_100, factory: &factory)
        // Several bits each, so that entries share from none to all of a query's.
        for i in entries.indices { entries[i].tags.mask = UInt64.random(in: 0..<64, using: &factory.rng) }
        let grid = GeoGrid(cellSize: cellSize, entries: Array(entries[..<4_000]))
        // Some of the base removed and some entries new, all still pending (fewer than
        // the 256 changes that make the grid compact itself).
        for e in entries[..<150] { grid.remove(e.key) }
        for e in entries[4_000...] { grid.upsert(e) }
        #expect(grid.statistics.pendingChanges == 250)
        let live = entries[150...]
        for q in 0..<400 {
            let center = q % 2 == 0 ? factory.point(in: .city) : factory.anyPoint()
            let radius = Self.radii[q % Self.radii.count] * Double.random(in: 0.5...1.5, using: &factory.rng)
            let preferring = UInt64.random(in: 0..<64, using: &factory.rng)
            let filter = q % 3 == 0 ? randomFilter(&factory.rng) : .all
            let want = BruteForce.preferring(live, center: center, radius: radius, filter: filter, preferring: preferring)
            let limit = [1, 7, 50, 5_000].randomElement(using: &factory.rng)!
            var pages: [GeoHit] = []
            var cursor: GeoCursor?
            while true {
                let page = grid.search(within: radius, of: center, filter: filter, preferring: preferring, after: cursor, limit: limit)
                pages += page
                // (A cursor not honoured would repeat a page for ever.)
                guard page.count == limit, pages.count <= want.count, let last = page.last else { break }
                cursor = last.cursor(preferring: preferring)
            }
            #expect(pages == want, "query \(q) at \(center) r=\(radius) preferring=\(preferring) limit=\(limit)")
            if pages != want { return }
            // A cursor sharing more bits than any entry comes before them all; fewer than none, after them all.
            if let first = want.first {
                let before = GeoCursor(distance: first.distance, key: first.entry.key, shared: 65)
                #expect(
                    grid.search(within: radius, of: center, filter: filter, preferring: preferring, after: before, limit: 5_000) == want)
                let after = GeoCursor(distance: 0, key: GeoKey(0), shared: -1)
                #expect(grid.search(within: radius, of: center, filter: filter, preferring: preferring, after: after, limit: 5_000).isEmpty)
            }
        }
    }

    @Test("cursor pages concatenate to the unpaged answer")
    func cursorPaging() {
        var factory = PointFactory(seed: 99)
        let entries = makeEntries(count: 4_000, factory: &factory)
        let grid = GeoGrid(cellSize: 1_000, entries: entries)
        for _ in 0..<100 {
            let center = factory.point(in: .city)
            let radius = [2_000.0, 20_000, 60_000].randomElement(using: &factory.rng)!
            let all = grid.search(within: radius, of: center)
            var pages: [GeoHit] = []
            var cursor: GeoCursor?
            while true {
                let page = grid.search(within: radius, of: center, after: cursor, limit: 13)
                pages += page
                guard page.count == 13, let last = page.last else { break }
                cursor = last.cursor
            }
            #expect(pages == all)
        }
    }

    @Test("pages neither skip nor repeat while the index changes underneath")
    func pagingWhileChanging() {
        var factory = PointFactory(seed: 5)
        var entries = makeEntries(count: 3_000, factory: &factory)
        let grid = GeoGrid(cellSize: 1_000, entries: entries)
        let center = factory.cities[0]
        let stable = Set(entries.map(\.key))
        var seen: [GeoKey] = []
        var cursor: GeoCursor?
        var next = 1_000_000
        while true {
            let page = grid.search(within: 60_000, of: center, after: cursor, limit: 20)
            seen += page.map(\.entry.key)
            // Between pages others are added and removed; the original ones stay put.
            for _ in 0..<5 {
                let e = GeoEntry(key: GeoKey(next), point: factory.point(in: .city))
                next += 1
                grid.upsert(e)
                entries.append(e)
            }
            if let victim = entries.last(where: { !stable.contains($0.key) && grid[$0.key] != nil }) { grid.remove(victim.key) }
            guard page.count == 20, let last = page.last else { break }
            cursor = last.cursor
        }
        #expect(Set(seen).count == seen.count, "a page repeated an entry")
        let expected = BruteForce.radius(entries.filter { stable.contains($0.key) }, center: center, radius: 60_000).map(\.entry.key)
        #expect(Set(expected).isSubset(of: Set(seen)), "a page skipped an entry that never moved")
    }

    @Test("interleaved inserts, moves and removes keep every answer exact")
    func mutations() {
        var factory = PointFactory(seed: 2024)
        let grid = GeoGrid(cellSize: 1_250)
        var truth: [GeoKey: GeoEntry] = [:]
        for round in 0..<40 {
            var batch: [GeoChange] = []
            for _ in 0..<400 {
                let key = GeoKey(Int.random(in: 0..<3_000, using: &factory.rng))
                if Int.random(in: 0..<5, using: &factory.rng) == 0 {
                    batch.append(.remove(key))
                    truth[key] = nil
                } else {
                    let e = GeoEntry(key: key, point: factory.anyPoint(), tags: GeoTags(mask: 1, time: Int64(round)))
                    batch.append(.upsert(e))
                    truth[key] = e
                }
            }
            if round % 2 == 0 {
                grid.apply(batch)
            } else {
                for change in batch {
                    if case .upsert(let e) = change { grid.upsert(e) } else if case .remove(let k) = change { grid.remove(k) }
                }
            }
            #expect(grid.count == truth.count)
            for key in truth.keys.prefix(50) { #expect(grid[key] == truth[key]) }
            for _ in 0..<40 {
                let center = factory.anyPoint()
                let radius = Self.radii.randomElement(using: &factory.rng)!
                let limit = [Int.max, 10].randomElement(using: &factory.rng)!
                let got = grid.search(within: radius, of: center, limit: limit)
                let want = BruteForce.radius(truth.values, center: center, radius: radius, limit: limit)
                #expect(got == want)
                if got != want { return }
            }
        }
        #expect(Set(grid.allEntries.map(\.key)) == Set(truth.keys))
    }

    @Test("a disc around a pole takes every longitude")
    func poles() {
        let points = stride(from: -180.0, to: 180.0, by: 7.5).flatMap { lon in
            [89.99, 89.5, 88.0, -89.9].map { GeoPoint(latitude: $0, longitude: lon)! }
        }
        let entries = points.enumerated().map { GeoEntry(key: GeoKey($0.offset), point: $0.element) }
        let grid = GeoGrid(cellSize: 5_000, entries: entries)
        let pole = GeoPoint(latitude: 90, longitude: 0)!
        for radius in [2_000.0, 60_000, 200_000, 500_000] {
            #expect(grid.search(within: radius, of: pole) == BruteForce.radius(entries, center: pole, radius: radius))
        }
        let south = GeoPoint(latitude: -89.95, longitude: 120)!
        #expect(grid.search(within: 20_000, of: south) == BruteForce.radius(entries, center: south, radius: 20_000))
    }

    @Test("empty regions and empty index answer nothing")
    func empty() {
        let grid = GeoGrid()
        #expect(grid.search(within: 200_000, of: GeoPoint(latitude: 0, longitude: 0)!).isEmpty)
        grid.upsert(GeoEntry(key: GeoKey(1), point: GeoPoint(latitude: 10, longitude: 10)!))
        #expect(grid.search(within: 1_000, of: GeoPoint(latitude: -10, longitude: -10)!).isEmpty)
        #expect(grid.search(within: 1, of: GeoPoint(latitude: 10, longitude: 10)!).map(\.entry.key) == [GeoKey(1)])
        #expect(grid.remove(GeoKey(1)) != nil)
        #expect(grid.remove(GeoKey(1)) == nil)
        #expect(grid.count == 0)
    }
}

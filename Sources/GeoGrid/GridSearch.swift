/// Counters of one query, for measuring how much work an answer took.
public struct GeoSearchStats: Sendable, Hashable {
    /// Entries whose position was looked at.
    public var candidates = 0
    /// Entries returned.
    public var results = 0
    /// Cells whose entries were scanned.
    public var cells = 0
    /// Radius steps taken by a nearest-k search.
    public var steps = 0
}

/// One query over one snapshot, inside `GridBase.withStorage`.
struct GridScan {
    let layout: GridLayout
    let storage: StorageView
    let delta: GridDelta
    let filter: GeoFilter
    let cursor: GeoCursor?
    var best: BestSet
    /// For a search that prefers some bits, its candidates (and `best` holds none).
    var tiers: Tiers?
    var stats = GeoSearchStats()
    private let hasRemoved: Bool
    private let hasNew: Bool

    init(snapshot: GridSnapshot, storage: StorageView, filter: GeoFilter, cursor: GeoCursor?, limit: Int, preferring: UInt64? = nil) {
        self.layout = snapshot.base.layout
        self.storage = storage
        self.delta = snapshot.delta
        self.filter = filter
        self.cursor = cursor
        hasRemoved = delta.removed.count > 0
        hasNew = !delta.entries.isEmpty
        let keys = KeySource(base: storage.keys, delta: delta.entries)
        if let preferring {
            // The walk covers the whole radius: a farther entry may share more.
            best = BestSet(limit: .max, keys: keys)
            tiers = Tiers(preferring: preferring, limit: Swift.max(0, limit), keys: keys, cursor: cursor)
        } else {
            best = BestSet(limit: Swift.max(0, limit), keys: keys)
        }
    }

    /// Runs `search` on `snapshot` and returns its hits, nearest first (by tier
    /// first when `preferring` is given), and counters.
    static func run(
        on snapshot: GridSnapshot, filter: GeoFilter, cursor: GeoCursor?, limit: Int, preferring: UInt64? = nil,
        _ search: (inout GridScan) -> Void
    ) -> (hits: [GeoHit], statistics: GeoSearchStats) {
        snapshot.base.withStorage { storage in
            var scan = GridScan(snapshot: snapshot, storage: storage, filter: filter, cursor: cursor, limit: limit, preferring: preferring)
            search(&scan)
            let found = scan.tiers != nil ? scan.tiers!.sorted() : scan.best.sorted()
            let hits = found.map { scan.hit($0) }
            scan.stats.results = hits.count
            return (hits, scan.stats)
        }
    }

    /// The key of the entry at `slot`, a position in the base (≥ 0) or `~i` for
    /// entry `i` of the delta: a scan reads a key only for the candidates it keeps.
    @inline(__always) func key(at slot: Int) -> GeoKey { best.keys(slot) }

    /// The answer's form of a kept candidate.
    func hit(_ found: Found) -> GeoHit {
        let record = found.slot >= 0 ? storage.records[found.slot] : delta.entries[~found.slot].record
        return GeoHit(entry: GeoEntry(key: key(at: found.slot), point: record.point, tags: record.tags), distance: found.distance)
    }

    /// Offers every live entry in columns `first...last` of `row` to `test`, with
    /// its slot (see `key(at:)`).
    @inline(__always) mutating func scan(row: Int, columns first: Int, _ last: Int, test: (inout GridScan, Record, Int) -> Void) {
        let storage = self.storage
        let lastKey = GridLayout.key(row: row, column: last)
        var (cell, end) = storage.cells(row: row, from: first)
        while cell < end && storage.cellKeys[cell] <= lastKey {
            stats.cells += 1
            for p in Int(storage.cellStarts[cell])..<Int(storage.cellStarts[cell + 1]) {
                if hasRemoved && delta.removed.contains(p) { continue }
                test(&self, storage.records[p], p)
            }
            cell += 1
        }
        if hasNew {
            var i = delta.firstIndex(atOrAfter: GridLayout.key(row: row, column: first))
            while i < delta.entries.count && delta.entries[i].cell <= lastKey {
                test(&self, delta.entries[i].record, ~i)
                i += 1
            }
        }
    }
}

/// Radius search: every entry within `radius` of `origin`, nearest first.
///
/// With a limit it grows a disc from the centre in steps, scanning only the cells
/// each step adds (per row, the columns newly in reach on either side), and stops
/// as soon as the limit is met by entries no farther than the disc just finished:
/// nothing outside that disc can be nearer.
struct RadiusSearch {
    let origin: GeoPoint
    let center: GeoMath.Origin
    let radius: Double

    init(origin: GeoPoint, radius: Double) {
        self.origin = origin
        self.center = GeoMath.Origin(origin)
        self.radius = radius
    }

    func run(_ scan: inout GridScan) {
        let layout = scan.layout
        let maxAngle = Swift.min(radius / GeoMath.earthRadius, .pi)
        let rows = layout.rowRange(origin: origin, angle: maxAngle)
        let centreRow = layout.row(latitude: origin.latitude)
        var visited = [ColumnSpan?](repeating: nil, count: rows.count)
        var reach = Reach(radius: radius)
        var step = radius
        if scan.best.limit != .max {
            if let cursor = scan.cursor {
                step = Swift.min(radius, cursor.distance + layout.cellSize)
            } else {
                // First disc: the one that would hold k at the density of the
                // centre's cell; when that cell is empty, at the density of the
                // centre's row within 8 cells either side (half an entry when there
                // is none, so an empty stretch goes to the whole radius at once
                // rather than in steps that each cost every row).
                let column = layout.column(longitude: origin.longitude, row: centreRow)
                var sample = Double(scan.storage.count(inRow: centreRow, columns: column, column))
                var area = layout.cellSize * layout.cellSize
                if sample == 0 {
                    let columns = Int(scan.storage.columns[centreRow])
                    let first = Swift.max(0, column - 8)
                    let last = Swift.min(columns - 1, column + 8)
                    sample = Swift.max(0.5, Double(scan.storage.count(inRow: centreRow, columns: first, last)))
                    area *= Double(last - first + 1)
                }
                let guess = (Double(scan.best.limit) * area / (.pi * sample)).squareRoot()
                step = Swift.min(radius, Swift.max(layout.cellSize / 2, guess))
            }
        }
        while true {
            scan.stats.steps += 1
            var disc = Swift.min(step, reach.metres)
            var cap = GridLayout.Cap(origin: origin, angle: disc / GeoMath.earthRadius)
            let stepRows = layout.rowRange(origin: origin, angle: Swift.min(disc / GeoMath.earthRadius, .pi))
            // Rows from the centre outward, the nearer side first, so that the k-th
            // distance is known early and narrows every row after it.
            var north = centreRow
            var south = centreRow - 1
            while true {
                let northGap =
                    north <= stepRows.upperBound ? Swift.max(0, layout.latitudes(ofRow: north).south - origin.latitude) : .infinity
                let southGap =
                    south >= stepRows.lowerBound ? Swift.max(0, origin.latitude - layout.latitudes(ofRow: south).north) : .infinity
                let gap = Swift.min(northGap, southGap)
                // Latitude apart bounds distance apart from below (with a centimetre
                // for the rounding of row edges and distances).
                guard gap * GeoMath.metresPerDegree <= disc * (1 + 1e-9) + 0.01 else { break }
                let row: Int
                if scan.best.limit == .max {
                    // Everything within the radius: every row, south to north, in memory order.
                    if south >= stepRows.lowerBound {
                        row = south
                        south -= 1
                    } else {
                        row = north
                        north += 1
                    }
                } else if northGap <= southGap {
                    row = north
                    north += 1
                } else {
                    row = south
                    south -= 1
                }
                visit(&scan, row: row, slot: row - rows.lowerBound, cap: &cap, visited: &visited, reach: reach)
                if scan.best.hasNewBound {
                    let worst = scan.best.worstDistance()
                    if worst < disc * 0.9 {
                        disc = worst
                        reach.narrow(to: worst)
                        cap = GridLayout.Cap(origin: origin, angle: disc / GeoMath.earthRadius)
                    }
                }
            }
            if step >= radius { return }
            let found = scan.best.items.count
            if scan.best.isFull {
                // The k-th distance so far bounds the answer: one more step settles it.
                let worst = scan.best.worstDistance()
                if worst <= step { return }
                step = Swift.min(radius, worst)
            } else {
                // Guess the radius that holds k from the density seen so far, so a
                // sparse region takes a few steps rather than a dozen.
                let guess = found == 0 ? step * 8 : step * (Double(scan.best.limit) / Double(found)).squareRoot() * 1.3
                step = Swift.min(radius, Swift.max(step * 1.6, guess))
            }
        }
    }

    /// Scans the columns of `row` in `cap` that earlier steps did not.
    @inline(__always) private func visit(
        _ scan: inout GridScan, row: Int, slot: Int, cap: inout GridLayout.Cap, visited: inout [ColumnSpan?], reach: Reach
    ) {
        guard let span = scan.layout.columnSpan(row: row, columns: Int(scan.storage.columns[row]), cap: &cap) else { return }
        var runs = ColumnRuns()
        if let seen = visited[slot] {
            if seen.coversRow { return }
            if span.coversRow {
                // Everything but what was seen: the complement, wrapped.
                if seen.upper + 1 <= seen.lower - 1 + span.count {
                    ColumnSpan(lower: seen.upper + 1, upper: seen.lower - 1 + span.count, count: span.count).wrapped { runs.append($0, $1) }
                }
                visited[slot] = span
            } else {
                // Spans of one row are centred on the same longitude: the wider holds the narrower.
                if span.lower < seen.lower {
                    ColumnSpan(lower: span.lower, upper: seen.lower - 1, count: span.count).wrapped { runs.append($0, $1) }
                }
                if span.upper > seen.upper {
                    ColumnSpan(lower: seen.upper + 1, upper: span.upper, count: span.count).wrapped { runs.append($0, $1) }
                }
                visited[slot] = ColumnSpan(
                    lower: Swift.min(span.lower, seen.lower), upper: Swift.max(span.upper, seen.upper), count: span.count)
            }
        } else {
            span.wrapped { runs.append($0, $1) }
            visited[slot] = span
        }
        // One call site each, so each candidate test is compiled (and inlined) once.
        if scan.tiers != nil {
            for i in 0..<runs.count {
                let run = runs[i]
                scanColumnsByTier(&scan, row: row, run.first, run.last, reach: reach)
            }
        } else {
            for i in 0..<runs.count {
                let run = runs[i]
                scanColumns(&scan, row: row, run.first, run.last, reach: reach)
            }
        }
    }

    /// How far a candidate may be and still matter: the radius, then the k-th
    /// distance once k are held, as a haversine term and a latitude difference that
    /// reject most candidates beyond it before their distance is computed.
    struct Reach {
        private(set) var metres: Double
        private(set) var haversine: Double
        private(set) var latitudeE7: Int64

        init(radius: Double) {
            metres = radius
            haversine = 0
            latitudeE7 = 0
            narrow(to: radius)
        }

        mutating func narrow(to metres: Double) {
            self.metres = metres
            haversine = GeoMath.haversineBound(forRadius: metres)
            let angle = Swift.min(metres / GeoMath.earthRadius, .pi)
            latitudeE7 = Int64((angle * 180 / .pi * (1 + 1e-9) + 1e-7) * 1e7) + 1
        }
    }

    @inline(__always) private func scanColumns(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int, reach: Reach) {
        let originLatitude = Int64(origin.latitudeE7)
        let center = self.center
        let radius = self.radius
        scan.scan(row: row, columns: first, last) { scan, record, slot in
            scan.stats.candidates += 1
            guard abs(Int64(record.latitudeE7) - originLatitude) <= reach.latitudeE7, scan.filter.accepts(record.tags) else { return }
            let h = center.haversine(to: record.point)
            guard h <= reach.haversine else { return }
            let d = center.distance(toHaversine: h)
            guard d <= radius else { return }
            if let cursor = scan.cursor, !cursor.precedes(distance: d, key: scan.key(at: slot)) { return }
            scan.best.offer(distance: d, slot: slot)
        }
    }
    /// ``scanColumns(_:row:_:_:reach:)`` for a search that prefers some bits: the
    /// radius is the only reach (a farther entry may be of a better tier), and a
    /// candidate of a tier that cannot make the answer is turned away first.
    @inline(__always) private func scanColumnsByTier(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int, reach: Reach) {
        let originLatitude = Int64(origin.latitudeE7)
        let center = self.center
        let radius = self.radius
        scan.scan(row: row, columns: first, last) { scan, record, slot in
            scan.stats.candidates += 1
            let tier = scan.tiers.unsafelyUnwrapped.tier(of: record.tags)
            guard tier < scan.tiers.unsafelyUnwrapped.cutoff, tier >= scan.tiers.unsafelyUnwrapped.cursorTier,
                abs(Int64(record.latitudeE7) - originLatitude) <= reach.latitudeE7, scan.filter.accepts(record.tags)
            else { return }
            let h = center.haversine(to: record.point)
            guard h <= reach.haversine else { return }
            let d = center.distance(toHaversine: h)
            guard d <= radius else { return }
            if tier == scan.tiers.unsafelyUnwrapped.cursorTier, let cursor = scan.cursor,
                !cursor.precedes(distance: d, key: scan.key(at: slot))
            {
                return
            }
            scan.tiers!.offer(tier: tier, distance: d, slot: slot)
        }
    }
}

/// Box search: every entry inside a latitude/longitude box, nearest to the box's
/// centre first.
struct BoxSearch {
    let box: GeoBox
    let center: GeoMath.Origin

    init(box: GeoBox) {
        self.box = box
        self.center = GeoMath.Origin(box.center)
    }

    func run(_ scan: inout GridScan) {
        let layout = scan.layout
        for row in layout.row(latitude: box.minLatitude)...layout.row(latitude: box.maxLatitude) {
            if box.crossesAntimeridian {
                let west = layout.column(longitude: box.minLongitude, row: row)
                let east = layout.column(longitude: box.maxLongitude, row: row)
                let last = Int(layout.columns[row]) - 1
                if east >= west {
                    // Wide cells (near a pole) hold both edges: the two runs overlap.
                    scanColumns(&scan, row: row, 0, last)
                } else {
                    scanColumns(&scan, row: row, west, last)
                    scanColumns(&scan, row: row, 0, east)
                }
            } else {
                scanColumns(
                    &scan, row: row, layout.column(longitude: box.minLongitude, row: row),
                    layout.column(longitude: box.maxLongitude, row: row))
            }
        }
    }

    @inline(__always) private func scanColumns(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int) {
        let box = self.box
        let center = self.center
        scan.scan(row: row, columns: first, last) { scan, record, slot in
            scan.stats.candidates += 1
            guard scan.filter.accepts(record.tags), box.contains(record.point) else { return }
            let d = center.distance(toHaversine: center.haversine(to: record.point))
            if let cursor = scan.cursor, !cursor.precedes(distance: d, key: scan.key(at: slot)) { return }
            scan.best.offer(distance: d, slot: slot)
        }
    }
}

/// A candidate that passed every test, kept until the answer is sorted.
struct Found {
    var distance: Double
    var key: GeoKey
    var record: Record

    @inline(__always) static func before(_ a: Found, _ b: Found) -> Bool {
        a.distance < b.distance || (a.distance == b.distance && a.key < b.key)
    }

    var hit: GeoHit {
        GeoHit(entry: GeoEntry(key: key, point: record.point, tags: record.tags), distance: distance)
    }
}

/// The best `limit` candidates seen so far: everything when there is no limit,
/// otherwise a max-heap whose top is the worst of the kept ones.
struct BestSet {
    let limit: Int
    private(set) var items: [Found] = []

    init(limit: Int) {
        self.limit = limit
        if limit < 4096 { items.reserveCapacity(limit) }
    }

    var isFull: Bool { items.count >= limit }
    /// The distance a new candidate must beat once the set is full.
    var worstDistance: Double { items.isEmpty ? .infinity : items[0].distance }

    @inline(__always) mutating func offer(_ found: Found) {
        if limit == .max { items.append(found); return }
        if items.count < limit {
            items.append(found)
            siftUp(items.count - 1)
        } else if Found.before(found, items[0]) {
            items[0] = found
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) >> 1
            guard Found.before(items[parent], items[child]) else { return }
            items.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let n = items.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { return }
            var largest = left
            if left + 1 < n && Found.before(items[left], items[left + 1]) { largest = left + 1 }
            guard Found.before(items[parent], items[largest]) else { return }
            items.swapAt(parent, largest)
            parent = largest
        }
    }

    func sorted() -> [GeoHit] {
        items.sorted(by: Found.before).map(\.hit)
    }
}

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

/// One query over one snapshot.
struct GridScan {
    let snapshot: GridSnapshot
    let filter: GeoFilter
    let cursor: GeoCursor?
    var best: BestSet
    var stats = GeoSearchStats()

    init(snapshot: GridSnapshot, filter: GeoFilter, cursor: GeoCursor?, limit: Int) {
        self.snapshot = snapshot
        self.filter = filter
        self.cursor = cursor
        self.best = BestSet(limit: Swift.max(0, limit))
    }

    /// Offers every live entry in columns `first...last` of `row` to `test`.
    @inline(__always) mutating func scan(row: Int, columns first: Int, _ last: Int, test: (inout GridScan, Record, GeoKey) -> Void) {
        let base = snapshot.base
        let delta = snapshot.delta
        let lastKey = GridLayout.key(row: row, column: last)
        let removed = delta.removed.count > 0
        var (cell, end) = base.cells(row: row, from: first)
        while cell < end && base.cellKeys[cell] <= lastKey {
            stats.cells += 1
            for p in Int(base.cellStarts[cell])..<Int(base.cellStarts[cell + 1]) {
                if removed && delta.removed.contains(p) { continue }
                test(&self, base.records[p], base.keys[p])
            }
            cell += 1
        }
        if !delta.entries.isEmpty {
            var i = delta.firstIndex(atOrAfter: GridLayout.key(row: row, column: first))
            while i < delta.entries.count && delta.entries[i].cell <= lastKey {
                test(&self, delta.entries[i].record, delta.entries[i].key)
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
        let layout = scan.snapshot.base.layout
        let maxAngle = Swift.min(radius / GeoMath.earthRadius, .pi)
        let rows = layout.rowRange(origin: origin, angle: maxAngle)
        var visited = [ColumnSpan?](repeating: nil, count: rows.count)
        let bound = GeoMath.haversineBound(forRadius: radius)
        let latitudeSlackE7 = Int64((maxAngle * 180 / .pi * (1 + 1e-9) + 1e-7) * 1e7) + 1
        var step = scan.best.limit == .max ? radius : Swift.min(radius, Swift.max(layout.cellSize, (scan.cursor?.distance ?? 0) + layout.cellSize))
        while true {
            scan.stats.steps += 1
            let angle = Swift.min(step / GeoMath.earthRadius, .pi)
            for row in layout.rowRange(origin: origin, angle: angle) {
                guard let span = layout.columnSpan(row: row, origin: origin, angle: angle) else { continue }
                let slot = row - rows.lowerBound
                if let seen = visited[slot] {
                    if seen.coversRow { continue }
                    if span.coversRow {
                        // Everything but what was seen: the complement, wrapped.
                        if seen.upper + 1 <= seen.lower - 1 + span.count {
                            ColumnSpan(lower: seen.upper + 1, upper: seen.lower - 1 + span.count, count: span.count)
                                .wrapped { scanColumns(&scan, row: row, $0, $1, bound: bound, slack: latitudeSlackE7) }
                        }
                    } else {
                        if span.lower < seen.lower {
                            ColumnSpan(lower: span.lower, upper: seen.lower - 1, count: span.count)
                                .wrapped { scanColumns(&scan, row: row, $0, $1, bound: bound, slack: latitudeSlackE7) }
                        }
                        if span.upper > seen.upper {
                            ColumnSpan(lower: seen.upper + 1, upper: span.upper, count: span.count)
                                .wrapped { scanColumns(&scan, row: row, $0, $1, bound: bound, slack: latitudeSlackE7) }
                        }
                    }
                } else {
                    span.wrapped { scanColumns(&scan, row: row, $0, $1, bound: bound, slack: latitudeSlackE7) }
                }
                visited[slot] = span
            }
            if step >= radius { return }
            if scan.best.isFull && scan.best.worstDistance <= step { return }
            step = Swift.min(radius, step * 1.6)
        }
    }

    @inline(__always) private func scanColumns(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int, bound: Double, slack: Int64) {
        let originLatitude = Int64(origin.latitudeE7)
        let center = self.center, radius = self.radius
        scan.scan(row: row, columns: first, last) { scan, record, key in
            scan.stats.candidates += 1
            guard abs(Int64(record.latitudeE7) - originLatitude) <= slack, scan.filter.accepts(record.tags) else { return }
            let h = center.haversine(to: record.point)
            guard h <= bound else { return }
            let d = center.distance(toHaversine: h)
            guard d <= radius else { return }
            if let cursor = scan.cursor, !cursor.precedes(distance: d, key: key) { return }
            scan.best.offer(Found(distance: d, key: key, record: record))
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
        let layout = scan.snapshot.base.layout
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
                scanColumns(&scan, row: row, layout.column(longitude: box.minLongitude, row: row), layout.column(longitude: box.maxLongitude, row: row))
            }
        }
    }

    @inline(__always) private func scanColumns(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int) {
        let box = self.box, center = self.center
        scan.scan(row: row, columns: first, last) { scan, record, key in
            scan.stats.candidates += 1
            guard scan.filter.accepts(record.tags), box.contains(record.point) else { return }
            let d = center.distance(toHaversine: center.haversine(to: record.point))
            if let cursor = scan.cursor, !cursor.precedes(distance: d, key: key) { return }
            scan.best.offer(Found(distance: d, key: key, record: record))
        }
    }
}

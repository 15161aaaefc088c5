/// A candidate that passed every test, kept until the answer is sorted.
struct Found {
    var distance: Double
    var key: GeoKey
    var record: Record

    var hit: GeoHit {
        GeoHit(entry: GeoEntry(key: key, point: record.point, tags: record.tags), distance: distance)
    }
}

/// The best `limit` candidates seen so far: everything when there is no limit,
/// otherwise kept in slots of `items` ordered by a max-heap of small
/// (distance, slot) pairs whose top is the worst kept one — sifting moves 16
/// bytes, not 48-byte candidates.
struct BestSet {
    let limit: Int
    private(set) var items: [Found] = []
    private var heap: [(distance: Double, slot: Int)] = []

    init(limit: Int) {
        self.limit = limit
        if limit < 4096 {
            items.reserveCapacity(limit)
            heap.reserveCapacity(limit)
        }
    }

    var isFull: Bool { items.count >= limit }
    /// The distance a new candidate must beat once the set is full.
    var worstDistance: Double { heap.isEmpty ? .infinity : heap[0].distance }

    @inline(__always) private func before(_ a: (distance: Double, slot: Int), _ b: (distance: Double, slot: Int)) -> Bool {
        a.distance < b.distance || (a.distance == b.distance && items[a.slot].key < items[b.slot].key)
    }

    @inline(__always) mutating func offer(_ found: Found) {
        if limit == .max { items.append(found); return }
        if items.count < limit {
            heap.append((found.distance, items.count))
            items.append(found)
            siftUp(heap.count - 1)
        } else if found.distance < heap[0].distance || (found.distance == heap[0].distance && found.key < items[heap[0].slot].key) {
            items[heap[0].slot] = found
            heap[0].distance = found.distance
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) >> 1
            guard before(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let n = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { return }
            var largest = left
            if left + 1 < n && before(heap[left], heap[left + 1]) { largest = left + 1 }
            guard before(heap[parent], heap[largest]) else { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }

    /// The kept candidates as hits, nearest first, ties by key.
    func sorted() -> [GeoHit] {
        if items.count < 128 {
            // Sort small (distance, index) pairs rather than whole candidates.
            let items = self.items
            var order = items.indices.map { (distance: items[$0].distance, index: $0) }
            order.sort { $0.distance != $1.distance ? $0.distance < $1.distance : items[$0.index].key < items[$1.index].key }
            return order.map { items[$0.index].hit }
        }
        return DistanceOrder.indices(of: items).map { items[Int($0)].hit }
    }
}

/// Orders many candidates in linear time, for "everything within R" answers that
/// hold thousands of hits: a comparison sort of 48-byte candidates cost more than
/// the scan that found them.
enum DistanceOrder {
    /// The indices of `items` by distance, then key.
    ///
    /// A least-significant-digit radix sort of the distances' bit patterns (for
    /// non-negative doubles the pattern orders as the value does), one byte per
    /// pass, skipping the bytes every distance shares; equal distances, rare, are
    /// then ordered by key.
    static func indices(of items: [Found]) -> [UInt32] {
        let n = items.count
        var keys = items.map(\.distance.bitPattern)
        var order = (0..<UInt32(n)).map { $0 }
        var counts = [Int](repeating: 0, count: 8 * 256)
        counts.withUnsafeMutableBufferPointer { counts in
            for key in keys {
                for byte in 0..<8 { counts[byte << 8 | Int(truncatingIfNeeded: key >> (byte << 3)) & 0xFF] += 1 }
            }
        }
        var spareKeys = keys, spareOrder = order
        var offsets = [Int](repeating: 0, count: 256)
        for byte in 0..<8 {
            let shift = UInt64(byte << 3)
            guard counts[byte << 8 | Int(truncatingIfNeeded: keys[0] >> shift) & 0xFF] != n else { continue }
            var running = 0
            for digit in 0..<256 {
                offsets[digit] = running
                running += counts[byte << 8 | digit]
            }
            keys.withUnsafeBufferPointer { keys in
                order.withUnsafeBufferPointer { order in
                    spareKeys.withUnsafeMutableBufferPointer { toKeys in
                        spareOrder.withUnsafeMutableBufferPointer { toOrder in
                            offsets.withUnsafeMutableBufferPointer { offsets in
                                for i in 0..<n {
                                    let digit = Int(truncatingIfNeeded: keys[i] >> shift) & 0xFF
                                    let slot = offsets[digit]
                                    toKeys[slot] = keys[i]
                                    toOrder[slot] = order[i]
                                    offsets[digit] = slot + 1
                                }
                            }
                        }
                    }
                }
            }
            swap(&keys, &spareKeys)
            swap(&order, &spareOrder)
        }
        var start = 0
        while start < n {
            var end = start + 1
            while end < n && keys[end] == keys[start] { end += 1 }
            if end - start > 1 { order[start..<end].sort { items[Int($0)].key < items[Int($1)].key } }
            start = end
        }
        return order
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
        // Buffer pointers: no retain, release or bounds check per candidate.
        base.records.withUnsafeBufferPointer { records in
            base.keys.withUnsafeBufferPointer { keys in
                base.cellKeys.withUnsafeBufferPointer { cellKeys in
                    base.cellStarts.withUnsafeBufferPointer { cellStarts in
                        while cell < end && cellKeys[cell] <= lastKey {
                            stats.cells += 1
                            for p in Int(cellStarts[cell])..<Int(cellStarts[cell + 1]) {
                                if removed && delta.removed.contains(p) { continue }
                                test(&self, records[p], keys[p])
                            }
                            cell += 1
                        }
                    }
                }
            }
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
        var step = radius
        if scan.best.limit != .max {
            if let cursor = scan.cursor {
                step = Swift.min(radius, cursor.distance + layout.cellSize)
            } else {
                // First disc: the one that would hold k at the density of the
                // centre's cell (often one more step settles the answer); one cell
                // when that cell is empty. Every step costs its rows and cells, so
                // a good first guess matters more than a generous one.
                let sample = scan.snapshot.base.count(inCellOf: origin)
                let guess = sample == 0 ? layout.cellSize
                    : (Double(scan.best.limit) * layout.cellSize * layout.cellSize / (.pi * Double(sample))).squareRoot()
                step = Swift.min(radius, Swift.max(layout.cellSize / 2, guess))
            }
        }
        while true {
            scan.stats.steps += 1
            let angle = Swift.min(step / GeoMath.earthRadius, .pi)
            var cap = GridLayout.Cap(origin: origin, angle: angle)
            for row in layout.rowRange(origin: origin, angle: angle) {
                guard let span = layout.columnSpan(row: row, cap: &cap) else { continue }
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
            let found = scan.best.items.count
            if scan.best.isFull {
                // The k-th distance so far bounds the answer: one more step settles it.
                if scan.best.worstDistance <= step { return }
                step = Swift.min(radius, scan.best.worstDistance)
            } else {
                // Guess the radius that holds k from the density seen so far, so a
                // sparse region takes a few steps rather than a dozen.
                let guess = found == 0 ? step * 8 : step * (Double(scan.best.limit) / Double(found)).squareRoot() * 1.3
                step = Swift.min(radius, Swift.max(step * 1.6, guess))
            }
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

/// Up to four runs of columns of one row (a span and its complement, each wrapped
/// at most once), kept without an allocation.
struct ColumnRuns {
    private var runs: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private(set) var count = 0

    mutating func append(_ first: Int, _ last: Int) {
        switch count {
        case 0: runs.0 = first; runs.1 = last
        case 1: runs.2 = first; runs.3 = last
        case 2: runs.4 = first; runs.5 = last
        default: runs.6 = first; runs.7 = last
        }
        count += 1
    }

    subscript(i: Int) -> (first: Int, last: Int) {
        switch i {
        case 0: (runs.0, runs.1)
        case 1: (runs.2, runs.3)
        case 2: (runs.4, runs.5)
        default: (runs.6, runs.7)
        }
    }
}

/// A candidate that passed every test: its distance and where its entry is (a
/// position in the base, or `~i` for entry `i` of the delta). Its key and record are
/// read again only if it is among the answer's, or for a tie.
struct Found {
    var distance: Double
    var slot: Int
}

/// Reads the key of a slot (see ``Found``).
struct KeySource {
    let base: UnsafeBufferPointer<GeoKey>
    let delta: [DeltaEntry]

    @inline(__always) func callAsFunction(_ slot: Int) -> GeoKey {
        slot >= 0 ? base[slot] : delta[~slot].key
    }
}

/// The best `limit` candidates seen so far: everything when there is no limit.
///
/// With a limit, a candidate is appended unless it is farther than `bound`, the
/// limit-th distance as of the last cut; the list is cut down to the best `limit` (a
/// linear-time selection) when it reaches twice the limit and when the limit-th
/// distance is asked for. A candidate costs a 16-byte append; the max-heap this
/// replaced cost a sift per candidate.
struct BestSet {
    let limit: Int
    let keys: KeySource
    private(set) var items: [Found] = []
    /// Candidates farther than this cannot be among the best `limit`.
    private var bound = Double.infinity
    private let cutAt: Int
    /// How many were held after the last cut: until that changes, `bound` stands.
    private var countAtCut = 0

    init(limit: Int, keys: KeySource) {
        self.limit = limit
        self.keys = keys
        cutAt = limit > Int.max / 2 ? .max : 2 * limit
        if limit < 2048 { items.reserveCapacity(cutAt) }
    }

    var isFull: Bool { items.count >= limit }

    /// Whether asking for `worstDistance()` is worth its cut: the set has just
    /// filled, or gained half a limit since the last cut.
    var hasNewBound: Bool {
        items.count >= limit && (countAtCut < limit || items.count >= countAtCut + limit / 2)
    }

    /// The limit-th distance (the farthest that can still be in the answer), or
    /// infinity while fewer than `limit` are held.
    mutating func worstDistance() -> Double {
        guard items.count >= limit else { return .infinity }
        if items.count != countAtCut { cut() }
        return bound
    }

    @inline(__always) mutating func offer(distance: Double, slot: Int) {
        guard distance <= bound else { return }
        items.append(Found(distance: distance, slot: slot))
        if items.count >= cutAt { cut() }
    }

    /// Keeps the best `limit` and sets `bound` to the farthest of them: Hoare's
    /// selection of the limit-th distance (median-of-three pivots), then the
    /// candidates at exactly that distance ordered by key so the smallest keys stay.
    private mutating func cut() {
        let n = items.count
        guard n > limit else {
            bound = items.reduce(0) { Swift.max($0, $1.distance) }
            countAtCut = n
            return
        }
        let target = limit - 1
        items.withUnsafeMutableBufferPointer { a in
            var lo = 0, hi = n - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if a[mid].distance < a[lo].distance { a.swapAt(mid, lo) }
                if a[hi].distance < a[lo].distance { a.swapAt(hi, lo) }
                if a[hi].distance < a[mid].distance { a.swapAt(hi, mid) }
                let pivot = a[mid].distance
                var i = lo, j = hi
                while i <= j {
                    while a[i].distance < pivot { i += 1 }
                    while pivot < a[j].distance { j -= 1 }
                    if i <= j { a.swapAt(i, j); i += 1; j -= 1 }
                }
                if target <= j { hi = j } else if target >= i { lo = i } else { break }
            }
            // Everything before `target` is no farther than it; candidates at its
            // distance on both sides of the cut are ordered by key.
            let threshold = a[target].distance
            var tied = target + 1
            for i in (target + 1)..<n where a[i].distance == threshold {
                a.swapAt(tied, i)
                tied += 1
            }
            if tied > target + 1 {
                var first = 0
                for i in 0...target where a[i].distance < threshold {
                    a.swapAt(first, i)
                    first += 1
                }
                let keys = self.keys
                a[first..<tied].sort { keys($0.slot) < keys($1.slot) }
            }
        }
        items.removeLast(n - limit)
        bound = items[target].distance
        countAtCut = limit
    }

    /// The kept candidates, nearest first, ties by key.
    mutating func sorted() -> [Found] {
        if items.count > limit { cut() }
        let keys = self.keys
        if items.count < 128 {
            return items.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : keys($0.slot) < keys($1.slot) }
        }
        return DistanceOrder.sorted(items, keys: keys)
    }
}

/// The candidates of a search that prefers some mask bits: one ``BestSet`` per tier
/// (how many of the preferred bits an entry lacks, 0 for all shared). The answer is
/// tier 0's best, then tier 1's, and so on; once the tiers before `cutoff` hold
/// `limit` candidates, nothing of a later tier can be in it, and a candidate of one is
/// turned away before its distance is computed. No candidate is sorted but the kept.
struct Tiers {
    let preferring: UInt64
    let limit: Int
    let keys: KeySource
    /// The tier of the cursor's hit (entries of earlier tiers came before it).
    let cursorTier: Int
    private let bits: Int
    private(set) var sets: [BestSet] = []
    /// Tiers from this one on cannot be in the answer.
    private(set) var cutoff: Int

    init(preferring: UInt64, limit: Int, keys: KeySource, cursor: GeoCursor?) {
        self.preferring = preferring
        self.limit = limit
        self.keys = keys
        let bits = preferring.nonzeroBitCount
        self.bits = bits
        cutoff = bits + 1
        // A cursor sharing more than any entry can comes before them all; one sharing
        // fewer than none, after them all.
        cursorTier = cursor.map { $0.shared > bits ? -1 : $0.shared < 0 ? bits + 1 : bits - $0.shared } ?? 0
    }

    /// How many of the preferred bits `tags` lacks.
    @inline(__always) func tier(of tags: GeoTags) -> Int {
        bits - (tags.mask & preferring).nonzeroBitCount
    }

    /// Offers a candidate of tier `tier` (< `cutoff`).
    @inline(__always) mutating func offer(tier: Int, distance: Double, slot: Int) {
        while sets.count <= tier { sets.append(BestSet(limit: limit, keys: keys)) }
        sets[tier].offer(distance: distance, slot: slot)
        var held = 0
        for t in 0..<Swift.min(cutoff, sets.count) {
            held += sets[t].items.count
            if held >= limit {
                cutoff = t + 1
                return
            }
        }
    }

    /// The best `limit`: by tier, then nearest first, ties by key.
    mutating func sorted() -> [Found] {
        var out: [Found] = []
        for t in 0..<Swift.min(cutoff, sets.count) where out.count < limit {
            out += sets[t].sorted().prefix(limit - out.count)
        }
        return out
    }
}

/// Orders many candidates in linear time, for "everything within R" answers that
/// hold thousands of hits: a comparison sort cost more than the scan that found them.
enum DistanceOrder {
    /// `items` by distance, then key.
    ///
    /// A least-significant-digit radix sort of the distances' bit patterns (for
    /// non-negative doubles the pattern orders as the value does), one byte per
    /// pass, skipping the bytes every distance shares; equal distances, rare, are
    /// then ordered by key.
    static func sorted(_ items: [Found], keys: KeySource) -> [Found] {
        let n = items.count
        var items = items
        var counts = [Int](repeating: 0, count: 8 * 256)
        counts.withUnsafeMutableBufferPointer { counts in
            for item in items {
                let key = item.distance.bitPattern
                for byte in 0..<8 { counts[byte << 8 | Int(truncatingIfNeeded: key >> (byte << 3)) & 0xFF] += 1 }
            }
        }
        var spare = items
        var offsets = [Int](repeating: 0, count: 256)
        for byte in 0..<8 {
            let shift = UInt64(byte << 3)
            guard counts[byte << 8 | Int(truncatingIfNeeded: items[0].distance.bitPattern >> shift) & 0xFF] != n else { continue }
            var running = 0
            for digit in 0..<256 {
                offsets[digit] = running
                running += counts[byte << 8 | digit]
            }
            items.withUnsafeBufferPointer { from in
                spare.withUnsafeMutableBufferPointer { to in
                    offsets.withUnsafeMutableBufferPointer { offsets in
                        for i in 0..<n {
                            let digit = Int(truncatingIfNeeded: from[i].distance.bitPattern >> shift) & 0xFF
                            to[offsets[digit]] = from[i]
                            offsets[digit] += 1
                        }
                    }
                }
            }
            swap(&items, &spare)
        }
        var start = 0
        while start < n {
            var end = start + 1
            while end < n && items[end].distance == items[start].distance { end += 1 }
            if end - start > 1 { items[start..<end].sort { keys($0.slot) < keys($1.slot) } }
            start = end
        }
        return items
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
    static func run(on snapshot: GridSnapshot, filter: GeoFilter, cursor: GeoCursor?, limit: Int, preferring: UInt64? = nil, _ search: (inout GridScan) -> Void) -> (hits: [GeoHit], statistics: GeoSearchStats) {
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
                    let first = Swift.max(0, column - 8), last = Swift.min(columns - 1, column + 8)
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
            var north = centreRow, south = centreRow - 1
            while true {
                let northGap = north <= stepRows.upperBound ? Swift.max(0, layout.latitudes(ofRow: north).south - origin.latitude) : .infinity
                let southGap = south >= stepRows.lowerBound ? Swift.max(0, origin.latitude - layout.latitudes(ofRow: south).north) : .infinity
                let gap = Swift.min(northGap, southGap)
                // Latitude apart bounds distance apart from below (with a centimetre
                // for the rounding of row edges and distances).
                guard gap * GeoMath.metresPerDegree <= disc * (1 + 1e-9) + 0.01 else { break }
                let row: Int
                if scan.best.limit == .max {
                    // Everything within the radius: every row, south to north, in memory order.
                    if south >= stepRows.lowerBound { row = south; south -= 1 } else { row = north; north += 1 }
                } else if northGap <= southGap { row = north; north += 1 } else { row = south; south -= 1 }
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
    @inline(__always) private func visit(_ scan: inout GridScan, row: Int, slot: Int, cap: inout GridLayout.Cap, visited: inout [ColumnSpan?], reach: Reach) {
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
                visited[slot] = ColumnSpan(lower: Swift.min(span.lower, seen.lower), upper: Swift.max(span.upper, seen.upper), count: span.count)
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
        let center = self.center, radius = self.radius
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
        let center = self.center, radius = self.radius
        scan.scan(row: row, columns: first, last) { scan, record, slot in
            scan.stats.candidates += 1
            let tier = scan.tiers.unsafelyUnwrapped.tier(of: record.tags)
            guard tier < scan.tiers.unsafelyUnwrapped.cutoff, tier >= scan.tiers.unsafelyUnwrapped.cursorTier,
                  abs(Int64(record.latitudeE7) - originLatitude) <= reach.latitudeE7, scan.filter.accepts(record.tags) else { return }
            let h = center.haversine(to: record.point)
            guard h <= reach.haversine else { return }
            let d = center.distance(toHaversine: h)
            guard d <= radius else { return }
            if tier == scan.tiers.unsafelyUnwrapped.cursorTier, let cursor = scan.cursor, !cursor.precedes(distance: d, key: scan.key(at: slot)) { return }
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
                scanColumns(&scan, row: row, layout.column(longitude: box.minLongitude, row: row), layout.column(longitude: box.maxLongitude, row: row))
            }
        }
    }

    @inline(__always) private func scanColumns(_ scan: inout GridScan, row: Int, _ first: Int, _ last: Int) {
        let box = self.box, center = self.center
        scan.scan(row: row, columns: first, last) { scan, record, slot in
            scan.stats.candidates += 1
            guard scan.filter.accepts(record.tags), box.contains(record.point) else { return }
            let d = center.distance(toHaversine: center.haversine(to: record.point))
            if let cursor = scan.cursor, !cursor.precedes(distance: d, key: scan.key(at: slot)) { return }
            scan.best.offer(distance: d, slot: slot)
        }
    }
}

/// Up to four runs of columns of one row (a span and its complement, each wrapped
/// at most once), kept without an allocation.
struct ColumnRuns {
    private var runs: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private(set) var count = 0

    mutating func append(_ first: Int, _ last: Int) {
        switch count {
        case 0:
            runs.0 = first
            runs.1 = last
        case 1:
            runs.2 = first
            runs.3 = last
        case 2:
            runs.4 = first
            runs.5 = last
        default:
            runs.6 = first
            runs.7 = last
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
            var lo = 0
            var hi = n - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if a[mid].distance < a[lo].distance { a.swapAt(mid, lo) }
                if a[hi].distance < a[lo].distance { a.swapAt(hi, lo) }
                if a[hi].distance < a[mid].distance { a.swapAt(hi, mid) }
                let pivot = a[mid].distance
                var i = lo
                var j = hi
                while i <= j {
                    while a[i].distance < pivot { i += 1 }
                    while pivot < a[j].distance { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
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

/// What the index stores per entry next to its key: 32 bytes.
struct Record: Sendable {
    var latitudeE7: Int32
    var longitudeE7: Int32
    var tags: GeoTags

    init(_ entry: GeoEntry) {
        latitudeE7 = entry.point.latitudeE7
        longitudeE7 = entry.point.longitudeE7
        tags = entry.tags
    }

    @inline(__always) var point: GeoPoint { GeoPoint(unchecked: latitudeE7, longitudeE7) }
}

extension GeoPoint {
    @inline(__always) init(unchecked latitudeE7: Int32, _ longitudeE7: Int32) {
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
    }
}

/// The bulk of the index: every entry as of the last compaction, in one
/// immutable, cell-ordered layout (a compressed sparse row table).
///
/// `records[i]` and `keys[i]` are entry `i`; entries are sorted by cell key, so a
/// cell is the run `cellStarts[c] ..< cellStarts[c + 1]` and the non-empty cells of
/// row `r` are `rowFirstCell[r] ..< rowFirstCell[r + 1]`. An empty cell costs
/// nothing; a non-empty one costs 12 bytes.
final class GridBase: Sendable {
    let layout: GridLayout
    let records: [Record]
    let keys: [GeoKey]
    let cellKeys: [UInt64]
    let cellStarts: [UInt32]
    let rowFirstCell: [UInt32]
    let table: KeyTable

    /// Builds from entries already sorted by cell key.
    init(layout: GridLayout, sortedCells cells: [UInt64], records: [Record], keys: [GeoKey]) {
        precondition(records.count < Int(UInt32.max) - 1, "GeoGrid holds at most 4 billion entries")
        self.layout = layout
        self.records = records
        self.keys = keys
        var cellKeys: [UInt64] = []
        var cellStarts: [UInt32] = []
        var rowFirstCell = [UInt32](repeating: 0, count: layout.rowCount + 1)
        var nextRow = 0
        for (i, cell) in cells.enumerated() where i == 0 || cells[i - 1] != cell {
            let row = GridLayout.row(ofKey: cell)
            while nextRow <= row {
                rowFirstCell[nextRow] = UInt32(cellKeys.count)
                nextRow += 1
            }
            cellKeys.append(cell)
            cellStarts.append(UInt32(i))
        }
        while nextRow <= layout.rowCount {
            rowFirstCell[nextRow] = UInt32(cellKeys.count)
            nextRow += 1
        }
        cellStarts.append(UInt32(records.count))
        self.cellKeys = cellKeys
        self.cellStarts = cellStarts
        self.rowFirstCell = rowFirstCell
        self.table = KeyTable(keys: keys)
    }

    /// An empty base.
    convenience init(layout: GridLayout) {
        self.init(layout: layout, sortedCells: [], records: [], keys: [])
    }

    /// Builds from entries in any order (the last entry wins for a repeated key).
    convenience init(layout: GridLayout, entries: [GeoEntry]) {
        var latest: [GeoKey: Int] = [:]
        latest.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() { latest[entry.key] = i }
        var order: [(cell: UInt64, index: Int)] = []
        order.reserveCapacity(latest.count)
        for (i, entry) in entries.enumerated() where latest[entry.key] == i {
            order.append((layout.cellKey(of: entry.point), i))
        }
        order.sort { $0.cell != $1.cell ? $0.cell < $1.cell : $0.index < $1.index }
        self.init(
            layout: layout,
            sortedCells: order.map(\.cell),
            records: order.map { Record(entries[$0.index]) },
            keys: order.map { entries[$0.index].key }
        )
    }

    /// Runs `body` with this base's arrays as buffers.
    @inline(__always) func withStorage<R>(_ body: (StorageView) -> R) -> R {
        records.withUnsafeBufferPointer { records in
            keys.withUnsafeBufferPointer { keys in
                cellKeys.withUnsafeBufferPointer { cellKeys in
                    cellStarts.withUnsafeBufferPointer { cellStarts in
                        rowFirstCell.withUnsafeBufferPointer { rowFirstCell in
                            layout.columns.withUnsafeBufferPointer { columns in
                                body(
                                    StorageView(
                                        records: records, keys: keys, cellKeys: cellKeys, cellStarts: cellStarts,
                                        rowFirstCell: rowFirstCell, columns: columns))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Memory held by this base, in bytes.
    var bytes: Int {
        records.capacity * MemoryLayout<Record>.stride + keys.capacity * MemoryLayout<GeoKey>.stride
            + cellKeys.capacity * 8 + cellStarts.capacity * 4 + rowFirstCell.capacity * 4 + table.bytes
            + layout.columns.capacity * 4 + layout.edgeTrig.capacity * 16
    }
}

/// A base's arrays as buffers, valid only inside `GridBase.withStorage`: a query
/// takes them once and then reads rows, cells and candidates without a retain, a
/// release or a bounds check (taking them per row was a quarter of a sparse query).
struct StorageView {
    let records: UnsafeBufferPointer<Record>
    let keys: UnsafeBufferPointer<GeoKey>
    let cellKeys: UnsafeBufferPointer<UInt64>
    let cellStarts: UnsafeBufferPointer<UInt32>
    let rowFirstCell: UnsafeBufferPointer<UInt32>
    /// The layout's columns per row.
    let columns: UnsafeBufferPointer<Int32>

    /// The index of the first non-empty cell of `row` whose column is at least `column`,
    /// and the end of the row's cells.
    @inline(__always) func cells(row: Int, from column: Int) -> (first: Int, end: Int) {
        var lo = Int(rowFirstCell[row])
        let end = Int(rowFirstCell[row + 1])
        var hi = end
        let target = GridLayout.key(row: row, column: column)
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cellKeys[mid] < target { lo = mid + 1 } else { hi = mid }
        }
        return (lo, end)
    }

    /// How many entries columns `first...last` of `row` had at the last compaction
    /// (two binary searches, no entry read): a cheap sample of the density there.
    func count(inRow row: Int, columns first: Int, _ last: Int) -> Int {
        let from = cells(row: row, from: first).first
        let to = cells(row: row, from: last + 1).first
        return Int(cellStarts[to] - cellStarts[from])
    }
}

/// Key → position in a base, by open addressing with linear probing.
/// Slots hold position + 1 (0 is empty); the load factor stays at or below ½
/// to ⅔, which is 6 to 8 bytes per entry.
struct KeyTable: Sendable {
    private let slots: [UInt32]
    private let mask: Int

    init(keys: [GeoKey]) {
        var size = 16
        while size * 2 < keys.count * 3 { size <<= 1 }
        var slots = [UInt32](repeating: 0, count: size)
        let mask = size - 1
        for (position, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: key.mixed) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(position + 1)
        }
        self.slots = slots
        self.mask = mask
    }

    func position(of key: GeoKey, in keys: [GeoKey]) -> Int? {
        var slot = Int(truncatingIfNeeded: key.mixed) & mask
        while true {
            let value = slots[slot]
            if value == 0 { return nil }
            if keys[Int(value) - 1] == key { return Int(value) - 1 }
            slot = (slot + 1) & mask
        }
    }

    var bytes: Int { slots.capacity * 4 }
}

/// One entry written since the last compaction.
struct DeltaEntry: Sendable {
    var cell: UInt64
    var record: Record
    var key: GeoKey
}

/// Base entries removed (or moved) since the last compaction: a bit set cut into
/// 4,096-bit chunks, so a write copies one chunk and the chunk list, not the set.
struct Tombstones: Sendable {
    private(set) var chunks: [[UInt64]] = []
    private(set) var count = 0

    @inline(__always) func contains(_ position: Int) -> Bool {
        let chunk = position >> 12
        guard chunk < chunks.count else { return false }
        let words = chunks[chunk]
        return words.isEmpty ? false : words[(position >> 6) & 63] & (1 << UInt64(position & 63)) != 0
    }

    mutating func insert(_ position: Int) {
        let chunk = position >> 12
        while chunks.count <= chunk { chunks.append([]) }
        if chunks[chunk].isEmpty { chunks[chunk] = [UInt64](repeating: 0, count: 64) }
        let bit: UInt64 = 1 << UInt64(position & 63)
        if chunks[chunk][(position >> 6) & 63] & bit == 0 {
            chunks[chunk][(position >> 6) & 63] |= bit
            count += 1
        }
    }

    var bytes: Int { chunks.count * 8 + chunks.reduce(0) { $0 + $1.capacity * 8 } }
}

/// Everything written since the last compaction: new and moved entries (sorted
/// by cell key, searched like the base) and the base entries they replace.
struct GridDelta: Sendable {
    var entries: [DeltaEntry] = []
    var cellOfKey: [GeoKey: UInt64] = [:]
    var removed = Tombstones()

    /// Index of the first entry whose cell key is at least `cell`.
    @inline(__always) func firstIndex(atOrAfter cell: UInt64) -> Int {
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if entries[mid].cell < cell { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func index(of key: GeoKey) -> Int? {
        guard let cell = cellOfKey[key] else { return nil }
        var i = firstIndex(atOrAfter: cell)
        while i < entries.count && entries[i].cell == cell {
            if entries[i].key == key { return i }
            i += 1
        }
        return nil
    }

    mutating func insert(_ entry: DeltaEntry) {
        entries.insert(entry, at: firstIndex(atOrAfter: entry.cell &+ 1))
        cellOfKey[entry.key] = entry.cell
    }

    mutating func remove(_ key: GeoKey) -> Bool {
        guard let i = index(of: key) else { return false }
        entries.remove(at: i)
        cellOfKey[key] = nil
        return true
    }

    var bytes: Int {
        entries.capacity * MemoryLayout<DeltaEntry>.stride + cellOfKey.capacity * (MemoryLayout<GeoKey>.stride + 8) + removed.bytes
    }
}

/// One published, immutable state of the index.
final class GridSnapshot: Sendable {
    let base: GridBase
    let delta: GridDelta
    let count: Int

    init(base: GridBase, delta: GridDelta) {
        self.base = base
        self.delta = delta
        self.count = base.records.count - delta.removed.count + delta.entries.count
    }

    func entry(for key: GeoKey) -> GeoEntry? {
        if let i = delta.index(of: key) {
            let e = delta.entries[i]
            return GeoEntry(key: key, point: e.record.point, tags: e.record.tags)
        }
        guard let p = base.table.position(of: key, in: base.keys), !delta.removed.contains(p) else { return nil }
        let r = base.records[p]
        return GeoEntry(key: key, point: r.point, tags: r.tags)
    }

    /// Every entry's key and record: the base's cell by cell (those not removed),
    /// then those changed since.
    func forEachEntry(_ body: (GeoKey, Record) -> Void) {
        for p in 0..<base.keys.count where !delta.removed.contains(p) { body(base.keys[p], base.records[p]) }
        for e in delta.entries { body(e.key, e.record) }
    }

    /// Merges the delta into a new base (a linear merge of two cell-ordered lists).
    func compacted() -> GridBase {
        var cells: [UInt64] = []
        var records: [Record] = []
        var keys: [GeoKey] = []
        cells.reserveCapacity(count)
        records.reserveCapacity(count)
        keys.reserveCapacity(count)
        var d = 0
        let deltaEntries = delta.entries
        for cellIndex in 0..<base.cellKeys.count {
            let cell = base.cellKeys[cellIndex]
            while d < deltaEntries.count && deltaEntries[d].cell < cell {
                cells.append(deltaEntries[d].cell)
                records.append(deltaEntries[d].record)
                keys.append(deltaEntries[d].key)
                d += 1
            }
            for p in Int(base.cellStarts[cellIndex])..<Int(base.cellStarts[cellIndex + 1]) where !delta.removed.contains(p) {
                cells.append(cell)
                records.append(base.records[p])
                keys.append(base.keys[p])
            }
        }
        while d < deltaEntries.count {
            cells.append(deltaEntries[d].cell)
            records.append(deltaEntries[d].record)
            keys.append(deltaEntries[d].key)
            d += 1
        }
        return GridBase(layout: base.layout, sortedCells: cells, records: records, keys: keys)
    }
}

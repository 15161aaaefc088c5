import Synchronization

/// A change to apply to a ``GeoGrid``.
public enum GeoChange: Sendable, Hashable {
    /// Insert the entry, or move and retag it if its key is present.
    case upsert(GeoEntry)
    /// Remove the entry with this key, if present.
    case remove(GeoKey)
}

/// An in-memory spatial grid index of points on the sphere.
///
/// Answers "everything within R metres of here, nearest first", "the nearest k
/// within R", and "everything in this box" exactly (haversine on a sphere of
/// radius 6,371,008.8 m, ties broken by key), with a filter applied during the
/// scan and a keyset cursor for paging. See `Sources/GeoGrid/README.md` for the
/// structure, its costs and its concurrency model.
///
/// Thread safety: any number of threads may query while one writes. Queries run
/// on an immutable snapshot taken without a lock; writes are serialised among
/// themselves and publish a new snapshot when done.
public final class GeoGrid: Sendable {
    /// Edge of a cell, in metres.
    public let cellSize: Double
    private let layout: GridLayout
    private let published: SnapshotCell<GridSnapshot>
    private let writer: Mutex<GridSnapshot>

    /// Creates an index.
    /// - Parameters:
    ///   - cellSize: Edge of a cell in metres; see ``recommendedCellSize(typicalRadius:)``.
    ///   - entries: Entries to start with (built in one pass; the last wins for a repeated key).
    public init(cellSize: Double = 1_250, entries: [GeoEntry] = []) {
        precondition(cellSize >= 10 && cellSize <= 1_000_000, "cell size must be 10 m … 1,000 km")
        self.cellSize = cellSize
        self.layout = GridLayout(cellSize: cellSize)
        let snapshot = GridSnapshot(base: GridBase(layout: layout, entries: entries), delta: GridDelta())
        self.published = SnapshotCell(snapshot)
        self.writer = Mutex(snapshot)
    }

    /// The cell edge that suits queries of about `typicalRadius` metres: a quarter
    /// of it, so that the cells a disc touches hold little beyond the disc, within
    /// 100 m … 50 km.
    /// - Parameter typicalRadius: The radius most queries use, in metres.
    public static func recommendedCellSize(typicalRadius: Double) -> Double {
        Swift.min(50_000, Swift.max(100, typicalRadius / 4))
    }

    /// Number of entries.
    public var count: Int { published.load().count }

    /// The entry with this key, if any.
    /// - Parameter key: The key to look up.
    public subscript(key: GeoKey) -> GeoEntry? { published.load().entry(for: key) }

    /// Inserts an entry, or moves and retags the entry with the same key.
    /// - Parameter entry: The entry.
    public func upsert(_ entry: GeoEntry) { apply(CollectionOfOne(.upsert(entry))) }

    /// Removes the entry with this key.
    /// - Parameter key: The key to remove.
    /// - Returns: The removed entry, or `nil` if there was none.
    @discardableResult public func remove(_ key: GeoKey) -> GeoEntry? {
        writer.withLock { current in
            let old = current.entry(for: key)
            if old != nil { publish(applying: CollectionOfOne(.remove(key)), to: &current) }
            return old
        }
    }

    /// Applies changes in order and publishes them at once: a reader sees all or none.
    /// - Parameter changes: The changes.
    public func apply(_ changes: some Sequence<GeoChange>) {
        writer.withLock { current in publish(applying: changes, to: &current) }
    }

    /// Replaces the whole content with `entries`, built in one pass.
    /// - Parameter entries: The new content (the last wins for a repeated key).
    public func replaceAll(with entries: [GeoEntry]) {
        let base = GridBase(layout: layout, entries: entries)
        writer.withLock { current in
            current = GridSnapshot(base: base, delta: GridDelta())
            published.store(current)
        }
    }

    /// Folds pending changes into the cell-ordered bulk storage now (it also
    /// happens by itself once enough changes have accumulated).
    public func compact() {
        writer.withLock { current in
            current = GridSnapshot(base: current.compacted(), delta: GridDelta())
            published.store(current)
        }
    }

    private func publish(applying changes: some Sequence<GeoChange>, to current: inout GridSnapshot) {
        var delta = current.delta
        let base = current.base
        for change in changes {
            let key: GeoKey
            switch change {
            case .upsert(let entry): key = entry.key
            case .remove(let removed): key = removed
            }
            if !delta.remove(key), let p = base.table.position(of: key, in: base.keys) {
                delta.removed.insert(p)
            }
            if case .upsert(let entry) = change {
                delta.insert(DeltaEntry(cell: layout.cellKey(of: entry.point), record: Record(entry), key: key))
            }
        }
        var next = GridSnapshot(base: base, delta: delta)
        let pending = delta.entries.count + delta.removed.count
        if pending > Swift.max(256, Swift.min(8192, 2 * Int(Double(next.count).squareRoot()))) {
            next = GridSnapshot(base: next.compacted(), delta: GridDelta())
        }
        current = next
        published.store(next)
    }

    /// Entries within `radius` metres of `center`, nearest first (ties by key).
    ///
    /// With a `limit` the search grows outward from the centre and stops once the
    /// nearest `limit` are settled, so a large radius costs little where entries
    /// are dense.
    /// - Parameters:
    ///   - radius: Radius in metres (0 … half the Earth's circumference).
    ///   - center: The centre.
    ///   - filter: Applied to each candidate during the scan.
    ///   - cursor: Return only hits after this position (the last hit of the previous page).
    ///   - limit: At most this many hits; `Int.max` for all.
    /// - Returns: The hits, nearest first.
    public func search(
        within radius: Double, of center: GeoPoint, filter: GeoFilter = .all, after cursor: GeoCursor? = nil, limit: Int = .max
    ) -> [GeoHit] {
        searchWithStatistics(within: radius, of: center, filter: filter, after: cursor, limit: limit).hits
    }

    /// ``search(within:of:filter:after:limit:)`` with the work it took.
    /// - Parameters:
    ///   - radius: Radius in metres.
    ///   - center: The centre.
    ///   - filter: Applied to each candidate during the scan.
    ///   - cursor: Return only hits after this position.
    ///   - limit: At most this many hits.
    /// - Returns: The hits and the query's counters.
    public func searchWithStatistics(
        within radius: Double, of center: GeoPoint, filter: GeoFilter = .all, after cursor: GeoCursor? = nil, limit: Int = .max
    ) -> (hits: [GeoHit], statistics: GeoSearchStats) {
        guard radius >= 0, radius.isFinite, limit > 0 else { return ([], GeoSearchStats()) }
        let search = RadiusSearch(origin: center, radius: radius)
        return GridScan.run(on: published.load(), filter: filter, cursor: cursor, limit: limit) { search.run(&$0) }
    }

    /// Entries within `radius` metres of `center`, those sharing more of `preferring`'s
    /// bits (in their tags' `mask`) first, then nearest first, ties by key.
    ///
    /// The whole disc is walked (a farther entry may share more), but only the best
    /// `limit` are ever ordered: once that many share at least some number of the
    /// bits, an entry sharing fewer is turned away before its distance is computed.
    /// - Parameters:
    ///   - radius: Radius in metres (0 … half the Earth's circumference).
    ///   - center: The centre.
    ///   - filter: Applied to each candidate during the scan.
    ///   - preferring: The bits whose sharing ranks entries.
    ///   - cursor: Return only hits after this position (the last hit's
    ///     ``GeoHit/cursor(preferring:)``: its ``GeoCursor/shared`` counts the bits it shared).
    ///   - limit: At most this many hits.
    /// - Returns: The hits in that order.
    public func search(
        within radius: Double, of center: GeoPoint, filter: GeoFilter = .all, preferring: UInt64, after cursor: GeoCursor? = nil, limit: Int
    ) -> [GeoHit] {
        guard radius >= 0, radius.isFinite, limit > 0 else { return [] }
        let search = RadiusSearch(origin: center, radius: radius)
        return GridScan.run(on: published.load(), filter: filter, cursor: cursor, limit: limit, preferring: preferring) { search.run(&$0) }
            .hits
    }

    /// Entries inside `box`, nearest to the box's centre first (ties by key).
    /// - Parameters:
    ///   - box: The box (may cross the antimeridian).
    ///   - filter: Applied to each candidate during the scan.
    ///   - cursor: Return only hits after this position.
    ///   - limit: At most this many hits; `Int.max` for all.
    /// - Returns: The hits; `distance` is from the box's centre.
    public func search(in box: GeoBox, filter: GeoFilter = .all, after cursor: GeoCursor? = nil, limit: Int = .max) -> [GeoHit] {
        guard limit > 0 else { return [] }
        let search = BoxSearch(box: box)
        return GridScan.run(on: published.load(), filter: filter, cursor: cursor, limit: limit) { search.run(&$0) }.hits
    }

    /// Every entry, in no particular order.
    public var allEntries: [GeoEntry] {
        let snapshot = published.load()
        var out: [GeoEntry] = []
        out.reserveCapacity(snapshot.count)
        snapshot.forEachEntry { key, record in out.append(GeoEntry(key: key, point: record.point, tags: record.tags)) }
        return out
    }

    /// Every key, neighbours near each other: those of the last compaction cell by
    /// cell (the order a search walks the grid in), then those changed since. Data
    /// kept per entry elsewhere can be laid out in this order, so that a search's
    /// hits find theirs close together.
    public var keysByCell: [GeoKey] {
        let snapshot = published.load()
        var out: [GeoKey] = []
        out.reserveCapacity(snapshot.count)
        snapshot.forEachEntry { key, _ in out.append(key) }
        return out
    }

    /// Size and shape of the index now.
    public var statistics: GeoGridStatistics {
        let snapshot = published.load()
        let base = snapshot.base
        var largest = 0
        for c in 0..<base.cellKeys.count {
            largest = Swift.max(largest, Int(base.cellStarts[c + 1] - base.cellStarts[c]))
        }
        let bytes = base.bytes + snapshot.delta.bytes
        return GeoGridStatistics(
            entries: snapshot.count,
            cells: base.cellKeys.count,
            largestCell: largest,
            pendingChanges: snapshot.delta.entries.count + snapshot.delta.removed.count,
            bytes: bytes,
            cellSize: cellSize,
            rows: layout.rowCount
        )
    }
}

/// The size and shape of a ``GeoGrid``.
public struct GeoGridStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Entries stored.
    public var entries: Int
    /// Non-empty cells in the bulk storage.
    public var cells: Int
    /// Entries in the fullest cell.
    public var largestCell: Int
    /// Changes not yet folded into the bulk storage.
    public var pendingChanges: Int
    /// Memory held by the index, in bytes.
    public var bytes: Int
    /// Cell edge in metres.
    public var cellSize: Double
    /// Latitude rows.
    public var rows: Int

    /// Mean entries per non-empty cell.
    public var entriesPerCell: Double { cells == 0 ? 0 : Double(entries - pendingChanges) / Double(cells) }
    /// Memory per entry, in bytes.
    public var bytesPerEntry: Double { entries == 0 ? 0 : Double(bytes) / Double(entries) }

    /// One line for logs.
    public var description: String {
        "entries=\(entries) cells=\(cells) entries/cell=\((entriesPerCell * 10).rounded() / 10) largest=\(largestCell) "
            + "bytes=\(bytes) bytes/entry=\((bytesPerEntry * 10).rounded() / 10) pending=\(pendingChanges) cell=\(Int(cellSize))m"
    }
}

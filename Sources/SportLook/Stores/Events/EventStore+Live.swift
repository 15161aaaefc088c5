import Foundation
import SQLKit

/// Reading every live event, for the event index: in pages of the events_live
/// index's order, and in parts read at once.
extension EventStore {
    /// A position in the order of the events_live index (status, ends_at, id).
    typealias LiveKey = (endsAt: Date, id: UUID)

    /// Live events after `after` and up to `through`, in pages of that index's
    /// order: each page is a range read, never a sort of every live event.
    private static func livePages<Row: Sendable>(
        of database: Database, now: Date, after start: LiveKey? = nil, through end: LiveKey? = nil,
        columns: String, from: String, size: Int,
        decode: @escaping @Sendable (any SQLRow) throws -> Row, key: @escaping @Sendable (Row) -> LiveKey,
        each: ([Row]) -> Void
    ) async throws {
        var after = start
        while true {
            let page: [Row] = try await database.read(timeout: Database.bulkReadTimeout) { [after] sql in
                // One lower bound only: given `ends_at > now` as well, SQLite started
                // every page's range there and skipped up to the keyset, so paging
                // through a million events read hundreds of millions of index rows.
                // A key past the first page is a live event's, so it implies that bound.
                let lower: SQLQueryString =
                    after.map { "(e.ends_at, e.id) > (\(bind: $0.endsAt), \(bind: $0.id))" } ?? "e.ends_at > \(bind: now)"
                let upper: SQLQueryString = end.map { "AND (e.ends_at, e.id) <= (\(bind: $0.endsAt), \(bind: $0.id))" } ?? ""
                return try await sql.raw(
                    """
                    SELECT \(unsafeRaw: columns) FROM \(unsafeRaw: from)
                    WHERE e.status = 'active' AND \(lower) \(upper)
                    ORDER BY e.ends_at, e.id LIMIT \(bind: size)
                    """
                ).all().map(decode)
            }
            each(page)
            guard page.count == size, let last = page.last else { return }
            after = key(last)
        }
    }

    /// Keys that cut the live events into `parts` ranges of about the same size.
    private static func cuts(of database: Database, now: Date, parts: Int) async throws -> [LiveKey] {
        try await database.read(timeout: Database.bulkReadTimeout) { sql in
            let live: SQLQueryString = "FROM events e WHERE e.status = 'active' AND e.ends_at > \(bind: now)"
            let count = try await sql.raw("SELECT COUNT(*) AS n \(live)").first()?.value("n", as: Int.self) ?? 0
            guard count >= 10_000 * parts else { return [] }
            var cuts: [LiveKey] = []
            for part in 1..<parts {
                guard
                    let row = try await sql.raw(
                        """
                        SELECT e.ends_at, e.id \(live) ORDER BY e.ends_at, e.id LIMIT 1 OFFSET \(bind: count * part / parts - 1)
                        """
                    ).first()
                else { break }
                cuts.append((try row.value("ends_at"), try row.value("id")))
            }
            return cuts
        }
    }

    /// Where every live event is at `now`, read in as many ranges at once as there
    /// are cores, so that decoding one range's rows overlaps the database reading
    /// another's.
    static func livePositions(of database: Database, now: Date) async throws -> [[EventPosition]] {
        let cuts = try await cuts(of: database, now: now, parts: max(2, ProcessInfo.processInfo.activeProcessorCount))
        let ranges = zip([nil] + cuts.map(Optional.some), cuts.map(Optional.some) + [nil])
        return try await withThrowingTaskGroup(of: [EventPosition].self) { group in
            for (after, through) in ranges {
                group.addTask {
                    var rows: [EventPosition] = []
                    try await livePages(
                        of: database, now: now, after: after, through: through,
                        columns: """
                            e.id, e.sport_slug, e.lat, e.lon, e.starts_at, e.ends_at, e.version, e.level_min_half, e.level_max_half, e.audience,
                            e.capacity, e.going_count, e.offered_count, e.group_id, e.members_only
                            """,
                        from: "events e", size: 5_000,
                        decode: { row in
                            let capacity: Int? = try row.optional("capacity")
                            let taken = try row.value("going_count", as: Int.self) + (try row.value("offered_count", as: Int.self))
                            return EventPosition(
                                id: try row.value("id"), sport: try row.value("sport_slug"),
                                location: Coordinate(lat: try row.value("lat"), lon: try row.value("lon")),
                                startsAt: try row.value("starts_at"), endsAt: try row.value("ends_at"), version: try row.value("version"),
                                levelRange: try EventStore.decodeLevels(row),
                                audience: Audience(rawValue: try row.value("audience")) ?? .anyone,
                                hasFreePlaces: Event.spotsLeft(capacity: capacity, taken: taken).map { $0 > 0 } ?? true,
                                restriction: try row.value("members_only", as: Bool.self) ? .members(try row.optional("group_id")) : .open
                            )
                        },
                        key: { ($0.endsAt, $0.id) }
                    ) { rows += $0 }
                    return rows
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Every live event, in pages of 2,000 handed to `each`.
    static func liveEvents(of database: Database, now: Date, each: ([Event]) -> Void) async throws {
        try await livePages(
            of: database, now: now, columns: columns, from: from, size: 2_000, decode: decode, key: { ($0.endsAt, $0.id) }, each: each)
    }

    /// Events whose rows changed at or after `since`.
    func updated(since: Date) async throws -> [Event] {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE e.updated_at >= \(bind: since)").all()
                .map(Self.decode)
        }
    }
}

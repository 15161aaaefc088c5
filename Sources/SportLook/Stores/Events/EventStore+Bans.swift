import Foundation
import SQLKit

/// The people an event's organiser banned.
extension EventStore {
    func isBanned(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM event_bans WHERE event_id = \(bind: event) AND user_id = \(bind: user)").first() != nil
    }

    /// Those of `users` banned from the event.
    func banned(event: UUID, among users: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !users.isEmpty else { return [] }
        return Set(
            try await sql.raw("SELECT user_id FROM event_bans WHERE event_id = \(bind: event) AND user_id IN (\(binds: users))").all().map {
                try $0.value("user_id")
            })
    }

    /// Bans `user` from `event` (kept as first banned when banned again).
    func ban(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO event_bans (event_id, user_id, banned_at) VALUES (\(bind: event), \(bind: user), \(bind: now))
            ON CONFLICT (event_id, user_id) DO NOTHING
            """
        ).run()
    }

    func unban(event: UUID, user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM event_bans WHERE event_id = \(bind: event) AND user_id = \(bind: user)").run()
    }

    /// An event's bans, latest first.
    func bans(event: UUID, cursor: TimeCursor?, limit: Int, on sql: any SQLDatabase) async throws -> Page<Ban> {
        try await BanList.page(of: "event_bans", where: "event_id", is: event, cursor: cursor, limit: limit, on: sql)
    }
}

/// A page of a ban table (`event_bans`, `group_bans`: `user_id`, `banned_at` and the
/// column naming what they are banned from), latest first.
enum BanList {
    static func page(of table: String, where column: String, is owner: UUID, cursor: TimeCursor?, limit: Int, on sql: any SQLDatabase)
        async throws -> Page<Ban>
    {
        let rows = try await sql.raw(
            """
            SELECT b.user_id, b.banned_at, u.name FROM \(unsafeRaw: table) b JOIN users u ON u.id = b.user_id
            WHERE b.\(unsafeRaw: column) = \(bind: owner) \(Keyset.after(time: "b.banned_at", id: "b.user_id", after: cursor, descending: true))
            ORDER BY b.banned_at DESC, b.user_id DESC LIMIT \(bind: limit + 1)
            """
        ).all()
        let items = try rows.prefix(limit).map { row in
            Ban(user: UserSummary(id: try row.value("user_id"), name: try row.value("name")), bannedAt: try row.value("banned_at"))
        }
        let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.bannedAt, id: $0.user.id).cursor } : nil
        return Page(items: items, nextCursor: next)
    }
}

import Foundation
import SQLKit

/// Blocks and reports.
struct SafetyStore: Store {
    let database: Database

    typealias Blocked = BlockedPerson

    typealias Report = SafetyReport

    /// Everyone the user blocked or was blocked by.
    func blockedEitherWay(_ user: UUID) async throws -> Set<UUID> {
        try await database.read { sql in
            var out = Set<UUID>()
            for row in try await sql.raw(
                "SELECT blocked_id AS other FROM blocks WHERE blocker_id = \(bind: user) UNION SELECT blocker_id AS other FROM blocks WHERE blocked_id = \(bind: user)"
            ).all() {
                out.insert(try row.value("other"))
            }
            return out
        }
    }

    /// For each of `users` who blocked or was blocked by anyone, those others.
    func blockedEitherWay(among users: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: Set<UUID>] {
        guard !users.isEmpty else { return [:] }
        var out: [UUID: Set<UUID>] = [:]
        for row in try await sql.raw(
            """

            SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id IN (\(binds: Array(users))) OR blocked_id IN (\(binds: Array(users)))
            """
        ).all() {
            let blocker: UUID = try row.value("blocker_id")
            let blocked: UUID = try row.value("blocked_id")
            if users.contains(blocker) { out[blocker, default: []].insert(blocked) }
            if users.contains(blocked) { out[blocked, default: []].insert(blocker) }
        }
        return out
    }

    func blocks(of user: UUID, cursor: TimeCursor?, limit: Int) async throws -> (items: [Blocked], more: Bool) {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT b.blocked_id, b.created_at, u.name FROM blocks b JOIN users u ON u.id = b.blocked_id
                WHERE b.blocker_id = \(bind: user) \(Keyset.after(time: "b.created_at", id: "b.blocked_id", after: cursor, descending: true))
                ORDER BY b.created_at DESC, b.blocked_id DESC LIMIT \(bind: limit + 1)
                """
            ).all()
            let items = try rows.prefix(limit).map {
                Blocked(id: try $0.value("blocked_id"), name: try $0.value("name"), at: try $0.value("created_at"))
            }
            return (items, rows.count > limit)
        }
    }

    static let reportColumns = "id, reporter_id, target_type, target_id, reason, details, status, created_at, content"

    static func decodeReport(_ row: any SQLRow) throws -> Report {
        Report(
            id: try row.value("id"), reporterID: try row.value("reporter_id"), targetType: try row.value("target_type"),
            targetID: try row.value("target_id"), reason: try row.value("reason"), details: try row.optional("details"),
            status: try row.value("status"), createdAt: try row.value("created_at"), content: try row.optional("content"))
    }

    /// A reported message as JSON: room, seq, sender, text, image and time.
    private func messageContent(_ id: UUID, on sql: any SQLDatabase) async throws -> String? {
        guard
            let row = try await sql.raw(
                """
                SELECT m.room_id, m.seq, m.sender_id, u.name, m.body, m.attachment_id, m.created_at, m.deleted_at
                FROM chat_messages m JOIN users u ON u.id = m.sender_id WHERE m.id = \(bind: id)
                """
            ).first()
        else { return nil }
        var json = JSONWriter()
        json.objectStart()
        json.field("room_id", try row.value("room_id", as: UUID.self))
        json.field("seq", Int(try row.value("seq", as: Int64.self)))
        json.key("sender")
        json.objectStart()
        json.field("id", try row.value("sender_id", as: UUID.self))
        json.field("name", try row.value("name", as: String.self))
        json.objectEnd()
        json.field("body", try row.value("body", as: String.self))
        json.field("attachment_id", try row.optional("attachment_id", as: UUID.self)?.lowercased)
        json.field("created_at", try row.value("created_at", as: Date.self))
        json.field("deleted_at", try row.optional("deleted_at", as: Date.self))
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    func openReports(limit: Int) async throws -> [Report] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.reportColumns) FROM reports WHERE status = 'open' ORDER BY created_at, id LIMIT \(bind: limit)"
            ).all().map(Self.decodeReport)
        }
    }

    /// Records that `user` blocks `target`, and lets pending invitations between
    /// the two lapse; `false` when no such user exists.
    func block(_ target: UUID, by user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        guard try await sql.raw("SELECT id FROM users WHERE id = \(bind: target)").first() != nil else { return false }
        // The blocker's row first: a delivery to them holds it too (``lockPeople(_:on:)``),
        // so a notification naming the target is either delivered before and deleted
        // below, or sees the block and is dropped — never written after the delete.
        try await lockPeople([user], on: sql)
        try await sql.raw(
            "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (\(bind: user), \(bind: target), \(bind: now)) ON CONFLICT DO NOTHING"
        ).run()
        try await sql.raw(
            """
            UPDATE invitations SET status = 'revoked', responded_at = \(bind: now)
            WHERE status = 'pending' AND ((inviter_id = \(bind: user) AND invitee_id = \(bind: target)) OR (inviter_id = \(bind: target) AND invitee_id = \(bind: user)))
            """
        ).run()
        // The blocker's inbox keeps nothing that names the blocked person (their
        // messages' previews, their invitations): ids appear in the data only as people.
        try await sql.raw(
            "DELETE FROM notifications WHERE user_id = \(bind: user) AND data LIKE \(bind: "%\"" + target.lowercased + "\"%")"
        ).run()
        return true
    }

    /// Takes the people's rows, in id order, for the rest of the transaction
    /// (PostgreSQL; SQLite's writer is alone already): deliveries to them and their
    /// blocks take turns.
    func lockPeople(_ ids: Set<UUID>, on sql: any SQLDatabase) async throws {
        guard !ids.isEmpty else { return }
        _ = try await sql.raw(
            "SELECT id FROM users WHERE id IN (\(binds: ids.sorted { $0.uuidString < $1.uuidString })) ORDER BY id \(ForUpdateClause())"
        ).all()
    }

    /// Ends the block; invitations it kept hidden lapse with it (never shown,
    /// never to be). `false` when no such user exists.
    func unblock(_ target: UUID, by user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        guard try await sql.raw("SELECT id FROM users WHERE id = \(bind: target)").first() != nil else { return false }
        try await sql.raw("DELETE FROM blocks WHERE blocker_id = \(bind: user) AND blocked_id = \(bind: target)").run()
        try await sql.raw(
            """
            UPDATE invitations SET status = 'revoked', responded_at = \(bind: now)
            WHERE hidden = \(bind: true) AND status = 'pending' AND inviter_id = \(bind: target) AND invitee_id = \(bind: user)
            """
        ).run()
        return true
    }

    /// A report as filed.
    struct NewReport: Sendable {
        var targetType: String
        var targetID: UUID
        var reason: String
        var details: String?
    }

    /// Whether the target of a report exists.
    func exists(_ targetType: String, _ id: UUID, on sql: any SQLDatabase) async throws -> Bool {
        // A closed group is no more there than an unknown one.
        if targetType == "group" {
            return try await sql.raw("SELECT id FROM sport_groups WHERE id = \(bind: id) AND status = 'active'").first() != nil
        }
        let table = ["user": "users", "event": "events", "message": "chat_messages", "photo": "media"][targetType] ?? "users"
        return try await sql.raw("SELECT id FROM \(unsafeRaw: table) WHERE id = \(bind: id)").first() != nil
    }

    /// The reporter's report on this target, if they filed one.
    func report(by user: UUID, on targetType: String, _ id: UUID, on sql: any SQLDatabase) async throws -> Report? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.reportColumns) FROM reports WHERE reporter_id = \(bind: user) AND target_type = \(bind: targetType) AND target_id = \(bind: id)
            """
        ).first().map(Self.decodeReport)
    }

    /// Locks the reporter's row until the transaction ends (PostgreSQL).
    func lockReporter(_ user: UUID, on sql: any SQLDatabase) async throws {
        if sql.isPostgres { try await sql.raw("SELECT id FROM users WHERE id = \(bind: user) FOR UPDATE").run() }
    }

    /// When the reporter filed their reports since `since`, oldest first.
    func reportTimes(by user: UUID, since: Date, on sql: any SQLDatabase) async throws -> [Date] {
        try await sql.raw(
            "SELECT created_at FROM reports WHERE reporter_id = \(bind: user) AND created_at > \(bind: since) ORDER BY created_at"
        )
        .all().map { try $0.value("created_at") }
    }

    /// Files a report; `nil` when the same reporter filed one on the same target meanwhile.
    func insert(_ report: NewReport, by user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Report? {
        // A message is kept as it reads now, for the moderators, even if its author deletes it later.
        let content = report.targetType == "message" ? try await messageContent(report.targetID, on: sql) : nil
        return try await sql.raw(
            """
            INSERT INTO reports (id, reporter_id, target_type, target_id, reason, details, status, created_at, content)
            VALUES (\(bind: UUID()), \(bind: user), \(bind: report.targetType), \(bind: report.targetID), \(bind: report.reason), \(bind: report.details), 'open', \(bind: now),
                    \(bind: content))
            ON CONFLICT (reporter_id, target_type, target_id) DO NOTHING
            RETURNING \(unsafeRaw: Self.reportColumns)
            """
        ).first().map(Self.decodeReport)
    }

    /// Who the user blocked.
    func blockedBy(_ user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Set<UUID> {
        try await reading(on: sql) { sql in
            Set(
                try await sql.raw("SELECT blocked_id FROM blocks WHERE blocker_id = \(bind: user)").all().map { try $0.value("blocked_id") }
            )
        }
    }

    /// Those each of `users` blocked, for many at once (everyone asked about is in the
    /// answer): a read for each ``Store/idsPerRead``.
    func blockedBy(users: [UUID]) async throws -> [UUID: Set<UUID>] {
        var blocked: [UUID: Set<UUID>] = [:]
        for chunk in Array(Set(users)).chunks(of: Self.idsPerRead) {
            let rows = try await database.read { sql in
                try await sql.raw("SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id IN (\(binds: Array(chunk)))").all()
                    .map { (try $0.value("blocker_id", as: UUID.self), try $0.value("blocked_id", as: UUID.self)) }
            }
            for user in chunk { blocked[user] = [] }
            for (blocker, person) in rows { blocked[blocker, default: []].insert(person) }
        }
        return blocked
    }

    /// Whether either of the two blocked the other.
    func eitherBlocked(_ a: UUID, _ b: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            SELECT blocker_id FROM blocks WHERE (blocker_id = \(bind: a) AND blocked_id = \(bind: b)) OR (blocker_id = \(bind: b) AND blocked_id = \(bind: a))
            """
        ).first() != nil
    }
}

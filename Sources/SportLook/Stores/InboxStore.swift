import Foundation
import SQLKit

/// The notification inbox and push devices.
struct InboxStore: Sendable {
    let database: Database

    typealias Item = InboxItem

    /// Writes jobs' notifications to the inbox, each exactly once whatever the
    /// retries; a collapsing one replaces the recipient's unread one with the same
    /// key. Those that do not collapse (most) take one statement for the batch.
    /// - Returns: For each job in order, the inbox row's id and whether this call wrote it.
    func deliver(_ batch: [(message: NotificationMessage, jobID: UUID)], at now: Date, on sql: any SQLDatabase) async throws -> [(id: UUID, isNew: Bool)] {
        var out = [(id: UUID, isNew: Bool)?](repeating: nil, count: batch.count)
        let plain = batch.indices.filter { batch[$0].message.collapseKey == nil }
        if !plain.isEmpty {
            let values: [[any Encodable & Sendable]] = plain.map { i in
                let (message, jobID) = batch[i]
                return [UUID(), message.userID, message.kind, message.dataJSON, jobID, now]
            }
            var written: [UUID: UUID] = [:]
            for row in try await sql.raw("""
                INSERT INTO notifications (id, user_id, kind, data, job_id, created_at) VALUES \(BindRows(rows: values))
                ON CONFLICT DO NOTHING RETURNING id, job_id
                """).all() {
                written[try row.value("job_id")] = try row.value("id")
            }
            // Rows a previous attempt wrote (a retry after a crash or a lost lease).
            let repeated = plain.map { batch[$0].jobID }.filter { written[$0] == nil }
            var existing: [UUID: UUID] = [:]
            if !repeated.isEmpty {
                for row in try await sql.raw("SELECT id, job_id FROM notifications WHERE job_id IN (\(binds: repeated))").all() {
                    existing[try row.value("job_id")] = try row.value("id")
                }
            }
            for i in plain {
                let jobID = batch[i].jobID
                out[i] = written[jobID].map { ($0, true) } ?? (existing[jobID] ?? UUID(), false)
            }
        }
        for i in batch.indices where out[i] == nil {
            out[i] = try await deliverCollapsing(batch[i].message, jobID: batch[i].jobID, at: now, on: sql)
        }
        return out.map { $0! }
    }

    private func deliverCollapsing(_ message: NotificationMessage, jobID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> (id: UUID, isNew: Bool) {
        let data = message.dataJSON
        if let key = message.collapseKey {
            if let row = try await sql.raw("""
                UPDATE notifications SET kind = \(bind: message.kind), data = \(bind: data), created_at = \(bind: now), job_id = \(bind: jobID)
                WHERE user_id = \(bind: message.userID) AND collapse_key = \(bind: key) AND read_at IS NULL AND (job_id IS NULL OR job_id <> \(bind: jobID))
                RETURNING id
                """).first() {
                return (try row.value("id"), true)
            }
        }
        if let row = try await sql.raw("""
            INSERT INTO notifications (id, user_id, kind, data, job_id, collapse_key, created_at)
            VALUES (\(bind: UUID()), \(bind: message.userID), \(bind: message.kind), \(bind: data), \(bind: jobID), \(bind: message.collapseKey), \(bind: now))
            ON CONFLICT DO NOTHING
            RETURNING id
            """).first() {
            return (try row.value("id"), true)
        }
        let existing = try await sql.raw("SELECT id FROM notifications WHERE job_id = \(bind: jobID)").first()
        return (try existing?.value("id") ?? UUID(), false)
    }

    func item(_ id: UUID) async throws -> Item? {
        try await database.read { sql in
            try await sql.raw("SELECT id, kind, data, created_at, read_at FROM notifications WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    static func decode(_ row: any SQLRow) throws -> Item {
        Item(id: try row.value("id"), kind: try row.value("kind"), data: try row.value("data"), createdAt: try row.value("created_at"), readAt: try row.optional("read_at"))
    }

    /// Newest first.
    func list(user: UUID, unreadOnly: Bool, cursor: TimeCursor?, limit: Int) async throws -> (items: [Item], more: Bool) {
        try await database.read { sql in
            let unread: SQLQueryString = unreadOnly ? "AND read_at IS NULL" : ""
            let rows = try await sql.raw("""
                SELECT id, kind, data, created_at, read_at FROM notifications
                WHERE user_id = \(bind: user) \(unread) \(Keyset.after(time: "created_at", id: "id", after: cursor, descending: true))
                ORDER BY created_at DESC, id DESC LIMIT \(bind: limit + 1)
                """).all()
            return (try rows.prefix(limit).map(Self.decode), rows.count > limit)
        }
    }

    func markRead(user: UUID, ids: [UUID]?, at now: Date) async throws {
        try await database.transaction { sql in
            let which: SQLQueryString = ids.map { "AND id IN (\(binds: $0))" } ?? ""
            try await sql.raw("UPDATE notifications SET read_at = \(bind: now) WHERE user_id = \(bind: user) AND read_at IS NULL \(which)").run()
        }
    }

    func unreadCount(user: UUID) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM notifications WHERE user_id = \(bind: user) AND read_at IS NULL").first()?.value("n") ?? 0
        }
    }

    // MARK: Devices

    /// Registers a device for the user's session (a token moves to whoever
    /// registers it last); when the session ends, the registration goes with it.
    func register(user: UUID, session: UUID, platform: String, token: String, at now: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("""
                INSERT INTO devices (token, user_id, session_id, platform, created_at)
                VALUES (\(bind: token), \(bind: user), \(bind: session), \(bind: platform), \(bind: now))
                ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id, platform = excluded.platform
                """).run()
        }
    }

    func removeDevice(user: UUID, token: String) async throws -> Bool {
        try await database.transaction { sql in
            !(try await sql.raw("DELETE FROM devices WHERE token = \(bind: token) AND user_id = \(bind: user) RETURNING token").all().isEmpty)
        }
    }

    func removeDevices(tokens: [String]) async throws {
        guard !tokens.isEmpty else { return }
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM devices WHERE token IN (\(binds: tokens))").run()
        }
    }

    /// The devices of each user that may receive pushes at `now`: registered by a
    /// session still live (or before sessions owned registrations).
    func devices(of users: [UUID], at now: Date) async throws -> [UUID: [PushDevice]] {
        guard !users.isEmpty else { return [:] }
        return try await database.read { sql in
            var out: [UUID: [PushDevice]] = [:]
            for row in try await sql.raw("""
                SELECT d.user_id, d.token, d.platform FROM devices d LEFT JOIN access_tokens t ON t.id = d.session_id
                WHERE d.user_id IN (\(binds: Array(Set(users))))
                  AND (d.session_id IS NULL OR (t.revoked_at IS NULL AND t.expires_at > \(bind: now)))
                ORDER BY d.created_at, d.token
                """).all() {
                out[try row.value("user_id"), default: []].append(PushDevice(token: try row.value("token"), platform: try row.value("platform")))
            }
            return out
        }
    }
}

import Foundation
import SQLKit

/// The notification inbox and push devices.
struct InboxStore: Store {
    let database: Database

    typealias Item = InboxItem

    /// Writes jobs' notifications to the inbox, each exactly once whatever the
    /// retries; a collapsing one replaces the recipient's unread one with the same
    /// key. Those that do not collapse (most) take one statement for the batch.
    /// - Returns: For each job in order, the inbox row's id and whether this call wrote it.
    func deliver(_ batch: [(message: NotificationMessage, jobID: UUID)], at now: Date, on sql: any SQLDatabase) async throws -> [(
        id: UUID, isNew: Bool
    )] {
        var out = [(id: UUID, isNew: Bool)?](repeating: nil, count: batch.count)
        let plain = batch.indices.filter { batch[$0].message.collapseKey == nil }
        if !plain.isEmpty {
            let values: [[any Encodable & Sendable]] = plain.map { i in
                let (message, jobID) = batch[i]
                return [UUID(), message.userID, message.kind, message.title, message.keptBody, message.dataJSON, jobID, now]
            }
            var written: [UUID: UUID] = [:]
            for row in try await sql.raw(
                """
                INSERT INTO notifications (id, user_id, kind, title, body, data, job_id, created_at) VALUES \(BindRows(rows: values))
                ON CONFLICT DO NOTHING RETURNING id, job_id
                """
            ).all() {
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

    private func deliverCollapsing(_ message: NotificationMessage, jobID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> (
        id: UUID, isNew: Bool
    ) {
        let data = message.dataJSON
        if let key = message.collapseKey {
            if let row = try await sql.raw(
                """
                UPDATE notifications SET kind = \(bind: message.kind), title = \(bind: message.title), body = \(bind: message.keptBody), data = \(bind: data), created_at = \(bind: now), job_id = \(bind: jobID)
                WHERE user_id = \(bind: message.userID) AND collapse_key = \(bind: key) AND read_at IS NULL AND (job_id IS NULL OR job_id <> \(bind: jobID))
                RETURNING id
                """
            ).first() {
                return (try row.value("id"), true)
            }
        }
        if let row = try await sql.raw(
            """
            INSERT INTO notifications (id, user_id, kind, title, body, data, job_id, collapse_key, created_at)
            VALUES (\(bind: UUID()), \(bind: message.userID), \(bind: message.kind), \(bind: message.title), \(bind: message.keptBody), \(bind: data), \(bind: jobID), \(bind: message.collapseKey), \(bind: now))
            ON CONFLICT DO NOTHING
            RETURNING id
            """
        ).first() {
            return (try row.value("id"), true)
        }
        let existing = try await sql.raw("SELECT id FROM notifications WHERE job_id = \(bind: jobID)").first()
        return (try existing?.value("id") ?? UUID(), false)
    }

    func item(_ id: UUID) async throws -> Item? {
        try await database.read { sql in
            try await sql.raw("SELECT id, kind, title, body, data, created_at, read_at FROM notifications WHERE id = \(bind: id)").first()
                .map(
                    Self.decode)
        }
    }

    static func decode(_ row: any SQLRow) throws -> Item {
        Item(
            id: try row.value("id"), kind: try row.value("kind"), title: try row.optional("title"), body: try row.optional("body"),
            data: try row.value("data"), createdAt: try row.value("created_at"),
            readAt: try row.optional("read_at"))
    }

    /// Newest first.
    func list(user: UUID, unreadOnly: Bool, cursor: TimeCursor?, limit: Int) async throws -> (items: [Item], more: Bool) {
        try await database.read { sql in
            let unread: SQLQueryString = unreadOnly ? "AND read_at IS NULL" : ""
            let rows = try await sql.raw(
                """
                SELECT id, kind, title, body, data, created_at, read_at FROM notifications
                WHERE user_id = \(bind: user) \(unread) \(Keyset.after(time: "created_at", id: "id", after: cursor, descending: true))
                ORDER BY created_at DESC, id DESC LIMIT \(bind: limit + 1)
                """
            ).all()
            return (try rows.prefix(limit).map(Self.decode), rows.count > limit)
        }
    }

    func markRead(user: UUID, ids: [UUID]?, at now: Date) async throws {
        try await database.transaction { sql in
            let which: SQLQueryString = ids.map { "AND id IN (\(binds: $0))" } ?? ""
            try await sql.raw("UPDATE notifications SET read_at = \(bind: now) WHERE user_id = \(bind: user) AND read_at IS NULL \(which)")
                .run()
        }
    }

    func unreadCount(user: UUID) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM notifications WHERE user_id = \(bind: user) AND read_at IS NULL").first()?.value(
                "n") ?? 0
        }
    }

    // MARK: Devices

    private static let deviceColumns = "d.id, d.user_id, d.token, d.platform, d.environment, d.p256dh, d.auth, d.created_at"

    private static func device(_ row: any SQLRow) throws -> PushDevice {
        let platform: String = try row.value("platform")
        return PushDevice(
            id: try row.value("id"), platform: PushPlatform(rawValue: platform) ?? .ios, token: try row.value("token"),
            environment: try row.optional("environment", as: String.self), p256dh: try row.optional("p256dh", as: String.self),
            auth: try row.optional("auth", as: String.self), createdAt: try row.value("created_at")
        )
    }

    /// Registers a device for the user's session (a token moves to whoever
    /// registers it last, keeping its id while it stays with one user); when the
    /// session ends, the registration goes with it. Beyond ``PushDevice/perUser``
    /// the user's oldest registrations are dropped. Returns the registration as stored.
    func register(_ device: PushDevice, user: UUID, session: UUID) async throws -> PushDevice {
        try await database.transaction { sql in
            let id: UUID = try await sql.raw(
                """
                INSERT INTO devices (id, token, user_id, session_id, platform, environment, p256dh, auth, created_at)
                VALUES (\(bind: device.id), \(bind: device.token), \(bind: user), \(bind: session), \(bind: device.platform.rawValue),
                        \(bind: device.environment), \(bind: device.p256dh), \(bind: device.auth), \(bind: device.createdAt))
                ON CONFLICT (token) DO UPDATE SET
                    id = CASE WHEN devices.user_id = excluded.user_id THEN devices.id ELSE excluded.id END,
                    user_id = excluded.user_id, session_id = excluded.session_id, platform = excluded.platform,
                    environment = excluded.environment, p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at
                RETURNING id
                """
            ).first()!.value("id")
            try await sql.raw(
                """
                DELETE FROM devices WHERE user_id = \(bind: user) AND id NOT IN (
                    SELECT id FROM devices WHERE user_id = \(bind: user) ORDER BY created_at DESC, id DESC LIMIT \(bind: PushDevice.perUser))
                """
            ).run()
            var stored = device
            stored.id = id
            return stored
        }
    }

    /// The user's registrations that may receive pushes, newest first.
    func devices(of user: UUID, at now: Date) async throws -> [PushDevice] {
        try await devices(of: [user], at: now)[user] ?? []
    }

    /// Removes one of the user's registrations, named by its id or its token.
    func removeDevice(user: UUID, named name: String) async throws -> Bool {
        try await database.transaction { sql in
            let rows: [any SQLRow]
            if let id = UUID(text: name) {
                rows = try await sql.raw("DELETE FROM devices WHERE id = \(bind: id) AND user_id = \(bind: user) RETURNING id").all()
            } else {
                rows = try await sql.raw("DELETE FROM devices WHERE token = \(bind: name) AND user_id = \(bind: user) RETURNING id").all()
            }
            return !rows.isEmpty
        }
    }

    /// Forgets registrations a push service said are gone.
    func removeDevices(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM devices WHERE id IN (\(binds: ids))").run()
        }
    }

    /// The devices of each user that may receive pushes at `now`: registered by a
    /// session still live (or before sessions owned registrations), newest first.
    func devices(of users: [UUID], at now: Date) async throws -> [UUID: [PushDevice]] {
        guard !users.isEmpty else { return [:] }
        return try await database.read { sql in
            var out: [UUID: [PushDevice]] = [:]
            for row in try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.deviceColumns) FROM devices d LEFT JOIN access_tokens t ON t.id = d.session_id
                WHERE d.user_id IN (\(binds: Array(Set(users))))
                  AND (d.session_id IS NULL OR (t.revoked_at IS NULL AND t.expires_at > \(bind: now)))
                ORDER BY d.created_at DESC, d.id DESC
                """
            ).all() {
                out[try row.value("user_id"), default: []].append(try Self.device(row))
            }
            return out
        }
    }

    // MARK: Push receipts

    /// The devices each job has settled on earlier attempts.
    func receipts(jobs: [UUID]) async throws -> [UUID: Set<UUID>] {
        guard !jobs.isEmpty else { return [:] }
        return try await database.read { sql in
            var out: [UUID: Set<UUID>] = [:]
            for row in try await sql.raw("SELECT job_id, device_id FROM push_receipts WHERE job_id IN (\(binds: jobs))").all() {
                out[try row.value("job_id"), default: []].insert(try row.value("device_id"))
            }
            return out
        }
    }

    /// Records the devices settled for jobs that will be tried again, and forgets
    /// the receipts of jobs that are settled.
    func settleReceipts(record: [(job: UUID, device: UUID)], forget: [UUID]) async throws {
        guard !record.isEmpty || !forget.isEmpty else { return }
        try await database.transaction { sql in
            if !record.isEmpty {
                try await sql.raw(
                    """
                    INSERT INTO push_receipts (job_id, device_id) VALUES \(BindRows(rows: record.map { [$0.job, $0.device] }))
                    ON CONFLICT (job_id, device_id) DO NOTHING
                    """
                ).run()
            }
            if !forget.isEmpty {
                try await sql.raw("DELETE FROM push_receipts WHERE job_id IN (\(binds: forget))").run()
            }
        }
    }

    /// Each user's unread notifications (the badge on an iPhone's icon).
    func unreadCounts(users: [UUID]) async throws -> [UUID: Int] {
        guard !users.isEmpty else { return [:] }
        return try await database.read { sql in
            var out: [UUID: Int] = [:]
            for row in try await sql.raw(
                """
                SELECT user_id, COUNT(*) AS n FROM notifications WHERE user_id IN (\(binds: Array(Set(users)))) AND read_at IS NULL GROUP BY user_id
                """
            ).all() {
                out[try row.value("user_id")] = try row.value("n")
            }
            return out
        }
    }
}

import Foundation
import SQLKit

/// Data exports, and every row the service holds about one person, read for one.
struct ExportStore: Store {
    let database: Database

    // MARK: Exports

    static let columns = "id, user_id, requested_by, status, requested_at, ready_at, expires_at, size"

    static func export(_ row: any SQLRow) throws -> DataExport {
        DataExport(
            id: try row.value("id"), userID: try row.value("user_id"), requestedBy: try row.optional("requested_by"),
            status: DataExport.Status(rawValue: try row.value("status")) ?? .expired, requestedAt: try row.value("requested_at"),
            readyAt: try row.optional("ready_at"), expiresAt: try row.optional("expires_at"),
            size: try row.optional("size", as: Int64.self).map(Int.init))
    }

    func insert(_ export: DataExport, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO data_exports (id, user_id, requested_by, status, requested_at)
            VALUES (\(bind: export.id), \(bind: export.userID), \(bind: export.requestedBy), 'pending', \(bind: export.requestedAt))
            """
        ).run()
    }

    /// The person's own exports asked for since `since`, newest first.
    func requested(by user: UUID, since: Date, on sql: any SQLDatabase) async throws -> [DataExport] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM data_exports
            WHERE user_id = \(bind: user) AND requested_by IS NULL AND requested_at > \(bind: since) ORDER BY requested_at DESC
            """
        ).all().map(Self.export)
    }

    /// The person's exports, newest first.
    func exports(of user: UUID) async throws -> [DataExport] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.columns) FROM data_exports WHERE user_id = \(bind: user) ORDER BY requested_at DESC LIMIT 20"
            ).all().map(Self.export)
        }
    }

    func export(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> DataExport? {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM data_exports WHERE id = \(bind: id)").first().map(Self.export)
        }
    }

    /// Keeps a built archive; `false` when the export is no longer pending.
    func finish(_ id: UUID, archive: [UInt8], at now: Date, expiresAt: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE data_exports SET status = 'ready', archive = \(bind: Data(archive)), size = \(bind: Int64(archive.count)),
                ready_at = \(bind: now), expires_at = \(bind: expiresAt)
            WHERE id = \(bind: id) AND status = 'pending' RETURNING id
            """
        ).first() != nil
    }

    /// Drops an archive whose time is up.
    func expire(_ id: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE data_exports SET status = 'expired', archive = NULL WHERE id = \(bind: id)").run()
    }

    /// A ready archive's bytes.
    func archive(_ id: UUID) async throws -> [UInt8]? {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT x.archive FROM data_exports x JOIN users u ON u.id = x.user_id
                WHERE x.id = \(bind: id) AND x.status = 'ready' AND u.deleted_at IS NULL
                """
            ).first()?
            .optional("archive", as: Data.self).map { [UInt8]($0) }
        }
    }

    // MARK: A person's rows

    /// How a column is read.
    enum Kind: Sendable { case text, integer, real, date, bool, uuid }

    /// Every row the service holds about `user`, one section per kind of thing; the ids
    /// and keys of the photos they uploaded (the largest variant of each).
    func rows(of user: UUID) async throws -> (sections: [ExportSection], photos: [(id: UUID, key: String)]) {
        try await database.read(timeout: Database.bulkReadTimeout) { sql in
            var sections: [ExportSection] = []
            func add(_ file: String, _ query: SQLQueryString, _ columns: [(String, Kind)]) async throws {
                sections.append(ExportSection(file: file, rows: try await Self.read(query, columns, on: sql)))
            }
            try await add(
                "account",
                """
                SELECT id, name, email, email_verified, bio, gender, lat, lon, discoverable, language, reminders, created_at, updated_at,
                    limited_at, suspended_at, suspended_until
                FROM users WHERE id = \(bind: user)
                """,
                [
                    ("id", .uuid), ("name", .text), ("email", .text), ("email_verified", .bool), ("bio", .text), ("gender", .text),
                    ("lat", .real), ("lon", .real), ("discoverable", .bool), ("language", .text), ("reminders", .bool),
                    ("created_at", .date), ("updated_at", .date), ("limited_at", .date), ("suspended_at", .date),
                    ("suspended_until", .date),
                ])
            try await add(
                "sports", "SELECT sport_slug FROM user_sports WHERE user_id = \(bind: user) ORDER BY sport_slug", [("sport_slug", .text)])
            try await add(
                "levels",
                "SELECT sport_slug, level_half, rating, rated_games FROM user_levels WHERE user_id = \(bind: user) ORDER BY sport_slug",
                [("sport_slug", .text), ("level_half", .integer), ("rating", .integer), ("rated_games", .integer)])
            try await add(
                "level_changes",
                """
                SELECT sport_slug, event_id, rating_before, rating_after, at FROM level_changes
                WHERE user_id = \(bind: user) ORDER BY at
                """,
                [("sport_slug", .text), ("event_id", .uuid), ("rating_before", .integer), ("rating_after", .integer), ("at", .date)])
            try await add(
                "teams", "SELECT event_id, team, fixed FROM team_players WHERE user_id = \(bind: user) ORDER BY event_id",
                [("event_id", .uuid), ("team", .integer), ("fixed", .bool)])
            try await add(
                "identities", "SELECT provider, email, created_at FROM identities WHERE user_id = \(bind: user) ORDER BY created_at",
                [("provider", .text), ("email", .text), ("created_at", .date)])
            try await add(
                "sessions",
                """
                SELECT id, user_agent, created_at, expires_at, last_used_at, revoked_at FROM access_tokens
                WHERE user_id = \(bind: user) ORDER BY created_at
                """,
                [
                    ("id", .uuid), ("user_agent", .text), ("created_at", .date), ("expires_at", .date), ("last_used_at", .date),
                    ("revoked_at", .date),
                ])
            try await add(
                "sign_in_networks",
                "SELECT network, last_used_at FROM sign_in_networks WHERE user_id = \(bind: user) ORDER BY last_used_at DESC, network",
                [("network", .text), ("last_used_at", .date)])
            try await add(
                "devices", "SELECT id, platform, environment, created_at FROM devices WHERE user_id = \(bind: user) ORDER BY created_at",
                [("id", .uuid), ("platform", .text), ("environment", .text), ("created_at", .date)])
            let event: [(String, Kind)] = [
                ("id", .uuid), ("title", .text), ("sport_slug", .text), ("description", .text), ("address", .text), ("lat", .real),
                ("lon", .real), ("starts_at", .date), ("ends_at", .date), ("time_zone", .text), ("capacity", .integer),
                ("status", .text), ("created_at", .date),
            ]
            try await add(
                "events_organised",
                """
                SELECT id, title, sport_slug, description, address, lat, lon, starts_at, ends_at, time_zone, capacity, status, created_at
                FROM events WHERE organiser_id = \(bind: user) ORDER BY starts_at
                """, event)
            try await add(
                "events_joined",
                """
                SELECT a.event_id, e.title, e.starts_at, a.status, a.joined_at FROM attendances a JOIN events e ON e.id = a.event_id
                WHERE a.user_id = \(bind: user) ORDER BY e.starts_at
                """, [("event_id", .uuid), ("title", .text), ("starts_at", .date), ("status", .text), ("joined_at", .date)])
            try await add(
                "events_maybe", "SELECT event_id, answered_at FROM event_maybes WHERE user_id = \(bind: user) ORDER BY answered_at",
                [("event_id", .uuid), ("answered_at", .date)])
            try await add(
                "attendance_record",
                """
                SELECT event_id, checked_in_at, mark, marked_at, late_cancelled_at FROM attendance_records
                WHERE user_id = \(bind: user) ORDER BY event_id
                """,
                [("event_id", .uuid), ("checked_in_at", .date), ("mark", .text), ("marked_at", .date), ("late_cancelled_at", .date)])
            try await add(
                "series_organised",
                """
                SELECT id, title, sport_slug, address, first_date, rule, status, created_at FROM series
                WHERE organiser_id = \(bind: user) ORDER BY created_at
                """,
                [
                    ("id", .uuid), ("title", .text), ("sport_slug", .text), ("address", .text), ("first_date", .text), ("rule", .text),
                    ("status", .text), ("created_at", .date),
                ])
            try await add(
                "series_regular", "SELECT series_id, joined_at FROM series_regulars WHERE user_id = \(bind: user) ORDER BY joined_at",
                [("series_id", .uuid), ("joined_at", .date)])
            try await add(
                "messages",
                """
                SELECT id, room_id, seq, body, attachment_id, created_at, edited_at, deleted_at FROM chat_messages
                WHERE sender_id = \(bind: user) ORDER BY created_at, seq
                """,
                [
                    ("id", .uuid), ("room_id", .uuid), ("seq", .integer), ("body", .text), ("attachment_id", .uuid),
                    ("created_at", .date), ("edited_at", .date), ("deleted_at", .date),
                ])
            try await add(
                "reactions", "SELECT room_id, seq, emoji, created_at FROM chat_reactions WHERE user_id = \(bind: user) ORDER BY created_at",
                [("room_id", .uuid), ("seq", .integer), ("emoji", .text), ("created_at", .date)])
            try await add(
                "poll_votes",
                """
                SELECT v.room_id, v.seq, v.position, o.label, v.created_at FROM chat_poll_votes v
                JOIN chat_poll_options o ON o.room_id = v.room_id AND o.seq = v.seq AND o.position = v.position
                WHERE v.user_id = \(bind: user) ORDER BY v.created_at, v.room_id, v.seq
                """, [("room_id", .uuid), ("seq", .integer), ("position", .integer), ("label", .text), ("created_at", .date)])
            try await add(
                "money",
                """
                SELECT event_id, group_id, period, kind, reason, amount, currency, means, at, note FROM ledger_entries
                WHERE user_id = \(bind: user) ORDER BY seq
                """,
                [
                    ("event_id", .uuid), ("group_id", .uuid), ("period", .text), ("kind", .text), ("reason", .text), ("amount", .integer),
                    ("currency", .text), ("means", .text),
                    ("at", .date), ("note", .text),
                ])
            try await add(
                "payment_claims",
                """
                SELECT event_id, group_id, amount, currency, means, note, status, created_at FROM payment_claims
                WHERE user_id = \(bind: user) ORDER BY created_at
                """,
                [
                    ("event_id", .uuid), ("group_id", .uuid), ("amount", .integer), ("currency", .text), ("means", .text), ("note", .text),
                    ("status", .text),
                    ("created_at", .date),
                ])
            try await add(
                "groups",
                """
                SELECT m.group_id, g.name, m.role, m.joined_at FROM group_members m JOIN sport_groups g ON g.id = m.group_id
                WHERE m.user_id = \(bind: user) ORDER BY m.joined_at
                """, [("group_id", .uuid), ("name", .text), ("role", .text), ("joined_at", .date)])
            let invitation: [(String, Kind)] = [
                ("id", .uuid), ("event_id", .uuid), ("status", .text), ("created_at", .date), ("responded_at", .date),
            ]
            try await add(
                "invitations_sent",
                """
                SELECT id, event_id, status, created_at, responded_at FROM invitations WHERE inviter_id = \(bind: user) ORDER BY created_at
                """, invitation)
            try await add(
                "invitations_received",
                """
                SELECT id, event_id, status, created_at, responded_at FROM invitations
                WHERE invitee_id = \(bind: user) AND hidden = \(bind: false) ORDER BY created_at
                """, invitation)
            try await add(
                "reports_made",
                """
                SELECT id, target_type, target_id, reason, details, status, outcome, created_at FROM reports
                WHERE reporter_id = \(bind: user) ORDER BY created_at
                """,
                [
                    ("id", .uuid), ("target_type", .text), ("target_id", .uuid), ("reason", .text), ("details", .text), ("status", .text),
                    ("outcome", .text), ("created_at", .date),
                ])
            try await add(
                "appeals",
                "SELECT id, action_id, statement, status, created_at, decided_at FROM appeals WHERE user_id = \(bind: user) ORDER BY created_at",
                [
                    ("id", .uuid), ("action_id", .uuid), ("statement", .text), ("status", .text), ("created_at", .date),
                    ("decided_at", .date),
                ])
            try await add(
                "blocks", "SELECT blocked_id, created_at FROM blocks WHERE blocker_id = \(bind: user) ORDER BY created_at",
                [("blocked_id", .uuid), ("created_at", .date)])
            try await add(
                "notifications",
                "SELECT kind, title, body, data, created_at, read_at FROM notifications WHERE user_id = \(bind: user) ORDER BY created_at",
                [("kind", .text), ("title", .text), ("body", .text), ("data", .text), ("created_at", .date), ("read_at", .date)])
            try await add(
                "uploads", "SELECT id, use, width, height, bytes, created_at FROM media WHERE owner_id = \(bind: user) ORDER BY created_at",
                [("id", .uuid), ("use", .text), ("width", .integer), ("height", .integer), ("bytes", .integer), ("created_at", .date)])
            // The largest variant of each upload: the photo as the service keeps it.
            var photos: [(id: UUID, key: String)] = []
            var seen: Set<UUID> = []
            for row in try await sql.raw(
                """
                SELECT v.media_id, v.key FROM media_variants v JOIN media m ON m.id = v.media_id
                WHERE m.owner_id = \(bind: user) ORDER BY v.media_id, v.width DESC
                """
            ).all() {
                let id: UUID = try row.value("media_id")
                if seen.insert(id).inserted { photos.append((id, try row.value("key"))) }
            }
            return (sections, photos)
        }
    }

    /// The rows of `query`, each column read as its kind (a null as null).
    private static func read(_ query: SQLQueryString, _ columns: [(String, Kind)], on sql: any SQLDatabase) async throws
        -> [[String: JSONValue]]
    {
        try await sql.raw(query).all().map { row in
            var out: [String: JSONValue] = [:]
            for (name, kind) in columns {
                switch kind {
                case .text: out[name] = try row.optional(name, as: String.self).map(JSONValue.string) ?? .null
                case .integer: out[name] = try row.optional(name, as: Int64.self).map { .number(Double($0)) } ?? .null
                case .real: out[name] = try row.optional(name, as: Double.self).map(JSONValue.number) ?? .null
                case .date: out[name] = try row.optional(name, as: Date.self).map { .string(RFC3339.format($0)) } ?? .null
                case .bool: out[name] = try row.optional(name, as: Bool.self).map(JSONValue.bool) ?? .null
                case .uuid: out[name] = try row.optional(name, as: UUID.self).map { .string($0.lowercased) } ?? .null
                }
            }
            return out
        }
    }
}

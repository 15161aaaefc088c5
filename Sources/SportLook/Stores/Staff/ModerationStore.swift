import Foundation
import SQLKit

/// The reports queue and people's standing: what staff read and change when they act.
struct ModerationStore: Store {
    let database: Database
    /// What "live" sessions are live at.
    var clock: any AppClock = SystemClock()

    /// Open reports with their reporters' names, oldest first (at most `limit` rows).
    func openReports(limit: Int, on sql: any SQLDatabase) async throws -> [FiledReport] {
        try await sql.raw(
            """
            SELECT r.id, r.reporter_id, r.target_type, r.target_id, r.reason, r.details, r.status, r.created_at, r.content, u.name AS reporter_name
            FROM reports r JOIN users u ON u.id = r.reporter_id
            WHERE r.status = 'open' ORDER BY r.created_at, r.id LIMIT \(bind: limit)
            """
        ).all().map { row in
            FiledReport(
                report: try SafetyStore.decodeReport(row),
                reporter: UserSummary(id: try row.value("reporter_id"), name: try row.value("reporter_name")))
        }
    }

    /// The open reports on one target, oldest first.
    func openReports(on targetType: String, _ id: UUID, on sql: any SQLDatabase) async throws -> [FiledReport] {
        try await sql.raw(
            """
            SELECT r.id, r.reporter_id, r.target_type, r.target_id, r.reason, r.details, r.status, r.created_at, r.content, u.name AS reporter_name
            FROM reports r JOIN users u ON u.id = r.reporter_id
            WHERE r.target_id = \(bind: id) AND r.target_type = \(bind: targetType) AND r.status = 'open' ORDER BY r.created_at, r.id
            """
        ).all().map { row in
            FiledReport(
                report: try SafetyStore.decodeReport(row),
                reporter: UserSummary(id: try row.value("reporter_id"), name: try row.value("reporter_name")))
        }
    }

    /// Takes the open reports on a target for the rest of the transaction; `false` when
    /// there are none.
    func lockOpenReports(_ targetType: String, _ id: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await !sql.raw(
            """
            SELECT id FROM reports WHERE target_id = \(bind: id) AND target_type = \(bind: targetType) AND status = 'open'
            ORDER BY id \(ForUpdateClause())
            """
        ).all().isEmpty
    }

    /// A reported message as it read when it was first reported (JSON), if kept.
    func reportedContent(of message: UUID, on sql: any SQLDatabase) async throws -> String? {
        try await sql.raw(
            """
            SELECT content FROM reports WHERE target_id = \(bind: message) AND target_type = 'message' AND content IS NOT NULL
            ORDER BY created_at LIMIT 1
            """
        ).first()?.optional("content", as: String.self)
    }

    /// Closes the open reports on a target with `outcome`; returns them.
    func resolve(_ targetType: String, _ id: UUID, outcome: ModerationAction, by staff: UUID?, at now: Date, on sql: any SQLDatabase)
        async throws -> [FiledReport]
    {
        let open = try await openReports(on: targetType, id, on: sql)
        guard !open.isEmpty else { return [] }
        try await sql.raw(
            """
            UPDATE reports SET status = 'resolved', outcome = \(bind: outcome.rawValue), resolved_by = \(bind: staff), resolved_at = \(bind: now)
            WHERE id IN (\(binds: open.map(\.report.id)))
            """
        ).run()
        return open
    }

    /// A message as moderators read it, by its id.
    func message(_ id: UUID, on sql: any SQLDatabase) async throws -> ModeratedMessage? {
        try await sql.raw(
            """
            SELECT m.room_id, m.seq, m.sender_id, u.name, m.body, m.created_at, m.deleted_at
            FROM chat_messages m JOIN users u ON u.id = m.sender_id WHERE m.id = \(bind: id)
            """
        ).first().map(Self.message)
    }

    /// The messages of a room from `seq - span` to `seq + span`, in order.
    func messages(room: UUID, around seq: Int64, span: Int64, on sql: any SQLDatabase) async throws -> [ModeratedMessage] {
        try await sql.raw(
            """
            SELECT m.room_id, m.seq, m.sender_id, u.name, m.body, m.created_at, m.deleted_at
            FROM chat_messages m JOIN users u ON u.id = m.sender_id
            WHERE m.room_id = \(bind: room) AND m.seq BETWEEN \(bind: seq - span) AND \(bind: seq + span) ORDER BY m.seq
            """
        ).all().map(Self.message)
    }

    private static func message(_ row: any SQLRow) throws -> ModeratedMessage {
        ModeratedMessage(
            roomID: try row.value("room_id"), seq: try row.value("seq"),
            sender: UserSummary(id: try row.value("sender_id"), name: try row.value("name")), body: try row.value("body"),
            createdAt: try row.value("created_at"), deletedAt: try row.optional("deleted_at"))
    }

    /// A photo in use, where it shows and who uploaded it, as the queue shows it (an
    /// upload deleted, or shown nowhere now, is gone).
    func photo(_ id: UUID, media: MediaStore, on sql: any SQLDatabase) async throws -> ReportContext? {
        guard let upload = try await media.media(id, on: sql), let (_, place) = try await media.shown(id, on: sql),
            let row = try await sql.raw("SELECT name FROM users WHERE id = \(bind: upload.ownerID)").first()
        else { return nil }
        return .photo(
            id: id, place: place, image: upload.reference, owner: UserSummary(id: upload.ownerID, name: try row.value("name")))
    }

    /// An open group with its owner, as the queue shows it (a closed one is gone).
    func group(_ id: UUID, on sql: any SQLDatabase) async throws -> ReportContext? {
        guard
            let row = try await sql.raw(
                """
                SELECT g.id, g.name, g.member_count, g.owner_id, u.name AS owner_name FROM sport_groups g JOIN users u ON u.id = g.owner_id
                WHERE g.id = \(bind: id) AND g.status = 'active'
                """
            ).first()
        else { return nil }
        return .group(
            id: try row.value("id"), name: try row.value("name"), memberCount: try row.value("member_count"),
            owner: UserSummary(id: try row.value("owner_id"), name: try row.value("owner_name")))
    }

    /// An event with its organiser, as the queue shows it.
    func event(_ id: UUID, on sql: any SQLDatabase) async throws -> ReportContext? {
        guard
            let row = try await sql.raw(
                """
                SELECT e.id, e.title, e.starts_at, e.status, e.organiser_id, u.name FROM events e JOIN users u ON u.id = e.organiser_id
                WHERE e.id = \(bind: id)
                """
            ).first()
        else { return nil }
        return .event(
            id: try row.value("id"), title: try row.value("title"), startsAt: try row.value("starts_at"), status: try row.value("status"),
            organiser: UserSummary(id: try row.value("organiser_id"), name: try row.value("name")))
    }

    /// A person as staff see them, with how often they reported and were reported (on
    /// themselves, their messages and their events).
    func person(_ id: UUID, on sql: any SQLDatabase) async throws -> ModeratedPerson? {
        guard
            let row = try await sql.raw(
                """
                SELECT id, name, email, created_at, deleted_at, limited_at, suspended_at, suspended_until FROM users WHERE id = \(bind: id)
                """
            ).first()
        else { return nil }
        let received = try await sql.raw(
            """
            SELECT
              (SELECT count(*) FROM reports WHERE target_type = 'user' AND target_id = \(bind: id))
              + (SELECT count(*) FROM reports r JOIN chat_messages m ON m.id = r.target_id WHERE r.target_type = 'message' AND m.sender_id = \(bind: id))
              + (SELECT count(*) FROM reports r JOIN events e ON e.id = r.target_id WHERE r.target_type = 'event' AND e.organiser_id = \(bind: id))
              + (SELECT count(*) FROM reports r JOIN sport_groups g ON g.id = r.target_id WHERE r.target_type = 'group' AND g.owner_id = \(bind: id))
              + (SELECT count(*) FROM reports r JOIN media md ON md.id = r.target_id WHERE r.target_type = 'photo' AND md.owner_id = \(bind: id))
              AS received,
              (SELECT count(*) FROM reports WHERE reporter_id = \(bind: id)) AS made,
              (SELECT count(*) FROM devices WHERE user_id = \(bind: id)) AS devices,
              (SELECT count(*) FROM access_tokens WHERE user_id = \(bind: id) AND revoked_at IS NULL AND expires_at > \(bind: clock.now())) AS sessions,
              (SELECT count(*) FROM group_members WHERE user_id = \(bind: id)) AS groups,
              (SELECT count(*) FROM events WHERE organiser_id = \(bind: id)) AS organised,
              (SELECT count(*) FROM attendances WHERE user_id = \(bind: id)) AS joined
            """
        ).first()
        let flag = try await sql.raw("SELECT scripts FROM name_flags WHERE user_id = \(bind: id)").first()?.optional(
            "scripts", as: String.self)
        func count(_ column: String) throws -> Int { Int(try received?.value(column, as: Int64.self) ?? 0) }
        return ModeratedPerson(
            summary: UserSummary(id: try row.value("id"), name: try row.value("name")), createdAt: try row.value("created_at"),
            deleted: try row.optional("deleted_at", as: Date.self) != nil, limited: try row.optional("limited_at", as: Date.self) != nil,
            suspendedAt: try row.optional("suspended_at"), suspendedUntil: try row.optional("suspended_until"),
            reportsReceived: try count("received"), reportsMade: try count("made"), email: try row.value("email"), lookAlike: flag,
            devices: try count("devices"), liveSessions: try count("sessions"), groups: try count("groups"),
            gamesOrganised: try count("organised"), gamesJoined: try count("joined"))
    }

    /// Takes the person's row for the rest of the transaction and reads them; nil when
    /// there is no live account with that id.
    func lockPerson(_ id: UUID, on sql: any SQLDatabase) async throws -> ModeratedPerson? {
        guard
            try await sql.raw("UPDATE users SET version = version WHERE id = \(bind: id) AND deleted_at IS NULL RETURNING id").first()
                != nil
        else { return nil }
        return try await person(id, on: sql)
    }

    /// Sets the person's limit and suspension (a new version, so every index applies it).
    func setStanding(
        _ id: UUID, limitedAt: Date?, suspendedAt: Date?, suspendedUntil: Date?, at now: Date, on sql: any SQLDatabase
    ) async throws {
        try await sql.raw(
            """
            UPDATE users SET limited_at = \(bind: limitedAt), suspended_at = \(bind: suspendedAt), suspended_until = \(bind: suspendedUntil),
                updated_at = \(bind: now), version = version + 1
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// Ends a suspension that ran out at `until` (a lift or a newer suspension since leaves it).
    func endSuspension(of id: UUID, until: Date, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE users SET suspended_at = NULL, suspended_until = NULL, updated_at = \(bind: now), version = version + 1
            WHERE id = \(bind: id) AND suspended_until = \(bind: until) RETURNING id
            """
        ).first() != nil
    }

    /// Accounts whose id is `id`, whose normalized email is `email`, or whose name holds
    /// `name` (any case), by name; at most `limit`.
    func search(id: UUID?, email: String?, name: String?, limit: Int, on sql: any SQLDatabase) async throws -> [ModeratedPerson] {
        var found: [UUID] = []
        if let id { found = try await sql.raw("SELECT id FROM users WHERE id = \(bind: id)").all().map { try $0.value("id") } }
        if let email {
            found += try await sql.raw("SELECT id FROM users WHERE email_normalized = \(bind: email)").all().map { try $0.value("id") }
        }
        if let name {
            let escaped = Self.escapedForLike(name.lowercased())
            found += try await sql.raw(
                """
                SELECT id FROM users WHERE lower(name) LIKE \(bind: "%" + escaped + "%") ESCAPE '\\' AND deleted_at IS NULL
                ORDER BY name, id LIMIT \(bind: limit)
                """
            ).all().map { try $0.value("id") }
        }
        var out: [ModeratedPerson] = []
        var seen: Set<UUID> = []
        for id in found where seen.insert(id).inserted && out.count < limit {
            if let person = try await person(id, on: sql) { out.append(person) }
        }
        return out
    }

    // MARK: Appeals

    static let appealColumns = "id, user_id, action_id, statement, status, created_at, decided_at"

    static func appeal(_ row: any SQLRow) throws -> Appeal {
        Appeal(
            id: try row.value("id"), userID: try row.value("user_id"), actionID: try row.value("action_id"),
            statement: try row.value("statement"), status: Appeal.Status(rawValue: try row.value("status")) ?? .open,
            createdAt: try row.value("created_at"), decidedAt: try row.optional("decided_at"))
    }

    /// Files an appeal; nil when the action was appealed already.
    func insertAppeal(by user: UUID, of action: UUID, statement: String, at now: Date, on sql: any SQLDatabase) async throws -> Appeal? {
        try await sql.raw(
            """
            INSERT INTO appeals (id, user_id, action_id, statement, status, created_at)
            VALUES (\(bind: UUID()), \(bind: user), \(bind: action), \(bind: statement), 'open', \(bind: now))
            ON CONFLICT (action_id) DO NOTHING RETURNING \(unsafeRaw: Self.appealColumns)
            """
        ).first().map(Self.appeal)
    }

    /// Which of these actions were appealed.
    func appealed(_ actions: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !actions.isEmpty else { return [] }
        return Set(
            try await sql.raw("SELECT action_id FROM appeals WHERE action_id IN (\(binds: actions))").all().map {
                try $0.value("action_id", as: UUID.self)
            })
    }

    /// Open appeals, oldest first.
    func openAppeals(limit: Int, on sql: any SQLDatabase) async throws -> [Appeal] {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.appealColumns) FROM appeals WHERE status = 'open' ORDER BY created_at, id LIMIT \(bind: limit)"
        ).all().map(Self.appeal)
    }

    /// Takes an open appeal for the rest of the transaction; nil when there is no open one.
    func lockOpenAppeal(_ id: UUID, on sql: any SQLDatabase) async throws -> Appeal? {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.appealColumns) FROM appeals WHERE id = \(bind: id) AND status = 'open' \(ForUpdateClause())"
        ).first().map(Self.appeal)
    }

    func decideAppeal(_ id: UUID, _ status: Appeal.Status, by staff: UUID?, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE appeals SET status = \(bind: status.rawValue), decided_by = \(bind: staff), decided_at = \(bind: now) WHERE id = \(bind: id)"
        ).run()
    }
}

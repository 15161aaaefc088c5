import Foundation
import SQLKit

/// Staff roles on accounts, and the audit log (append-only: rows are added, never
/// changed; the database's triggers refuse an UPDATE or DELETE).
struct StaffStore: Sendable {
    let database: Database

    /// A live account as staff changes see it.
    struct Account: Sendable {
        var id: UUID
        var name: String
        var emailVerified: Bool
        var role: StaffRole?
    }

    /// The live account with this normalized email.
    func account(normalizedEmail: String, on sql: any SQLDatabase) async throws -> Account? {
        try await sql.raw(
            """
            SELECT id, name, email_verified, staff_role FROM users
            WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL
            """
        ).first().map(Self.account)
    }

    /// Locks the live accounts `ids` (in id order, so two changes never wait on each
    /// other) and reads them as they are now.
    func lock(_ ids: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: Account] {
        let rows = try await sql.raw(
            """
            SELECT id, name, email_verified, staff_role FROM users
            WHERE id IN (\(binds: ids.sorted { $0.uuidString < $1.uuidString })) AND deleted_at IS NULL ORDER BY id \(ForUpdateClause())
            """
        ).all()
        return Dictionary(
            uniqueKeysWithValues: try rows.map { row in
                let account = try Self.account(row)
                return (account.id, account)
            })
    }

    private static func account(_ row: any SQLRow) throws -> Account {
        Account(
            id: try row.value("id"), name: try row.value("name"), emailVerified: try row.value("email_verified"),
            role: try row.optional("staff_role", as: String.self).flatMap(StaffRole.init))
    }

    /// The live account's staff role, as it is now.
    func role(of user: UUID, on sql: any SQLDatabase) async throws -> StaffRole? {
        try await sql.raw("SELECT staff_role FROM users WHERE id = \(bind: user) AND deleted_at IS NULL").first()?
            .optional("staff_role", as: String.self).flatMap(StaffRole.init)
    }

    func setRole(_ role: StaffRole?, of user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET staff_role = \(bind: role?.rawValue) WHERE id = \(bind: user)").run()
    }

    /// Every member of staff: id, name, email and role, by name.
    func staff(on sql: any SQLDatabase) async throws -> [(id: UUID, name: String, email: String, role: StaffRole)] {
        try await sql.raw(
            "SELECT id, name, email, staff_role FROM users WHERE staff_role IS NOT NULL AND deleted_at IS NULL ORDER BY name, id"
        ).all().compactMap { row in
            guard let role = StaffRole(rawValue: try row.value("staff_role")) else { return nil }
            return (try row.value("id"), try row.value("name"), try row.value("email"), role)
        }
    }

    /// Adds a row to the audit log for what `actor` (named `name` now) did, at `now` in
    /// whole milliseconds (as it reads back), with `details` as a JSON object; returns it.
    func record(
        _ action: String, by actor: AuditActor, name: String, target: (type: String, id: String), reason: String,
        details: [String: String] = [:], at now: Date, on sql: any SQLDatabase
    ) async throws -> AuditEntry {
        let entry = AuditEntry(
            id: UUID(), at: now.wholeMilliseconds, actorID: actor.id, actor: name, action: action, targetType: target.type,
            targetID: target.id, reason: reason, details: String(decoding: try JSONEncoder.sorted.encode(details), as: UTF8.self))
        try await append(entry, on: sql)
        return entry
    }

    /// Adds a row to the audit log.
    func append(_ entry: AuditEntry, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO audit_log (id, at, actor_id, actor, action, target_type, target_id, reason, details)
            VALUES (\(bind: entry.id), \(bind: entry.at), \(bind: entry.actorID), \(bind: entry.actor), \(bind: entry.action),
                    \(bind: entry.targetType), \(bind: entry.targetID), \(bind: entry.reason), \(bind: entry.details))
            """
        ).run()
    }

    /// The audit log, newest first, at most `limit` rows, of one action or target if named.
    func entries(action: String? = nil, targetID: String? = nil, limit: Int, on sql: any SQLDatabase) async throws -> [AuditEntry] {
        var filter: SQLQueryString = "WHERE 1 = 1"
        if let action { filter = filter + " AND action = \(bind: action)" }
        if let targetID { filter = filter + " AND target_id = \(bind: targetID)" }
        return try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.entryColumns) FROM audit_log
            \(filter) ORDER BY at DESC, \(unsafeRaw: sql.isPostgres ? "seq" : "rowid") DESC LIMIT \(bind: limit)
            """
        ).all().map(Self.entry)
    }

    /// One row of the audit log.
    func entry(_ id: UUID, on sql: any SQLDatabase) async throws -> AuditEntry? {
        try await sql.raw("SELECT \(unsafeRaw: Self.entryColumns) FROM audit_log WHERE id = \(bind: id)").first().map(Self.entry)
    }

    /// The rows of `actions` that reached `person` (the target, or the subject of a
    /// decision on their content), newest first.
    func entries(reaching person: UUID, actions: [String], on sql: any SQLDatabase) async throws -> [AuditEntry] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.entryColumns) FROM audit_log
            WHERE action IN (\(binds: actions))
              AND ((target_type = 'user' AND target_id = \(bind: person.lowercased)) OR details LIKE \(bind: "%\"subject\":\"\(person.lowercased)\"%"))
            ORDER BY at DESC, \(unsafeRaw: sql.isPostgres ? "seq" : "rowid") DESC LIMIT 50
            """
        ).all().map(Self.entry)
    }

    static let entryColumns = "id, at, actor_id, actor, action, target_type, target_id, reason, details"

    static func entry(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(
            id: try row.value("id"), at: try row.value("at"), actorID: try row.optional("actor_id", as: UUID.self),
            actor: try row.value("actor"), action: try row.value("action"), targetType: try row.value("target_type"),
            targetID: try row.value("target_id"), reason: try row.value("reason"), details: try row.value("details"))
    }
}

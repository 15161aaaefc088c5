import Foundation
import SQLKit

/// Staff roles on accounts, and the audit log (append-only: rows are added, never
/// changed; the database's triggers refuse an UPDATE or DELETE).
struct StaffStore: Sendable {
    let database: Database

    /// The live account with this normalized email: its id, name and staff role.
    func account(normalizedEmail: String, on sql: any SQLDatabase) async throws -> (id: UUID, name: String, role: StaffRole?)? {
        guard
            let row = try await sql.raw(
                "SELECT id, name, staff_role FROM users WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL"
            ).first()
        else { return nil }
        return (try row.value("id"), try row.value("name"), try row.optional("staff_role", as: String.self).flatMap(StaffRole.init))
    }

    /// A person's staff role (nil: none, or no such live account).
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
            SELECT id, at, actor_id, actor, action, target_type, target_id, reason, details FROM audit_log
            \(filter) ORDER BY at DESC, id DESC LIMIT \(bind: limit)
            """
        ).all().map { row in
            AuditEntry(
                id: try row.value("id"), at: try row.value("at"), actorID: try row.optional("actor_id", as: UUID.self),
                actor: try row.value("actor"), action: try row.value("action"), targetType: try row.value("target_type"),
                targetID: try row.value("target_id"), reason: try row.value("reason"), details: try row.value("details"))
        }
    }
}

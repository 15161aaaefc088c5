import Foundation
import SQLKit

/// Blocks and reports.
struct SafetyStore: Sendable {
    let database: Database

    struct Blocked: Sendable {
        var id: UUID
        var name: String
        var at: Date
    }

    struct Report: Sendable {
        var id: UUID
        var reporterID: UUID
        var targetType: String
        var targetID: UUID
        var reason: String
        var details: String?
        var status: String
        var createdAt: Date
    }

    /// Everyone the user blocked or was blocked by.
    func blockedEitherWay(_ user: UUID) async throws -> Set<UUID> {
        try await database.read { sql in
            var out = Set<UUID>()
            for row in try await sql.raw("SELECT blocked_id AS other FROM blocks WHERE blocker_id = \(bind: user) UNION SELECT blocker_id AS other FROM blocks WHERE blocked_id = \(bind: user)").all() {
                out.insert(try row.value("other"))
            }
            return out
        }
    }

    func blocks(of user: UUID, cursor: TimeCursor?, limit: Int) async throws -> (items: [Blocked], more: Bool) {
        try await database.read { sql in
            let rows = try await sql.raw("""
                SELECT b.blocked_id, b.created_at, u.name FROM blocks b JOIN users u ON u.id = b.blocked_id
                WHERE b.blocker_id = \(bind: user) \(EventSearch.keyset(time: "b.created_at", id: "b.blocked_id", after: cursor, descending: true))
                ORDER BY b.created_at DESC, b.blocked_id DESC LIMIT \(bind: limit + 1)
                """).all()
            let items = try rows.prefix(limit).map { Blocked(id: try $0.value("blocked_id"), name: try $0.value("name"), at: try $0.value("created_at")) }
            return (items, rows.count > limit)
        }
    }

    static let reportColumns = "id, reporter_id, target_type, target_id, reason, details, status, created_at"

    static func decodeReport(_ row: any SQLRow) throws -> Report {
        Report(id: try row.value("id"), reporterID: try row.value("reporter_id"), targetType: try row.value("target_type"),
               targetID: try row.value("target_id"), reason: try row.value("reason"), details: try row.optional("details"),
               status: try row.value("status"), createdAt: try row.value("created_at"))
    }

    func openReports(limit: Int) async throws -> [Report] {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.reportColumns) FROM reports WHERE status = 'open' ORDER BY created_at, id LIMIT \(bind: limit)").all().map(Self.decodeReport)
        }
    }
}

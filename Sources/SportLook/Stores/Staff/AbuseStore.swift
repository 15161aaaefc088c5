import Foundation
import SQLKit

/// What the console's abuse panel reads from the database: registrations and failed
/// sign-ins per network and minute (`network_activity`, kept two hours, shared by every
/// instance), and the address ranges and email domains no account may be registered
/// from (`registration_blocks`).
struct AbuseStore: Store {
    let database: Database

    /// How long activity is kept.
    static let kept: TimeInterval = 7_200

    enum Activity: String, Sendable {
        case registration
        case failedSignIn = "failed_sign_in"
    }

    /// Counts one registration or failed sign-in from `network` in its minute (in the
    /// caller's transaction, or one of its own); drops minutes past ``kept``.
    func record(_ activity: Activity, network: String, at now: Date, on sql: (any SQLDatabase)? = nil) async throws {
        let minute = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60)
        let write: @Sendable (any SQLDatabase) async throws -> Void = { sql in
            try await sql.raw(
                """
                INSERT INTO network_activity (network, kind, minute, count) VALUES (\(bind: network), \(bind: activity.rawValue), \(bind: minute), 1)
                ON CONFLICT (network, kind, minute) DO UPDATE SET count = network_activity.count + 1
                """
            ).run()
            try await sql.raw("DELETE FROM network_activity WHERE minute < \(bind: minute.addingTimeInterval(-Self.kept))").run()
        }
        if let sql { try await write(sql) } else { try await database.transaction(write) }
    }

    /// The networks most active since `since`, the most first, at most `limit`.
    func activity(since: Date, limit: Int) async throws -> [NetworkActivity] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT network,
                    SUM(CASE WHEN kind = 'registration' THEN count ELSE 0 END) AS registrations,
                    SUM(CASE WHEN kind = 'failed_sign_in' THEN count ELSE 0 END) AS failed
                FROM network_activity WHERE minute >= \(bind: since)
                GROUP BY network ORDER BY SUM(count) DESC, network LIMIT \(bind: limit)
                """
            ).all().map { row in
                NetworkActivity(
                    network: try row.value("network"), registrations: Int(try row.value("registrations", as: Int64.self)),
                    failedSignIns: Int(try row.value("failed", as: Int64.self)))
            }
        }
    }

    private static let blockColumns =
        "b.id, b.kind, b.value, b.reason, b.created_by, b.created_at, u.name AS created_by_name"

    private static func block(_ row: any SQLRow) throws -> RegistrationBlock {
        let by: UUID? = try row.optional("created_by")
        let name: String? = try row.optional("created_by_name")
        return RegistrationBlock(
            id: try row.value("id"), kind: RegistrationBlock.Kind(rawValue: try row.value("kind")) ?? .network,
            value: try row.value("value"), reason: try row.value("reason"),
            createdBy: by.flatMap { id in name.map { UserSummary(id: id, name: $0) } }, createdAt: try row.value("created_at"))
    }

    /// Every block, newest first.
    func blocks(on sql: (any SQLDatabase)? = nil) async throws -> [RegistrationBlock] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.blockColumns) FROM registration_blocks b LEFT JOIN users u ON u.id = b.created_by
                ORDER BY b.created_at DESC, b.id
                """
            ).all().map(Self.block)
        }
    }

    /// Adds a block; `false` when the same range or domain is blocked already.
    func insert(_ block: RegistrationBlock, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO registration_blocks (id, kind, value, reason, created_by, created_at)
            VALUES (\(bind: block.id), \(bind: block.kind.rawValue), \(bind: block.value), \(bind: block.reason), \(bind: block.createdBy?.id), \(bind: block.createdAt))
            ON CONFLICT (kind, value) DO NOTHING RETURNING id
            """
        ).first() != nil
    }

    /// The block on this range or domain.
    func block(_ kind: RegistrationBlock.Kind, _ value: String, on sql: any SQLDatabase) async throws -> RegistrationBlock? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.blockColumns) FROM registration_blocks b LEFT JOIN users u ON u.id = b.created_by
            WHERE b.kind = \(bind: kind.rawValue) AND b.value = \(bind: value)
            """
        ).first().map(Self.block)
    }

    /// Removes a block; its kind and value, or nil when there is none (two lifts at once:
    /// one removes it, the other finds nothing).
    func delete(_ id: UUID, on sql: any SQLDatabase) async throws -> (kind: String, value: String)? {
        try await sql.raw("DELETE FROM registration_blocks WHERE id = \(bind: id) RETURNING kind, value").first().map {
            (try $0.value("kind"), try $0.value("value"))
        }
    }

}

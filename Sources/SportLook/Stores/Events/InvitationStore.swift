import Foundation
import SQLKit

/// Invitations in the database.
struct InvitationStore: Sendable {
    static let columns = """
        i.id, i.event_id, i.status, i.created_at, i.responded_at, i.inviter_id, r.name AS inviter_name, i.invitee_id, t.name AS invitee_name
        """
    static let from = "invitations i JOIN users r ON r.id = i.inviter_id JOIN users t ON t.id = i.invitee_id"

    static func decode(_ row: any SQLRow) throws -> Invitation {
        Invitation(
            id: try row.value("id"), eventID: try row.value("event_id"),
            inviter: UserSummary(id: try row.value("inviter_id"), name: try row.value("inviter_name")),
            invitee: UserSummary(id: try row.value("invitee_id"), name: try row.value("invitee_name")),
            status: Invitation.Status(rawValue: try row.value("status")) ?? .revoked,
            createdAt: try row.value("created_at"), respondedAt: try row.optional("responded_at")
        )
    }

    /// Whether `user` blocked any of `others`.
    func blocked(by user: UUID, among others: [UUID], on sql: any SQLDatabase) async throws -> Bool {
        guard !others.isEmpty else { return false }
        return try await sql.raw(
            """
            SELECT blocker_id FROM blocks WHERE blocker_id = \(bind: user) AND blocked_id IN (\(binds: others)) LIMIT 1
            """
        ).first() != nil
    }

    /// Those of `others` who blocked `user`.
    func blockers(of user: UUID, among others: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !others.isEmpty else { return [] }
        return Set(
            try await sql.raw(
                """
                SELECT blocker_id FROM blocks WHERE blocked_id = \(bind: user) AND blocker_id IN (\(binds: others))
                """
            ).all().map { try $0.value("blocker_id") as UUID })
    }

    /// Those of `users` with a place (going or waitlisted) at the event.
    func attending(event: UUID, among users: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !users.isEmpty else { return [] }
        return Set(
            try await sql.raw(
                """
                SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND user_id IN (\(binds: users))
                """
            ).all().map { try $0.value("user_id") as UUID })
    }

    /// The pending invitations to the event of any of `invitees`, by invitee.
    func pending(event: UUID, invitees: [UUID], on sql: any SQLDatabase) async throws -> [UUID: Invitation] {
        guard !invitees.isEmpty else { return [:] }
        var pending: [UUID: Invitation] = [:]
        for row in try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
            WHERE i.event_id = \(bind: event) AND i.invitee_id IN (\(binds: invitees)) AND i.status = 'pending'
            """
        ).all() {
            let invitation = try Self.decode(row)
            pending[invitation.invitee.id] = invitation
        }
        return pending
    }

    /// Invitations the inviter created after `since`.
    func sent(by inviter: UUID, since: Date, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            """
            SELECT COUNT(*) AS n FROM invitations WHERE inviter_id = \(bind: inviter) AND created_at > \(bind: since)
            """
        ).first()?.value("n", as: Int.self) ?? 0
    }

    /// Stores new invitations; those to `hidden` invitees are never shown to them.
    func insert(_ invitations: [Invitation], hidden: Set<UUID>, on sql: any SQLDatabase) async throws {
        guard !invitations.isEmpty else { return }
        let rows: [[any Encodable & Sendable]] = invitations.map {
            [$0.id, $0.eventID, $0.inviter.id, $0.invitee.id, $0.status.rawValue, $0.createdAt, hidden.contains($0.invitee.id)]
        }
        try await sql.raw(
            "INSERT INTO invitations (id, event_id, inviter_id, invitee_id, status, created_at, hidden) VALUES \(BindRows(rows: rows))"
        ).run()
    }

    /// An invitation its invitee may see.
    func visible(_ id: UUID, on sql: any SQLDatabase) async throws -> Invitation? {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE i.id = \(bind: id) AND i.hidden = \(bind: false)"
        ).first().map(Self.decode)
    }

    func answer(_ id: UUID, status: Invitation.Status, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE invitations SET status = \(bind: status.rawValue), responded_at = \(bind: now) WHERE id = \(bind: id)")
            .run()
    }

    /// The user's visible invitations, newest first; `more` when a next page exists.
    func received(by user: UUID, status: Invitation.Status?, cursor: TimeCursor?, limit: Int, on sql: any SQLDatabase) async throws -> (
        items: [Invitation], more: Bool
    ) {
        let filter: SQLQueryString = status.map { "AND i.status = \(bind: $0.rawValue)" } ?? ""
        let rows = try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
            WHERE i.invitee_id = \(bind: user) AND i.hidden = \(bind: false) \(filter) \(Keyset.after(time: "i.created_at", id: "i.id", after: cursor, descending: true))
                AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = \(bind: user) AND b.blocked_id = i.inviter_id)
            ORDER BY i.created_at DESC, i.id DESC LIMIT \(bind: limit + 1)
            """
        ).all()
        return (try rows.prefix(limit).map(Self.decode), rows.count > limit)
    }
}

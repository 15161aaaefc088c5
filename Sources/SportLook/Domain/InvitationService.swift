import Foundation
import SQLKit

/// An invitation to an event.
struct Invitation: Sendable, Hashable {
    enum Status: String, Sendable, CaseIterable { case pending, accepted, declined, revoked }

    var id: UUID
    var eventID: UUID
    var inviter: UserSummary
    var invitee: UserSummary
    var status: Status
    var createdAt: Date
    var respondedAt: Date?
}

/// Inviting people to events and answering invitations.
struct InvitationService: Sendable {
    let database: Database
    let events: EventService
    let store: EventStore
    let accounts: AccountStore
    let notifier: Notifier
    let sports: SportCatalog
    let write: Writer
    let clock: any AppClock
    /// Invitations one inviter may send in 24 hours.
    var dailyLimit = 200

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

    /// Invites people; inviting someone with a pending invitation returns it again.
    /// An invitation to someone who blocked the inviter is kept hidden: the inviter
    /// sees it as any other (the same one on a second try, counted in the daily
    /// limit), the invitee never sees it and is not notified.
    func invite(to eventID: UUID, by inviter: UUID, userIDs: [String]) async throws -> [Invitation] {
        var v = Validator()
        if userIDs.isEmpty { v.fail("user_ids", "must list at least one user") }
        if userIDs.count > 50 { v.fail("user_ids", "must list at most 50 users") }
        var invitees: [UUID] = []
        for (i, text) in userIDs.enumerated() {
            guard let id = UUID(uuidString: text) else { v.fail("user_ids[\(i)]", "is not a user id"); continue }
            if id == inviter { v.fail("user_ids[\(i)]", "is you: you cannot invite yourself") }
            if !invitees.contains(id) { invitees.append(id) }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [store, accounts, notifier, invitees, dailyLimit] sql, effects in
            guard let event = try await store.lock(eventID, on: sql) else { throw APIError.notFound("event") }
            guard let mine = try await store.attendance(event: eventID, user: inviter, on: sql), mine.status == .going else {
                throw APIError.forbidden("Only the organiser and people going may invite.")
            }
            try EventService.requireOpen(event, now: now)
            let names = try await accounts.names(of: invitees + [inviter], on: sql)
            var missing = Validator()
            for (i, id) in invitees.enumerated() where names[id] == nil { missing.fail("user_ids[\(i)]", "no such user") }
            try missing.throwIfInvalid()
            if try await Self.blocked(by: inviter, among: invitees, on: sql) {
                throw APIError.forbidden("You cannot invite someone you blocked.")
            }
            let blockers = try await Self.blockers(of: inviter, among: invitees, on: sql)
            // A set of queries for the whole list, not four per invitee.
            let attending = Set(try await sql.raw("""
                SELECT user_id FROM attendances WHERE event_id = \(bind: eventID) AND user_id IN \(BindList(values: invitees))
                """).all().map { try $0.value("user_id") as UUID })
            if let first = invitees.first(where: attending.contains) {
                throw APIError.conflict("already_attending", "\(names[first] ?? "Someone") already attends this event.")
            }
            var pending: [UUID: Invitation] = [:]
            for row in try await sql.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE i.event_id = \(bind: eventID) AND i.invitee_id IN \(BindList(values: invitees)) AND i.status = 'pending'
                """).all() {
                let invitation = try Self.decode(row)
                pending[invitation.invitee.id] = invitation
            }
            let inviterSummary = UserSummary(id: inviter, name: names[inviter] ?? "")
            let out = invitees.map { invitee in
                pending[invitee] ?? Invitation(
                    id: UUID(), eventID: eventID, inviter: inviterSummary,
                    invitee: UserSummary(id: invitee, name: names[invitee] ?? ""), status: .pending, createdAt: now, respondedAt: nil
                )
            }
            let created = out.filter { pending[$0.invitee.id] == nil }
            if !created.isEmpty {
                let sent = try await sql.raw("""
                    SELECT COUNT(*) AS n FROM invitations WHERE inviter_id = \(bind: inviter) AND created_at > \(bind: now.addingTimeInterval(-86_400))
                    """).first()?.value("n", as: Int.self) ?? 0
                if sent + created.count > dailyLimit {
                    throw APIError.tooManyRequests(retryAfter: 3_600, code: "invite_limit", message: "You can send at most \(dailyLimit) invitations a day.")
                }
                let rows: [[any Encodable & Sendable]] = created.map {
                    [$0.id, eventID, inviter, $0.invitee.id, Invitation.Status.pending.rawValue, now, blockers.contains($0.invitee.id)]
                }
                try await sql.raw("INSERT INTO invitations (id, event_id, inviter_id, invitee_id, status, created_at, hidden) VALUES \(BindRows(rows: rows))").run()
                let shown = created.filter { !blockers.contains($0.invitee.id) }
                if !shown.isEmpty { try await notifier.invitations(shown, event: event, at: now, on: sql, effects: &effects) }
            }
            return out
        }
    }

    /// Whether `user` blocked any of `others`.
    static func blocked(by user: UUID, among others: [UUID], on sql: any SQLDatabase) async throws -> Bool {
        guard !others.isEmpty else { return false }
        return try await sql.raw("""
            SELECT blocker_id FROM blocks WHERE blocker_id = \(bind: user) AND blocked_id IN \(BindList(values: others)) LIMIT 1
            """).first() != nil
    }

    /// Those of `others` who blocked `user`.
    static func blockers(of user: UUID, among others: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !others.isEmpty else { return [] }
        return Set(try await sql.raw("""
            SELECT blocker_id FROM blocks WHERE blocked_id = \(bind: user) AND blocker_id IN \(BindList(values: others))
            """).all().map { try $0.value("blocker_id") as UUID })
    }

    struct Answer: Sendable {
        var invitation: Invitation
        var attendance: EventService.Joined?
    }

    /// Accepts (joining through the attendance rules) or declines an invitation.
    func answer(_ id: UUID, by user: UUID, accept: Bool) async throws -> Answer {
        let now = clock.now()
        return try await write { [store, events, notifier] sql, effects in
            guard let row = try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE i.id = \(bind: id) AND i.hidden = \(bind: false)").first() else {
                throw APIError.notFound("invitation")
            }
            var invitation = try Self.decode(row)
            guard invitation.invitee.id == user else { throw APIError.forbidden("Only the person invited may answer.") }
            let wanted: Invitation.Status = accept ? .accepted : .declined
            if invitation.status == wanted {
                let joined = accept ? try await store.attendance(event: invitation.eventID, user: user, on: sql).map { EventService.Joined(status: $0.status, position: nil) } : nil
                return Answer(invitation: invitation, attendance: joined)
            }
            guard invitation.status == .pending else {
                throw APIError.conflict("invitation_answered", "This invitation was already \(invitation.status.rawValue).")
            }
            guard let event = try await store.lock(invitation.eventID, on: sql) else { throw APIError.notFound("event") }
            var joined: EventService.Joined?
            if accept {
                joined = try await events.join(event, user: user, at: now, on: sql, effects: &effects)
            }
            try await sql.raw("UPDATE invitations SET status = \(bind: wanted.rawValue), responded_at = \(bind: now) WHERE id = \(bind: id)").run()
            invitation.status = wanted
            invitation.respondedAt = now
            if let joined {
                try await notifier.invitationAccepted(id: id, event: event, invitee: invitation.invitee, inviter: invitation.inviter.id, status: joined.status, at: now, on: sql, effects: &effects)
            }
            return Answer(invitation: invitation, attendance: joined)
        }
    }

    /// The caller's invitations, newest first, each with its event.
    func received(by user: UUID, status: Invitation.Status?, cursor: TimeCursor?, limit: Int) async throws -> Page<InvitationRepresentation> {
        let sports = self.sports
        return try await database.read { [store] sql in
            let filter: SQLQueryString = status.map { "AND i.status = \(bind: $0.rawValue)" } ?? ""
            let rows = try await sql.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE i.invitee_id = \(bind: user) AND i.hidden = \(bind: false) \(filter) \(EventSearch.keyset(time: "i.created_at", id: "i.id", after: cursor, descending: true))
                ORDER BY i.created_at DESC, i.id DESC LIMIT \(bind: limit + 1)
                """).all()
            let invitations = try rows.prefix(limit).map(Self.decode)
            let events = try await store.events(Array(Set(invitations.map(\.eventID))), on: sql)
            let items = invitations.map { invitation in
                InvitationRepresentation(invitation: invitation, event: events[invitation.eventID].map { EventRepresentation(event: $0, sport: sports[$0.sport]) })
            }
            let next = rows.count > limit ? invitations.last.map { TimeCursor(time: $0.createdAt, id: $0.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }
}

/// An invitation, with its event when listed.
struct InvitationRepresentation: JSONEncodable {
    var invitation: Invitation
    var event: EventRepresentation?
    var attendance: EventService.Joined?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", invitation.id)
        json.field("event_id", invitation.eventID)
        json.key("inviter")
        UserSummaryRepresentation(id: invitation.inviter.id, name: invitation.inviter.name).encode(to: &json)
        json.key("invitee")
        UserSummaryRepresentation(id: invitation.invitee.id, name: invitation.invitee.name).encode(to: &json)
        json.field("status", invitation.status.rawValue)
        json.field("created_at", invitation.createdAt)
        json.field("responded_at", invitation.respondedAt)
        if let attendance {
            json.key("attendance")
            JoinedRepresentation(joined: attendance).encode(to: &json)
        }
        if let event {
            json.key("event")
            event.encode(to: &json)
        }
        json.objectEnd()
    }
}

import Foundation

/// Inviting people to events and answering invitations.
struct InvitationService: Sendable {
    let database: Database
    let events: EventService
    let store: EventStore
    let accounts: AccountStore
    let invitations: InvitationStore
    let notifier: Notifier
    /// Who may see which event: a members-only event's invitations are its group's members'.
    let access: EventAccess
    let groups: GroupStore
    let sports: SportCatalog
    let write: Writer
    let clock: any AppClock
    /// Invitations one inviter may send in 24 hours.
    var dailyLimit = 200

    /// Invites people; inviting someone with a pending invitation returns it again.
    /// An invitation to someone who blocked the inviter is kept hidden: the inviter
    /// sees it as any other (the same one on a second try, counted in the daily
    /// limit), the invitee never sees it and is not notified.
    func invite(to eventID: UUID, by inviter: UUID, userIDs: [String]) async throws -> [Invitation] {
        var v = Validator()
        if userIDs.isEmpty { v.fail("user_ids", Sentence("must list at least one user")) }
        if userIDs.count > 50 { v.fail("user_ids", Sentence("must list at most 50 users")) }
        var invitees: [UUID] = []
        for (i, text) in userIDs.enumerated() {
            guard let id = UUID(text: text) else {
                v.fail("user_ids[\(i)]", Sentence("is not a user id"))
                continue
            }
            if id == inviter { v.fail("user_ids[\(i)]", Sentence("is you: you cannot invite yourself")) }
            if !invitees.contains(id) { invitees.append(id) }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [store, accounts, invitations, notifier, groups, invitees, dailyLimit] sql, changes in
            guard let event = try await store.lock(eventID, on: sql) else { throw DomainError.notFound(.event) }
            guard let mine = try await store.attendance(event: eventID, user: inviter, on: sql), mine.status == .going else {
                throw DomainError.forbidden(Sentence("Only the organiser and people going may invite."))
            }
            try EventService.requireOpen(event, now: now)
            let names = try await accounts.names(of: invitees + [inviter], on: sql)
            var missing = Validator()
            for (i, id) in invitees.enumerated() where names[id] == nil { missing.fail("user_ids[\(i)]", Sentence("no such user")) }
            try missing.throwIfInvalid()
            // A members-only game is for its group's members: nobody else is told of it.
            if event.membersOnly {
                var outsiders = Validator()
                for (i, id) in invitees.enumerated() where try await !groups.isMember(id, of: event.groupID ?? eventID, on: sql) {
                    outsiders.fail("user_ids[\(i)]", Sentence("is not in the group: this game is for its members alone"))
                }
                try outsiders.throwIfInvalid()
            }
            if try await invitations.blocked(by: inviter, among: invitees, on: sql) {
                throw DomainError.forbidden(Sentence("You cannot invite someone you blocked."))
            }
            // A limited inviter's invitations are kept hidden as a blocked one's are: they
            // see them sent, nobody receives them.
            let blockers =
                try await accounts.isLimited(inviter, on: sql)
                ? Set(invitees) : try await invitations.blockers(of: inviter, among: invitees, on: sql)
            // A set of queries for the whole list, not four per invitee.
            let attending = try await invitations.attending(event: eventID, among: invitees, on: sql)
            if let first = invitees.first(where: attending.contains) {
                throw DomainError.conflict(
                    "already_attending",
                    names[first].map { Sentence("\($0) already attends this event.") } ?? Sentence("Someone already attends this event."))
            }
            let pending = try await invitations.pending(event: eventID, invitees: invitees, on: sql)
            let inviterSummary = UserSummary(id: inviter, name: names[inviter] ?? "")
            let out = invitees.map { invitee in
                pending[invitee]
                    ?? Invitation(
                        id: UUID(), eventID: eventID, inviter: inviterSummary,
                        invitee: UserSummary(id: invitee, name: names[invitee] ?? ""), status: .pending, createdAt: now, respondedAt: nil
                    )
            }
            let created = out.filter { pending[$0.invitee.id] == nil }
            if !created.isEmpty {
                let sent = try await invitations.sent(by: inviter, since: now.addingTimeInterval(-86_400), on: sql)
                if sent + created.count > dailyLimit {
                    throw DomainError.tooManyRequests(
                        retryAfter: 3_600, code: "invite_limit", message: Sentence("You can send at most \(dailyLimit) invitations a day."))
                }
                try await invitations.insert(created, hidden: blockers, on: sql)
                let shown = created.filter { !blockers.contains($0.invitee.id) }
                if !shown.isEmpty { try await notifier.invitations(shown, event: event, at: now, on: sql, changes: &changes) }
            }
            return out
        }
    }

    struct Answer: Sendable {
        var invitation: Invitation
        var attendance: EventService.Joined?
    }

    /// Accepts (joining through the attendance rules) or declines an invitation.
    func answer(_ id: UUID, by user: UUID, accept: Bool) async throws -> Answer {
        let now = clock.now()
        return try await write { [store, events, invitations, notifier] sql, changes in
            guard var invitation = try await invitations.visible(id, on: sql) else { throw DomainError.notFound(.invitation) }
            guard invitation.invitee.id == user else { throw DomainError.forbidden(Sentence("Only the person invited may answer.")) }
            let wanted: Invitation.Status = accept ? .accepted : .declined
            if invitation.status == wanted {
                let joined =
                    accept
                    ? try await store.attendance(event: invitation.eventID, user: user, on: sql).map {
                        EventService.Joined(status: $0.status, position: nil)
                    } : nil
                return Answer(invitation: invitation, attendance: joined)
            }
            guard invitation.status == .pending else {
                let answered =
                    switch invitation.status {
                    case .accepted: Sentence("This invitation was already accepted.")
                    case .declined: Sentence("This invitation was already declined.")
                    case .pending, .revoked: Sentence("This invitation was already revoked.")
                    }
                throw DomainError.conflict("invitation_answered", answered)
            }
            guard let event = try await store.lock(invitation.eventID, on: sql) else { throw DomainError.notFound(.event) }
            var joined: EventService.Joined?
            if accept {
                joined = try await events.join(event, user: user, at: now, on: sql, changes: &changes)
            }
            try await invitations.answer(id, status: wanted, at: now, on: sql)
            invitation.status = wanted
            invitation.respondedAt = now
            // The inviter hears who is coming only while they are going themselves (the one rule of who sees attendance).
            if let joined,
                EventAccess.seesAttendance(try await store.attendance(event: event.id, user: invitation.inviter.id, on: sql)?.status)
            {
                try await notifier.invitationAccepted(
                    id: id, event: event, invitee: invitation.invitee, inviter: invitation.inviter.id, status: joined.status, at: now,
                    on: sql, changes: &changes)
            }
            return Answer(invitation: invitation, attendance: joined)
        }
    }

    /// An invitation the caller received, with its event (gone: `nil`).
    struct Received: Sendable {
        var invitation: Invitation
        var event: Event?
    }

    /// The caller's invitations, newest first, each with its event.
    func received(by user: UUID, status: Invitation.Status?, cursor: TimeCursor?, limit: Int) async throws -> Page<Received> {
        let page = try await database.read { [store, invitations] sql in
            let (list, more) = try await invitations.received(by: user, status: status, cursor: cursor, limit: limit, on: sql)
            let events = try await store.events(Array(Set(list.map(\.eventID))), on: sql)
            let next = more ? list.last.map { TimeCursor(time: $0.createdAt, id: $0.id).cursor } : nil
            return Page(items: list.map { Received(invitation: $0, event: events[$0.eventID]) }, nextCursor: next)
        }
        // An invitation to a members-only game of a group the caller left goes with it.
        let mine = try await access.memberships(of: user)
        return Page(items: page.items.filter { $0.event.map { EventAccess.mayView($0, in: mine) } ?? true }, nextCursor: page.nextCursor)
    }
}

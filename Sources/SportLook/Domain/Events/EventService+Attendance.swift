import Foundation

/// Joining, waiting, maybe, leaving and the organiser's removals and bans: each under the event's row lock.
extension EventService {
    struct Joined: Sendable {
        var status: AttendanceStatus
        var position: Int?
    }

    /// Joins (idempotent): going while places remain, otherwise waitlisted.
    func join(_ id: UUID, user: UUID) async throws -> Joined {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            // Already there: the place as it is (with the waitlist position, which the join below does not read).
            if let existing = try await store.attendance(event: id, user: user, on: sql) {
                let position =
                    existing.status == .waitlisted
                    ? try await store.waitlistPosition(event: id, queueNumber: existing.queueNumber ?? 0, on: sql) : nil
                return Joined(status: existing.status, position: position)
            }
            return try await join(event, user: user, at: now, on: sql, changes: &changes)
        }
    }

    /// Joins on behalf of an invitation, inside the caller's transaction.
    func join(_ event: Event, user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Joined {
        if let existing = try await store.attendance(event: event.id, user: user, on: sql) {
            return Joined(status: existing.status, position: nil)
        }
        try await requireAdmissible(event, user: user, at: now, on: sql)
        // A maybe that decides: a place now.
        try await store.removeMaybe(event: event.id, user: user, on: sql)
        let joined: Joined
        if let capacity = event.capacity, event.goingCount + event.offeredCount >= capacity {
            let number = try await store.addWaitlisted(event: event.id, user: user, at: now, on: sql)
            joined = Joined(status: .waitlisted, position: try await store.waitlistPosition(event: event.id, queueNumber: number, on: sql))
        } else {
            try await store.addGoing(event: event.id, user: user, at: now, on: sql)
            joined = Joined(status: .going, position: nil)
        }
        let updated = try await gameOnIfReached(event.id, at: now, on: sql, changes: &changes)
        if joined.status == .going {
            // A priced game's ledger needs the counts as they are now (whether it is full); teams need only the game.
            let current = event.price == nil ? event : try await store.event(event.id, on: sql) ?? event
            try await followGoing(current, at: now, on: sql, changes: &changes)
        }
        if let updated { changes.event(updated) }
        changes.record(.attendance(user: user))
        return joined
    }

    static func requireOpen(_ event: Event, now: Date) throws {
        guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
        guard event.endsAt > now else { throw DomainError.conflict("event_finished", Sentence("The event is over.")) }
        if let deadline = event.answerDeadline, now > deadline {
            throw DomainError.conflict("answers_closed", Sentence("Answers closed at \(RFC3339.format(deadline)): ask the organiser."))
        }
    }

    /// An event that asks for a record takes only players whose last games show no more
    /// no-shows than it allows (403 `record_required`, saying what it asks and what
    /// their record shows).
    func requireRecord(_ event: Event, user: UUID, at now: Date, on sql: DatabaseSession) async throws {
        guard let rule = event.recordRule, user != event.organiserID else { return }
        let record = try await records.records(of: [user], at: now, on: sql)[user] ?? Reliability(entries: [])
        if let problem = Self.recordProblem(rule, record) { throw problem }
    }

    /// Why a record keeps its person out of a game with `rule` (nil: it does not).
    static func recordProblem(_ rule: RecordRule, _ record: Reliability) -> DomainError? {
        let noShows = record.count(.noShow, last: rule.lastGames)
        guard noShows > rule.maxNoShows else { return nil }
        let games = rule.lastGames
        return DomainError.forbidden(
            "record_required",
            rule.maxNoShows == 1
                ? Sentence(
                    "This game takes players with at most 1 no-show in their last \(games) games; your record shows \(noShows). Your record: GET /v1/me/record."
                )
                : Sentence(
                    "This game takes players with at most \(rule.maxNoShows) no-shows in their last \(games) games; your record shows \(noShows). Your record: GET /v1/me/record."
                ))
    }

    /// A game for a level range or an audience takes only players it is for (403
    /// `level_required`, `level_out_of_range`, `audience_only`, each saying why and what
    /// to set on the profile: `PATCH /v1/me/player`). The organiser is exempt.
    func requireFit(_ event: Event, user: UUID, on sql: DatabaseSession) async throws {
        guard event.levelRange != nil || event.audience != .anyone, user != event.organiserID else { return }
        let player = try await players.profile(of: user, on: sql) ?? PlayerProfile(gender: nil, levels: [:])
        if let problem = fitProblem(event, player) { throw problem }
    }

    /// Why a player's level or gender keeps them out of the game (nil: it does not).
    func fitProblem(_ event: Event, _ player: PlayerProfile) -> DomainError? {
        if let range = event.levelRange {
            let sport = sports[event.sport]?.name ?? event.sport
            let wanted = Sentence("levels \(range.lowerBound)–\(range.upperBound) in \(sport)")
            guard let level = player.levels[event.sport] else {
                return DomainError.forbidden(
                    "level_required",
                    Sentence("This game is for \(wanted): set your \(sport) level on your profile (PATCH /v1/me/player) to join."))
            }
            guard range.contains(level) else {
                return DomainError.forbidden("level_out_of_range", Sentence("This game is for \(wanted); yours is \(level)."))
            }
        }
        switch event.audience {
        case .anyone: return nil
        case .women where player.gender != .woman:
            return DomainError.forbidden(
                "audience_only", Sentence("This game is for women only (gender is self-declared on your profile: PATCH /v1/me/player)."))
        case .men where player.gender != .man:
            return DomainError.forbidden(
                "audience_only", Sentence("This game is for men only (gender is self-declared on your profile: PATCH /v1/me/player)."))
        case .mixed where player.gender == nil:
            return DomainError.forbidden(
                "audience_only",
                Sentence(
                    "This game has mixed teams: say on your profile whether you play as a woman or a man (PATCH /v1/me/player) to join."))
        default: return nil
        }
    }

    static let bannedMessage = Sentence("The organiser removed you from this event; you cannot join it again.")

    static func requireNotBanned(_ event: Event, user: UUID, store: EventStore, on sql: DatabaseSession) async throws {
        if try await store.isBanned(event: event.id, user: user, on: sql) { throw DomainError.forbidden("banned", bannedMessage) }
    }

    /// The organiser takes an attendee (going or waitlisted) out of the event, and may
    /// ban them from joining again. The freed place goes to the waitlist; the person
    /// leaves the event's room at once; their messages stay. Idempotent.
    func remove(_ attendee: UUID, from id: UUID, by organiser: UUID, ban: Bool) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == organiser else { throw DomainError.forbidden(Sentence("Only the organiser may remove attendees.")) }
            guard attendee != organiser else {
                throw DomainError.conflict("organiser_cannot_leave", Sentence("The organiser cannot be removed; cancel the event instead."))
            }
            guard try await accounts.user(attendee, on: sql) != nil else { throw DomainError.notFound(.user) }
            if ban { try await store.ban(event: id, user: attendee, at: now, on: sql) }
            try await leave(event, user: attendee, at: now, on: sql, changes: &changes)
            // A maybe goes too: removed is no answer.
            if try await store.removeMaybe(event: id, user: attendee, on: sql) { changes.record(.attendance(user: attendee)) }
        }
    }

    /// Lets a banned person join again (organiser; idempotent).
    func unban(_ user: UUID, from id: UUID, by organiser: UUID) async throws {
        try await write { [store] sql, _ in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == organiser else { throw DomainError.forbidden(Sentence("Only the organiser may lift a ban.")) }
            try await store.unban(event: id, user: user, on: sql)
        }
    }

    /// The people banned from an event, latest first (organiser only).
    func bans(of id: UUID, for organiser: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<Ban> {
        try await database.read { [store] sql in
            guard let event = try await store.event(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == organiser else { throw DomainError.forbidden(Sentence("Only the organiser sees who is banned.")) }
            return try await store.bans(event: id, cursor: cursor, limit: limit, on: sql)
        }
    }

    /// Leaves (idempotent); the first waitlisted person takes a freed place.
    /// The rules a person must meet to be at a game — going, waiting or maybe: it is
    /// open, theirs to see (its group's), they are not banned from it, their record,
    /// level and the audience fit. Joining, an invitation and a maybe ask the same.
    func requireAdmissible(_ event: Event, user: UUID, at now: Date, on sql: DatabaseSession) async throws {
        try Self.requireOpen(event, now: now)
        try await requireInGroup(event, user: user, on: sql)
        try await Self.requireNotBanned(event, user: user, store: store, on: sql)
        try await requireRecord(event, user: user, at: now, on: sql)
        try await requireFit(event, user: user, on: sql)
    }

    /// A members-only event takes its group's members alone: read in the joining
    /// transaction, after the event's lock, so a removal from the group that
    /// committed first is seen (and one that commits after takes them off again:
    /// ``departed(_:from:at:on:changes:)`` waits for this lock). To anyone else the
    /// event is not there (404, as on every route).
    func requireInGroup(_ event: Event, user: UUID, on sql: DatabaseSession) async throws {
        guard event.membersOnly else { return }
        guard let group = event.groupID, try await groups.isMember(user, of: group, on: sql) else { throw DomainError.notFound(.event) }
    }

    /// Answers maybe: no place (one held is given up, the waitlist moving up), a
    /// reminder to decide before the game. The organiser is going by organising.
    /// A maybe meets the rules a place does (``requireAdmissible(_:user:at:on:)``).
    func answerMaybe(_ id: UUID, user: UUID) async throws -> Joined {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID != user else {
                throw DomainError.conflict("organiser_is_going", Sentence("The organiser is going; cancel the event instead."))
            }
            try await requireAdmissible(event, user: user, at: now, on: sql)
            if try await store.attendance(event: id, user: user, on: sql) != nil {
                try await leave(event, user: user, byChoice: true, at: now, on: sql, changes: &changes)
            }
            try await store.addMaybe(event: id, user: user, at: now, on: sql)
            changes.record(.attendance(user: user))
            return Joined(status: .maybe, position: nil)
        }
    }

    func leave(_ id: UUID, user: UUID) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            // A maybe taken back: nothing else to give up.
            if try await store.removeMaybe(event: id, user: user, on: sql) {
                changes.record(.attendance(user: user))
                return
            }
            guard event.organiserID != user else {
                if try await store.attendance(event: id, user: user, on: sql) == nil { return }
                throw DomainError.conflict("organiser_cannot_leave", Sentence("The organiser cannot leave; cancel the event instead."))
            }
            // A game that is over keeps who was going: its organiser marks them (a no-show
            // cannot leave to escape the mark).
            if event.endsAt <= now, try await store.attendance(event: id, user: user, on: sql) != nil {
                throw DomainError.conflict("event_finished", Sentence("The game is over: who was going stays on its sheet."))
            }
            try await leave(event, user: user, byChoice: true, at: now, on: sql, changes: &changes)
            // Leaving one game of a series leaves that date alone: a regular is not put back on it.
            if let series = event.seriesID, let date = event.occurrenceDate {
                try await self.series.optOut(user, of: series, on: date, on: sql)
            }
        }
    }

    /// Leaves a locked event inside the caller's transaction; the first waitlisted person
    /// takes a freed place. A place given up `byChoice` within ``lateCancel`` of the
    /// start is a late cancellation on the person's record.
    func leave(_ event: Event, user: UUID, byChoice: Bool = false, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        let id = event.id
        guard let existing = try await store.attendance(event: id, user: user, on: sql) else { return }
        if byChoice, existing.status == .going, event.status == .active, now >= event.startsAt.addingTimeInterval(-lateCancel),
            now < event.endsAt
        {
            try await records.lateCancel(event: id, user: user, at: now, on: sql)
        }
        try await store.remove(event: id, user: user, status: existing.status, at: now, on: sql)
        try await substituteRequests.withdrawOpen(event: id, requester: user, at: now, on: sql)
        changes.record(.attendance(user: user))
        // What the leaver owes is settled before anyone moves up into the place.
        if existing.status == .going, event.price != nil, let left = try await store.event(id, on: sql) {
            try await ledger.settle(left, excused: byChoice ? [] : [user], at: now, on: sql, changes: &changes)
        }
        // The place freed (or the offer given back) goes to the waitlist.
        let updated = try await fillPlaces(id, at: now, on: sql, changes: &changes) ?? event
        try await followGoing(updated, excused: byChoice ? [] : [user], at: now, on: sql, changes: &changes)
        changes.event(updated)
    }

    /// After the people going changed (inside the change's transaction, the event
    /// locked): published teams and the ledger of a priced game follow them.
    /// `excused`: people who left not by choice (removed, out of the group), who owe
    /// nothing for leaving; `replacedBy`: a player and the substitute who took their
    /// place, who owes instead.
    func followGoing(
        _ event: Event, excused: Set<UUID> = [], replacedBy: [UUID: UUID] = [:], at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        try await teams.follow(event, at: now, on: sql, changes: &changes)
        try await ledger.settle(event, excused: excused, replacedBy: replacedBy, at: now, on: sql, changes: &changes)
    }
}

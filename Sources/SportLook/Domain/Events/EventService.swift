import Foundation

/// Creating, editing, cancelling and joining events.
struct EventService: Sendable {
    let database: Database
    let store: EventStore
    let accounts: AccountStore
    let sports: SportCatalog
    let notifier: Notifier
    let reminders: Reminders
    /// Timed work of its own: decisions on minimum players, ends of waitlist offers.
    let scheduler: Scheduler
    let series: SeriesStore
    let write: Writer
    let clock: any AppClock
    let media: MediaAttachments
    /// Check-ins, marks and late cancellations: a player's record.
    let records: RecordStore
    /// Levels and genders, for games that ask for them.
    let players: PlayerStore
    /// Groups, for their events.
    let groups: GroupStore
    /// Leaving a game this close to its start is a late cancellation (`LATE_CANCEL_HOURS`).
    var lateCancel: TimeInterval = 4 * 3_600
    /// How close to the start a freed place is offered rather than given (`WAITLIST_OFFER_HOURS`; 0: never).
    var offerWindow: TimeInterval = 24 * 3_600
    /// How long an offer holds (`WAITLIST_OFFER_MINUTES`).
    var offerTime: TimeInterval = 30 * 60

    static let maxDuration: TimeInterval = 7 * 86_400
    static let defaultDuration: TimeInterval = 2 * 3_600
    /// How far in the past a new start may be, for clients whose clocks run a little slow.
    static let clockSkew: TimeInterval = 60
    static let maxLeadTime: TimeInterval = 2 * 365 * 86_400

    struct Input: Decodable, Sendable {
        var title: Patch<String> = .absent
        var sport: Patch<String> = .absent
        var startsAt: Patch<String> = .absent
        var endsAt: Patch<String> = .absent
        var location: Patch<LocationInput> = .absent
        var address: Patch<String> = .absent
        var description: Patch<String> = .absent
        var capacity: Patch<Int> = .absent
        var coverId: Patch<String> = .absent
        /// Refused when present: images are uploads now (`cover_id`).
        var imageUrl: Patch<String> = .absent
        var timeZone: Patch<String> = .absent
        var reminders: Patch<[Int]> = .absent
        var answerDeadline: Patch<String> = .absent
        var minRecord: Patch<RecordRuleInput> = .absent
        var minPlayers: Patch<Int> = .absent
        var decideMinutes: Patch<Int> = .absent
        var level: Patch<LevelInput> = .absent
        var audience: Patch<String> = .absent
        /// The group it is made for (its admins make its events), and whether its members alone see it.
        var groupId: Patch<String> = .absent
        var membersOnly: Patch<Bool> = .absent

        enum CodingKeys: String, CodingKey {
            case title, sport, startsAt, endsAt, location, address, description, capacity, coverId, imageUrl, timeZone, reminders, answerDeadline, minRecord
            case minPlayers, decideMinutes, level, audience, groupId, membersOnly
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = try c.patch(.title)
            sport = try c.patch(.sport)
            startsAt = try c.patch(.startsAt)
            endsAt = try c.patch(.endsAt)
            location = try c.patch(.location)
            address = try c.patch(.address)
            description = try c.patch(.description)
            capacity = try c.patch(.capacity)
            coverId = try c.patch(.coverId)
            imageUrl = try c.patch(.imageUrl)
            timeZone = try c.patch(.timeZone)
            reminders = try c.patch(.reminders)
            answerDeadline = try c.patch(.answerDeadline)
            minRecord = try c.patch(.minRecord)
            minPlayers = try c.patch(.minPlayers)
            decideMinutes = try c.patch(.decideMinutes)
            level = try c.patch(.level)
            audience = try c.patch(.audience)
            groupId = try c.patch(.groupId)
            membersOnly = try c.patch(.membersOnly)
        }
    }

    /// `{min, max}`: the levels, 0 to 7 in half steps, a player needs.
    struct LevelInput: Decodable, Sendable {
        var min: Double?
        var max: Double?
    }

    /// `{last_games, max_no_shows}`: at most that many no-shows in the player's last games.
    struct RecordRuleInput: Decodable, Sendable {
        var lastGames: Int?
        var maxNoShows: Int?

        func validated(into v: inout Validator) -> RecordRule? {
            guard let lastGames, RecordRule.lastGamesRange.contains(lastGames) else {
                v.fail("min_record.last_games", "must be 1 to \(Reliability.games)")
                return nil
            }
            guard let maxNoShows, (0..<lastGames).contains(maxNoShows) else {
                v.fail("min_record.max_no_shows", "must be 0 to one less than last_games")
                return nil
            }
            return RecordRule(lastGames: lastGames, maxNoShows: maxNoShows)
        }
    }


    /// Checks the fields present in `input` and returns them as changes (the cover as
    /// the upload's id, for ``attachCover(_:to:owner:at:on:)`` to resolve in the transaction).
    private func validate(_ input: Input, creating: Bool, current: Event?, now: Date) throws -> (EventStore.Changes, Patch<UUID>) {
        var cover = Patch<UUID>.absent
        var v = Validator()
        var c = EventStore.Changes()
        func required<T>(_ patch: Patch<T>, _ field: String) -> T? {
            switch patch {
            case .value(let value): return value
            case .null: v.fail(field, "must not be null"); return nil
            case .absent: if creating { v.fail(field, "is required") }; return nil
            }
        }
        if let title = required(input.title, "title") { c.title = v.text(title, "title", 1...120) }
        if let slug = required(input.sport, "sport") {
            if sports[slug] == nil { v.fail("sport", "unknown sport '\(slug.prefix(64))'") } else { c.sport = slug }
        }
        if let location = required(input.location, "location") { c.location = location.validated("location", into: &v) }
        if let text = required(input.startsAt, "starts_at") {
            if let date = RFC3339.parse(text)?.wholeMilliseconds {
                if date < now.addingTimeInterval(-Self.clockSkew) { v.fail("starts_at", "must not be in the past") }
                else if date > now.addingTimeInterval(Self.maxLeadTime) { v.fail("starts_at", "must be within two years") }
                else { c.startsAt = date }
            } else {
                v.fail("starts_at", "must be an RFC 3339 date-time such as 2026-05-01T18:00:00Z")
            }
        }
        switch input.endsAt {
        case .value(let text):
            if let date = RFC3339.parse(text)?.wholeMilliseconds { c.endsAt = date } else { v.fail("ends_at", "must be an RFC 3339 date-time such as 2026-05-01T20:00:00Z") }
        case .null: if !creating { v.fail("ends_at", "must not be null") }
        case .absent: break
        }
        switch input.description {
        case .value(let text):
            if let text = v.text(text, "description", 0...4_000, multiline: true) { c.description = text }
        case .null: c.description = ""
        case .absent: break
        }
        switch input.address {
        case .value(let text): if let text = v.text(text, "address", 0...300) { c.address = text.isEmpty ? .null : .value(text) }
        case .null: c.address = .null
        case .absent: break
        }
        if !input.imageUrl.isAbsent { v.fail("image_url", "is set by the server; upload the image (POST /v1/media?use=cover) and send cover_id") }
        switch input.coverId {
        case .value(let text): if let id = MediaAttachments.parseID(text, field: "cover_id", into: &v) { cover = .value(id) }
        case .null: cover = .null
        case .absent: break
        }
        switch input.capacity {
        case .value(let capacity):
            if !(1...10_000).contains(capacity) { v.fail("capacity", "must be between 1 and 10000, or null for no limit") }
            else if let current, capacity < current.goingCount + current.offeredCount {
                v.fail("capacity", "must not be below the \(current.goingCount + current.offeredCount) places taken or offered")
            }
            else { c.capacity = .value(capacity) }
        case .null: c.capacity = .null
        case .absent: break
        }
        switch input.timeZone {
        case .value(let identifier): if v.timeZone(identifier) != nil { c.timeZone = identifier }
        case .null: v.fail("time_zone", "must not be null")
        case .absent: break
        }
        switch input.reminders {
        case .value(let minutes): c.reminders = v.reminders(minutes)
        case .null: c.reminders = []
        case .absent: break
        }
        switch input.answerDeadline {
        case .value(let text):
            if let date = RFC3339.parse(text)?.wholeMilliseconds {
                let start = c.startsAt ?? current?.startsAt
                if date <= now { v.fail("answer_deadline", "must be in the future") }
                else if let start, date > start { v.fail("answer_deadline", "must not be after starts_at") }
                else { c.answerDeadline = .value(date) }
            } else {
                v.fail("answer_deadline", "must be an RFC 3339 date-time such as 2026-05-01T12:00:00Z")
            }
        case .null: c.answerDeadline = .null
        case .absent:
            if let deadline = current?.answerDeadline, let start = c.startsAt, deadline > start {
                v.fail("answer_deadline", "must not be after starts_at: move it with the start")
            }
        }
        switch input.minRecord {
        case .value(let rule): if let rule = rule.validated(into: &v) { c.recordRule = .value(rule) }
        case .null: c.recordRule = .null
        case .absent: break
        }
        switch input.level {
        case .value(let range):
            let low = range.min.flatMap(Level.init), high = range.max.flatMap(Level.init)
            if low == nil { v.fail("level.min", "must be 0 to 7 in half steps, such as 2.5") }
            if high == nil { v.fail("level.max", "must be 0 to 7 in half steps, such as 4") }
            if let low, let high {
                if low > high { v.fail("level.max", "must not be below level.min") } else { c.levelRange = .value(low...high) }
            }
        case .null: c.levelRange = .null
        case .absent: break
        }
        switch input.audience {
        case .value(let text): if let audience = Audience(rawValue: text) { c.audience = audience } else { v.fail("audience", "must be anyone, women, men or mixed") }
        case .null: v.fail("audience", "must not be null: anyone, women, men or mixed")
        case .absent: break
        }
        switch input.minPlayers {
        case .value(let n): if (1...10_000).contains(n) { c.minPlayers = .value(n) } else { v.fail("min_players", "must be 1 to 10000, or null for none") }
        case .null: c.minPlayers = .null
        case .absent: break
        }
        switch input.decideMinutes {
        case .value(let n): if (15...10_080).contains(n) { c.decideMinutes = n } else { v.fail("decide_minutes", "must be 15 to 10080 (a week)") }
        case .null: v.fail("decide_minutes", "must not be null")
        case .absent: break
        }
        // The minimum as it will be: not above the places, decided in the future.
        let minPlayers = c.minPlayers.over(current?.minPlayers), capacity = c.capacity.over(current?.capacity)
        if let minPlayers, v.fields["min_players"] == nil, v.fields["capacity"] == nil {
            if let capacity, minPlayers > capacity { v.fail("min_players", "must not be more than the \(capacity) places") }
            let moved = !c.minPlayers.isAbsent || c.decideMinutes != nil || c.startsAt != nil
            if moved, current?.gameOnAt == nil, let start = c.startsAt ?? current?.startsAt, v.fields["starts_at"] == nil, v.fields["decide_minutes"] == nil {
                let decision = start.addingTimeInterval(-Double(c.decideMinutes ?? current?.decideMinutes ?? Event.defaultDecideMinutes) * 60)
                if decision <= now { v.fail("decide_minutes", "puts the decision on the number of players in the past (at \(RFC3339.format(decision)))") }
            }
        }
        // The period as it will be.
        if v.fields["starts_at"] == nil && v.fields["ends_at"] == nil, let start = c.startsAt ?? current?.startsAt {
            if creating && c.endsAt == nil { c.endsAt = start.addingTimeInterval(Self.defaultDuration) }
            // Moving the start without an end keeps the event's length.
            if let current, c.startsAt != nil, c.endsAt == nil { c.endsAt = start.addingTimeInterval(current.endsAt.timeIntervalSince(current.startsAt)) }
            let end = c.endsAt ?? current?.endsAt ?? start.addingTimeInterval(Self.defaultDuration)
            if end <= start { v.fail("ends_at", "must be after starts_at") }
            else if end.timeIntervalSince(start) > Self.maxDuration { v.fail("ends_at", "must be at most 7 days after starts_at") }
            else if !creating, c.endsAt != nil || c.startsAt != nil, end <= now { v.fail("ends_at", "must be in the future") }
        }
        try v.throwIfInvalid()
        return (c, cover)
    }

    /// Resolves the requested cover inside the transaction: the new upload's reference,
    /// and the replaced upload (deleted; its blob keys returned for after the commit).
    private func attachCover(_ cover: Patch<UUID>, to changes: inout EventStore.Changes, current: MediaRef?, owner: UUID, at now: Date, on sql: DatabaseSession) async throws -> [String] {
        switch cover {
        case .absent: return []
        case .null: changes.cover = .null
        case .value(let id):
            if id == current?.id { return [] }
            changes.cover = .value(try await media.attach(id, use: .cover, owner: owner, field: "cover_id", at: now, on: sql))
        }
        guard let replaced = current?.id else { return [] }
        return try await media.release([replaced], on: sql)
    }

    func create(by organiser: UUID, _ input: Input) async throws -> Event {
        let now = clock.now()
        let (c, cover) = try validate(input, creating: true, current: nil, now: now)
        let choice = try GroupChoice.read(groupID: input.groupId, membersOnly: input.membersOnly, creating: true)
        guard let title = c.title, let sport = c.sport, let location = c.location, let startsAt = c.startsAt, let endsAt = c.endsAt else {
            throw DomainError.validation(["title": "is required"])
        }
        var event = Event(
            id: UUID(), organiserID: organiser, organiserName: "", sport: sport, title: title, description: c.description ?? "",
            address: c.address.given,
            cover: nil,
            location: location, startsAt: startsAt, endsAt: endsAt,
            capacity: c.capacity.given,
            status: .active, goingCount: 0, waitlistCount: 0, version: 1, createdAt: now, updatedAt: now,
            timeZone: c.timeZone ?? "UTC", reminders: c.reminders ?? Event.defaultReminders,
            answerDeadline: c.answerDeadline.given,
            recordRule: c.recordRule.given,
            minPlayers: c.minPlayers.given,
            decideMinutes: c.decideMinutes ?? Event.defaultDecideMinutes,
            levelRange: c.levelRange.given,
            audience: c.audience ?? .anyone,
            groupID: choice?.group, membersOnly: choice?.membersOnly ?? false
        )
        event = try await write { [store, media, groups, notifier, event] sql, changes in
            var event = event
            let group = try await choice?.requireMaker(organiser, groups: groups, at: now, on: sql)
            if case .value(let id) = cover { event.cover = try await media.attach(id, use: .cover, owner: organiser, field: "cover_id", at: now, on: sql) }
            let stored = try await insert(event, at: now, on: sql, changes: &changes)
            if let group {
                let members = try await groups.unmutedMembers(of: group.id, except: organiser, on: sql)
                try await notifier.groupEvent(stored, group: group, to: members, at: now, on: sql, changes: &changes)
            }
            return stored
        }
        return event
    }

    /// Stores a new event (its organiser going, its room, its reminders) inside the
    /// caller's transaction: a one-off or a series' occurrence.
    @discardableResult
    func insert(_ event: Event, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event {
        try await store.insert(event, on: sql)
        guard let stored = try await store.event(event.id, on: sql) else { throw DomainError.notFound("user") }
        try await reminders.schedule(stored, at: now, on: sql, changes: &changes)
        try await scheduleDecision(stored, at: now, on: sql, changes: &changes)
        changes.event(stored)
        changes.record(.attendance(user: event.organiserID))
        return stored
    }

    func event(_ id: UUID, for user: UUID) async throws -> (Event, MyAttendance?) {
        try await database.read { [store] sql in
            guard let event = try await store.event(id, on: sql) else { throw DomainError.notFound("event") }
            return (event, try await Self.mine(event, user: user, store: store, on: sql))
        }
    }

    static func mine(_ event: Event, user: UUID, store: EventStore, on sql: DatabaseSession) async throws -> MyAttendance? {
        guard let attendance = try await store.attendance(event: event.id, user: user, on: sql) else {
            return try await store.isMaybe(event: event.id, user: user, on: sql) ? MyAttendance(status: .maybe, position: nil, isOrganiser: false) : nil
        }
        var position: Int?
        if attendance.status == .waitlisted, let number = attendance.queueNumber {
            position = try await store.waitlistPosition(event: event.id, queueNumber: number, on: sql)
        }
        return MyAttendance(status: attendance.status, position: position, isOrganiser: event.organiserID == user, offerExpiresAt: attendance.offerExpiresAt)
    }

    func update(_ id: UUID, by user: UUID, _ input: Input) async throws -> (Event, MyAttendance?) {
        let now = clock.now()
        let (result, released) = try await write { [self] sql, changes in
            guard let current = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            guard current.organiserID == user else { throw DomainError.forbidden("Only the organiser may edit this event.") }
            guard current.status == .active else { throw DomainError.conflict("event_cancelled", "The event is cancelled.") }
            guard current.endsAt > now else { throw DomainError.conflict("event_finished", "The event is over.") }
            _ = try GroupChoice.read(groupID: input.groupId, membersOnly: input.membersOnly, creating: false)
            var (edits, cover) = try validate(input, creating: false, current: current, now: now)
            let released = try await attachCover(cover, to: &edits, current: current.cover, owner: user, at: now, on: sql)
            let event = try await apply(edits, to: current, by: user, at: now, on: sql, changes: &changes)
            return ((event, try await Self.mine(event, user: user, store: store, on: sql)), released)
        }
        await media.removeBlobs(released)
        return result
    }

    /// Applies checked edits to a locked event inside the caller's transaction: the
    /// waitlist moves up into new places, reminders follow a moved start, and the people
    /// going (but `user`, who made the change) hear of a new time or place.
    func apply(_ edits: EventStore.Changes, to current: Event, by user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event {
        try await store.update(current.id, edits, at: now, on: sql)
        // More places: the waitlist moves up, or is offered them.
        var event = try await fillPlaces(current.id, at: now, on: sql, changes: &changes) ?? current
        // A moved start moves the reminders still to come; new ones are queued.
        if event.startsAt != current.startsAt || event.reminders != current.reminders {
            try await reminders.schedule(event, at: now, on: sql, changes: &changes)
        }
        if event.startsAt != current.startsAt || event.minPlayers != current.minPlayers || event.decideMinutes != current.decideMinutes {
            try await scheduleDecision(event, at: now, on: sql, changes: &changes)
        }
        event = try await gameOnIfReached(current.id, at: now, on: sql, changes: &changes) ?? event
        var changed: [String] = []
        if event.startsAt != current.startsAt { changed.append("starts_at") }
        if event.endsAt != current.endsAt { changed.append("ends_at") }
        if event.location != current.location { changed.append("location") }
        if !changed.isEmpty {
            let recipients = try await store.attendeeIDs(event: current.id, on: sql).filter { $0 != user }
            try await notifier.eventUpdated(event, changed: changed, recipients: recipients, at: now, on: sql, changes: &changes)
        }
        changes.event(event)
        return event
    }

    /// The organiser reminds everyone going now (``Reminders/remindNow(_:by:)``).
    func remindNow(_ id: UUID, by user: UUID) async throws {
        try await reminders.remindNow(id, by: user)
    }

    func cancel(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let current = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            guard current.organiserID == user else { throw DomainError.forbidden("Only the organiser may cancel this event.") }
            // A game that is over stays as it was: its players' records count it.
            guard current.endsAt > now || current.status != .active else { throw DomainError.conflict("event_finished", "The event is over.") }
            try await cancel(current, at: now, on: sql, changes: &changes)
        }
    }

    /// Cancels a locked event and tells its attendees, inside the caller's transaction: by
    /// the organiser, everyone going or waitlisted but them; for want of players, the
    /// organiser and the undecided (maybe) too.
    func cancel(_ current: Event, reason: Notifier.CancelReason = .organiser, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        guard current.status == .active else { return }
        try await store.cancel(current.id, at: now, on: sql)
        try await reminders.unschedule(current.id, on: sql)
        try await scheduler.unschedule(.gameDecision, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.offerExpiry, of: .event(current.id), on: sql)
        guard let event = try await store.event(current.id, on: sql) else { return }
        let attendees = try await store.attendeeIDs(event: current.id, on: sql)
        let told = reason == .organiser ? attendees.filter { $0 != current.organiserID } : attendees + (try await store.maybeIDs(event: current.id, on: sql))
        try await notifier.eventCancelled(event, recipients: told, reason: reason, at: now, on: sql, changes: &changes)
        changes.event(event)
        changes.attendance(of: attendees)
    }

    /// `user` is out of `group` (left, removed, banned), inside the caller's
    /// transaction: off its unfinished members-only events, their places going to
    /// the waitlist; those they organise are cancelled, with a notice, since nobody
    /// outside the group runs a game only its members may see.
    func departed(_ user: UUID, from group: Group, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        try await series.removeRegular(user, fromMembersOnlySeriesOf: group.id, on: sql)
        // Their members-only weekly games end (no new games are made with them as organiser).
        try await series.endAll(ofGroup: group.id, membersOnlyOrganisedBy: user, at: now, on: sql)
        // Invitations waiting for them to the group's members-only games go.
        try await store.dropPendingInvitations(of: user, toMembersOnlyGamesOf: group.id, on: sql)
        for id in try await store.unfinishedEvents(ofGroup: group.id, involving: user, now: now, on: sql) {
            guard let event = try await store.lock(id, on: sql), event.status == .active else { continue }
            if event.organiserID == user {
                try await cancel(event, reason: .organiserLeftGroup(name: group.name), at: now, on: sql, changes: &changes)
            } else {
                if try await store.removeMaybe(event: id, user: user, on: sql) { changes.record(.attendance(user: user)) }
                try await leave(event, user: user, at: now, on: sql, changes: &changes)
            }
        }
    }

    /// A deleted group's unfinished events are cancelled, their attendees told why
    /// (inside the deletion's transaction).
    func groupEnded(_ group: Group, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        for id in try await store.unfinishedEvents(ofGroup: group.id, now: now, on: sql) {
            guard let event = try await store.lock(id, on: sql) else { continue }
            try await cancel(event, reason: .groupEnded(name: group.name), at: now, on: sql, changes: &changes)
        }
        try await series.endAll(ofGroup: group.id, at: now, on: sql)
    }

    /// Takes a user out of every event, inside the caller's transaction (account
    /// deletion): the upcoming events they organise are cancelled, with
    /// notifications; the places they held go to the waitlist.
    func withdraw(_ user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        // Their weekly games end first: no game is made in the name of someone who is gone.
        try await series.endAll(organisedBy: user, at: now, on: sql)
        for id in try await store.eventIDs(attendedBy: user, on: sql) {
            guard let event = try await store.lock(id, on: sql) else { continue }
            if event.organiserID == user {
                if event.endsAt > now { try await cancel(event, at: now, on: sql, changes: &changes) }
            } else {
                try await leave(event, user: user, at: now, on: sql, changes: &changes)
            }
        }
    }

    struct Joined: Sendable {
        var status: AttendanceStatus
        var position: Int?
    }

    /// Joins (idempotent): going while places remain, otherwise waitlisted.
    func join(_ id: UUID, user: UUID) async throws -> Joined {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            // Already there: the place as it is (with the waitlist position, which the join below does not read).
            if let existing = try await store.attendance(event: id, user: user, on: sql) {
                let position = existing.status == .waitlisted ? try await store.waitlistPosition(event: id, queueNumber: existing.queueNumber ?? 0, on: sql) : nil
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
        if let updated = try await gameOnIfReached(event.id, at: now, on: sql, changes: &changes) { changes.event(updated) }
        changes.record(.attendance(user: user))
        return joined
    }

    static func requireOpen(_ event: Event, now: Date) throws {
        guard event.status == .active else { throw DomainError.conflict("event_cancelled", "The event is cancelled.") }
        guard event.endsAt > now else { throw DomainError.conflict("event_finished", "The event is over.") }
        if let deadline = event.answerDeadline, now > deadline {
            throw DomainError.conflict("answers_closed", "Answers closed at \(RFC3339.format(deadline)): ask the organiser.")
        }
    }

    /// An event that asks for a record takes only players whose last games show no more
    /// no-shows than it allows (403 `record_required`, saying what it asks and what
    /// their record shows).
    func requireRecord(_ event: Event, user: UUID, at now: Date, on sql: DatabaseSession) async throws {
        guard let rule = event.recordRule, user != event.organiserID else { return }
        let record = try await records.records(of: [user], at: now, on: sql)[user] ?? Reliability(entries: [])
        let noShows = record.count(.noShow, last: rule.lastGames)
        guard noShows > rule.maxNoShows else { return }
        throw DomainError.forbidden("record_required", """
            This game takes players with at most \(rule.maxNoShows) no-show\(rule.maxNoShows == 1 ? "" : "s") in their last \(rule.lastGames) games; \
            your record shows \(noShows). Your record: GET /v1/me/record.
            """)
    }

    /// A game for a level range or an audience takes only players it is for (403
    /// `level_required`, `level_out_of_range`, `audience_only`, each saying why and what
    /// to set on the profile: `PATCH /v1/me/player`). The organiser is exempt.
    func requireFit(_ event: Event, user: UUID, on sql: DatabaseSession) async throws {
        guard event.levelRange != nil || event.audience != .anyone, user != event.organiserID else { return }
        let player = try await players.profile(of: user, on: sql) ?? PlayerProfile(gender: nil, levels: [:])
        if let range = event.levelRange {
            let sport = sports[event.sport]?.name ?? event.sport
            let wanted = "levels \(range.lowerBound)–\(range.upperBound) in \(sport)"
            guard let level = player.levels[event.sport] else {
                throw DomainError.forbidden("level_required", "This game is for \(wanted): set your \(sport) level on your profile (PATCH /v1/me/player) to join.")
            }
            guard range.contains(level) else {
                throw DomainError.forbidden("level_out_of_range", "This game is for \(wanted); yours is \(level).")
            }
        }
        switch event.audience {
        case .anyone: break
        case .women where player.gender != .woman, .men where player.gender != .man:
            throw DomainError.forbidden("audience_only", "This game is for \(event.audience.rawValue) only (gender is self-declared on your profile: PATCH /v1/me/player).")
        case .mixed where player.gender == nil:
            throw DomainError.forbidden("audience_only", "This game has mixed teams: say on your profile whether you play as a woman or a man (PATCH /v1/me/player) to join.")
        default: break
        }
    }

    static let bannedMessage = "The organiser removed you from this event; you cannot join it again."

    static func requireNotBanned(_ event: Event, user: UUID, store: EventStore, on sql: DatabaseSession) async throws {
        if try await store.isBanned(event: event.id, user: user, on: sql) { throw DomainError.forbidden("banned", bannedMessage) }
    }

    /// The organiser takes an attendee (going or waitlisted) out of the event, and may
    /// ban them from joining again. The freed place goes to the waitlist; the person
    /// leaves the event's room at once; their messages stay. Idempotent.
    func remove(_ attendee: UUID, from id: UUID, by organiser: UUID, ban: Bool) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            guard event.organiserID == organiser else { throw DomainError.forbidden("Only the organiser may remove attendees.") }
            guard attendee != organiser else { throw DomainError.conflict("organiser_cannot_leave", "The organiser cannot be removed; cancel the event instead.") }
            guard try await accounts.user(attendee, on: sql) != nil else { throw DomainError.notFound("user") }
            if ban { try await store.ban(event: id, user: attendee, at: now, on: sql) }
            try await leave(event, user: attendee, at: now, on: sql, changes: &changes)
            // A maybe goes too: removed is no answer.
            if try await store.removeMaybe(event: id, user: attendee, on: sql) { changes.record(.attendance(user: attendee)) }
        }
    }

    /// Lets a banned person join again (organiser; idempotent).
    func unban(_ user: UUID, from id: UUID, by organiser: UUID) async throws {
        try await write { [store] sql, _ in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            guard event.organiserID == organiser else { throw DomainError.forbidden("Only the organiser may lift a ban.") }
            try await store.unban(event: id, user: user, on: sql)
        }
    }

    /// The people banned from an event, latest first (organiser only).
    func bans(of id: UUID, for organiser: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<Ban> {
        try await database.read { [store] sql in
            guard let event = try await store.event(id, on: sql) else { throw DomainError.notFound("event") }
            guard event.organiserID == organiser else { throw DomainError.forbidden("Only the organiser sees who is banned.") }
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
        guard let group = event.groupID, try await groups.isMember(user, of: group, on: sql) else { throw DomainError.notFound("event") }
    }

    /// Answers maybe: no place (one held is given up, the waitlist moving up), a
    /// reminder to decide before the game. The organiser is going by organising.
    /// A maybe meets the rules a place does (``requireAdmissible(_:user:at:on:)``).
    func answerMaybe(_ id: UUID, user: UUID) async throws -> Joined {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            guard event.organiserID != user else { throw DomainError.conflict("organiser_is_going", "The organiser is going; cancel the event instead.") }
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
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound("event") }
            // A maybe taken back: nothing else to give up.
            if try await store.removeMaybe(event: id, user: user, on: sql) {
                changes.record(.attendance(user: user))
                return
            }
            guard event.organiserID != user else {
                if try await store.attendance(event: id, user: user, on: sql) == nil { return }
                throw DomainError.conflict("organiser_cannot_leave", "The organiser cannot leave; cancel the event instead.")
            }
            try await leave(event, user: user, byChoice: true, at: now, on: sql, changes: &changes)
            // Leaving one game of a series leaves that date alone: a regular is not put back on it.
            if let series = event.seriesID, let date = event.occurrenceDate { try await self.series.optOut(user, of: series, on: date, on: sql) }
        }
    }

    /// Leaves a locked event inside the caller's transaction; the first waitlisted person
    /// takes a freed place. A place given up `byChoice` within ``lateCancel`` of the
    /// start is a late cancellation on the person's record.
    func leave(_ event: Event, user: UUID, byChoice: Bool = false, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let id = event.id
        guard let existing = try await store.attendance(event: id, user: user, on: sql) else { return }
        if byChoice, existing.status == .going, event.status == .active, now >= event.startsAt.addingTimeInterval(-lateCancel), now < event.endsAt {
            try await records.lateCancel(event: id, user: user, at: now, on: sql)
        }
        try await store.remove(event: id, user: user, status: existing.status, at: now, on: sql)
        changes.record(.attendance(user: user))
        // The place freed (or the offer given back) goes to the waitlist.
        let updated = try await fillPlaces(id, at: now, on: sql, changes: &changes) ?? event
        changes.event(updated)
    }
}

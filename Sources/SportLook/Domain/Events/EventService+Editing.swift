import Foundation

/// Creating, reading, editing, reminding and cancelling an event.
extension EventService {
    /// Resolves the requested cover inside the transaction: the new upload's reference,
    /// and the replaced upload (deleted; its blob keys returned for after the commit).
    private func attachCover(
        _ cover: Patch<UUID>, to changes: inout EventStore.Changes, current: MediaRef?, owner: UUID, at now: Date, on sql: DatabaseSession
    ) async throws -> [String] {
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
            throw DomainError.validation(["title": Sentence("is required")])
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
            groupID: choice?.group, membersOnly: choice?.membersOnly ?? false, competitive: c.competitive ?? false,
            price: c.price.given
        )
        event = try await write { [media, groups, notifier, event] sql, changes in
            var event = event
            let group = try await choice?.requireMaker(organiser, groups: groups, at: now, on: sql)
            if case .value(let id) = cover {
                event.cover = try await media.attach(id, use: .cover, owner: organiser, field: "cover_id", at: now, on: sql)
            }
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
        guard let stored = try await store.event(event.id, on: sql) else { throw DomainError.notFound(.user) }
        try await reminders.schedule(stored, at: now, on: sql, changes: &changes)
        try await scheduleDecision(stored, at: now, on: sql, changes: &changes)
        changes.event(stored)
        changes.record(.attendance(user: event.organiserID))
        return stored
    }

    func event(_ id: UUID, for user: UUID) async throws -> (Event, MyAttendance?) {
        try await database.read { [store] sql in
            guard let event = try await store.event(id, on: sql) else { throw DomainError.notFound(.event) }
            return (event, try await Self.mine(event, user: user, store: store, on: sql))
        }
    }

    static func mine(_ event: Event, user: UUID, store: EventStore, on sql: DatabaseSession) async throws -> MyAttendance? {
        guard let attendance = try await store.attendance(event: event.id, user: user, on: sql) else {
            return try await store.isMaybe(event: event.id, user: user, on: sql)
                ? MyAttendance(status: .maybe, position: nil, isOrganiser: false) : nil
        }
        var position: Int?
        if attendance.status == .waitlisted, let number = attendance.queueNumber {
            position = try await store.waitlistPosition(event: event.id, queueNumber: number, on: sql)
        }
        return MyAttendance(
            status: attendance.status, position: position, isOrganiser: event.organiserID == user, offerExpiresAt: attendance.offerExpiresAt
        )
    }

    func update(_ id: UUID, by user: UUID, _ input: Input) async throws -> (Event, MyAttendance?) {
        let now = clock.now()
        let (result, released) = try await write { [self] sql, changes in
            guard let current = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard current.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may edit this event.")) }
            guard current.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard current.endsAt > now else { throw DomainError.conflict("event_finished", Sentence("The event is over.")) }
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
    func apply(
        _ edits: EventStore.Changes, to current: Event, by user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws -> Event {
        try await store.update(current.id, edits, at: now, on: sql)
        // More places: the waitlist moves up, or is offered them.
        var event = try await fillPlaces(current.id, at: now, on: sql, changes: &changes) ?? current
        // A moved start moves the reminders still to come; new ones are queued.
        if event.startsAt != current.startsAt || event.reminders != current.reminders {
            try await reminders.schedule(event, at: now, on: sql, changes: &changes)
        }
        if event.startsAt != current.startsAt { try await teams.startMoved(event, at: now, on: sql, changes: &changes) }
        if event.startsAt != current.startsAt || event.minPlayers != current.minPlayers || event.decideMinutes != current.decideMinutes {
            try await scheduleDecision(event, at: now, on: sql, changes: &changes)
        }
        event = try await gameOnIfReached(current.id, at: now, on: sql, changes: &changes) ?? event
        if event.price != current.price || event.startsAt != current.startsAt {
            try await ledger.settle(event, priceChanged: current.price != nil, at: now, on: sql, changes: &changes)
        }
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
            guard let current = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard current.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may cancel this event.")) }
            // A game that is over stays as it was: its players' records count it.
            guard current.endsAt > now || current.status != .active else {
                throw DomainError.conflict("event_finished", Sentence("The event is over."))
            }
            try await cancel(current, at: now, on: sql, changes: &changes)
        }
    }
}

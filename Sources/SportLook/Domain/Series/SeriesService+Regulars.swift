import Foundation

/// Regulars, opt-outs, the organiser's skips and end, and reading a series.
extension SeriesService {
    // MARK: Regulars

    /// Makes the user a regular: they are put on every occurrence to come that they
    /// did not say they miss (going, or waitlisted when it is full).
    func join(_ id: UUID, user: UUID) async throws -> View {
        let now = clock.now()
        try await write { [store, eventStore] sql, changes in
            guard let series = try await store.lock(id, on: sql) else { throw DomainError.notFound(.series) }
            // A members-only series takes the group's members alone (checked again here: they may have just left).
            if series.membersOnly, try await !groups.isMember(user, of: series.groupID ?? id, on: sql) {
                throw DomainError.notFound(.series)
            }
            guard series.status == .active else { throw DomainError.conflict("series_ended", Sentence("The series has ended.")) }
            guard try await store.addRegular(user, to: id, at: now, on: sql) else { return }
            for occurrence in try await store.occurrences(of: id, from: series.date(of: now), on: sql)
            where occurrence.isOpen(at: now) && occurrence.startsAt > now {
                guard let date = occurrence.occurrenceDate.flatMap({ LocalDate($0) }),
                    try await !store.optedOut(of: id, on: date, on: sql).contains(user),
                    let current = try await eventStore.lock(occurrence.id, on: sql)
                else { continue }
                try await putOn(current, user, at: now, on: sql, changes: &changes)
            }
        }
        return try await view(id, for: user)
    }

    /// Puts a regular on one game: going, or waitlisted when it is full. A game whose own
    /// rules refuse them (a ban from that date, their record, level or the audience) leaves
    /// them off that date alone; its checks come before any write, so a refusal leaves
    /// nothing half done. Anything else (the database) fails the whole change.
    func putOn(_ event: Event, _ user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        do {
            _ = try await events.join(event, user: user, at: now, on: sql, changes: &changes)
        } catch let refusal as DomainError where [.forbidden, .notFound, .conflict, .invalid].contains(refusal.kind) {
            return
        }
    }

    /// Stops being a regular: off the occurrences to come too.
    func leave(_ id: UUID, user: UUID) async throws {
        let now = clock.now()
        try await write { [store, eventStore] sql, changes in
            guard let series = try await store.lock(id, on: sql) else { throw DomainError.notFound(.series) }
            guard try await store.removeRegular(user, from: id, on: sql) else { return }
            guard user != series.organiserID else { return }
            for occurrence in try await store.occurrences(of: id, from: series.date(of: now), on: sql)
            where occurrence.startsAt > now {
                guard let current = try await eventStore.lock(occurrence.id, on: sql),
                    try await eventStore.attendance(event: current.id, user: user, on: sql) != nil
                else { continue }
                try await events.leave(current, user: user, byChoice: true, at: now, on: sql, changes: &changes)
            }
        }
    }

    /// A person says they miss the game on `date` (made already, or not yet): they are
    /// not put on it, and leave it if they were.
    func optOut(_ id: UUID, date text: String?, user: UUID) async throws {
        guard let date = text.flatMap({ LocalDate($0) }) else {
            throw DomainError.validation(["date": Sentence("must be a date such as 2026-05-12")])
        }
        let now = clock.now()
        try await write { [store, eventStore] sql, changes in
            guard let series = try await store.series(id, on: sql) else { throw DomainError.notFound(.series) }
            guard try await store.isRegular(user, of: id, on: sql) else {
                throw DomainError.forbidden(
                    "not_regular",
                    Sentence("Only the series' regulars say which dates they miss; leave a single game from the game itself."))
            }
            try Self.requireComingDate(date, of: series, at: now)
            try await store.optOut(user, of: id, on: date.description, on: sql)
            if let occurrence = try await store.occurrence(of: id, on: date, on: sql),
                let current = try await eventStore.lock(occurrence, on: sql),
                current.organiserID != user, current.startsAt > now,
                try await eventStore.attendance(event: occurrence, user: user, on: sql) != nil
            {
                try await events.leave(current, user: user, byChoice: true, at: now, on: sql, changes: &changes)
            }
        }
    }

    // MARK: The organiser's

    /// Skips a date: it is not made, and cancelled (everyone told) if it was.
    func skip(_ id: UUID, date text: String?, by user: UUID) async throws {
        guard let date = text.flatMap({ LocalDate($0) }) else {
            throw DomainError.validation(["date": Sentence("must be a date such as 2026-05-12")])
        }
        let now = clock.now()
        try await write { [store, eventStore] sql, changes in
            guard let series = try await store.lock(id, on: sql) else { throw DomainError.notFound(.series) }
            guard series.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may skip a date.")) }
            try Self.requireComingDate(date, of: series, at: now)
            let game = try await store.occurrence(of: id, on: date, on: sql).asyncMap { try await eventStore.lock($0, on: sql) }
            // A game that has started is left alone: it stays on its players' records.
            if let game, game.startsAt <= now {
                throw DomainError.conflict("game_started", Sentence("The game on \(date) has started; it cannot be skipped."))
            }
            try await store.skip(date, of: id, on: sql)
            if let game { try await events.cancel(game, at: now, on: sql, changes: &changes) }
        }
    }

    /// Ends the series: no more occurrences, and those to come are cancelled.
    func end(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store, eventStore, scheduler] sql, changes in
            guard let series = try await store.lock(id, on: sql) else { throw DomainError.notFound(.series) }
            guard series.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may end the series.")) }
            guard series.status == .active else { return }
            try await store.end(id, at: now, on: sql)
            try await scheduler.unschedule(.seriesExtension, of: .series(id), on: sql)
            for occurrence in try await store.occurrences(of: id, from: series.date(of: now), on: sql)
            where occurrence.startsAt > now {
                if let current = try await eventStore.lock(occurrence.id, on: sql) {
                    try await events.cancel(current, at: now, on: sql, changes: &changes)
                }
            }
        }
    }

    // MARK: Reading

    func view(_ id: UUID, for user: UUID) async throws -> View {
        let now = clock.now()
        guard let series = try await store.series(id) else { throw DomainError.notFound(.series) }
        let regulars = try await store.regulars(of: id)
        let upcoming = try await store.occurrences(of: id, from: series.date(of: now)).filter { $0.endsAt > now }
        return View(
            series: series, regulars: regulars.count, isRegular: regulars.contains { $0.user.id == user },
            upcoming: Array(upcoming.prefix(20)))
    }

    /// The regulars in the order they joined: the organiser's to see.
    func regulars(of id: UUID, for user: UUID) async throws -> [SeriesRegular] {
        guard let series = try await store.series(id) else { throw DomainError.notFound(.series) }
        guard series.organiserID == user else {
            throw DomainError.forbidden("regulars_private", Sentence("Only the organiser sees who the regulars are."))
        }
        let hidden = try await blocks.eitherWay(user)
        return try await store.regulars(of: id).filter { !hidden.contains($0.user.id) }
    }

    /// What changes in a game of another template (a split's) to make it this one's
    /// game on `date`; a capacity below the people going already is raised to them.
    static func edits(_ series: Series, to event: Event, on date: LocalDate) -> EventStore.Changes {
        var c = EventStore.Changes()
        let start = series.start(on: date)
        let end = start.addingTimeInterval(Double(series.durationMinutes) * 60)
        if series.title != event.title { c.title = series.title }
        if series.description != event.description { c.description = series.description }
        if series.sport != event.sport { c.sport = series.sport }
        if series.address != event.address { c.address = series.address.map { .value($0) } ?? .null }
        if series.location != event.location { c.location = series.location }
        if start != event.startsAt { c.startsAt = start }
        if end != event.endsAt { c.endsAt = end }
        // Never below the places taken or offered, nor below the game's own minimum.
        let places = series.capacity.map { max($0, event.goingCount + event.offeredCount, event.minPlayers ?? 0) }
        if places != event.capacity { c.capacity = places.map { .value($0) } ?? .null }
        if series.timeZone != event.timeZone { c.timeZone = series.timeZone }
        if series.reminders != event.reminders { c.reminders = series.reminders }
        if let deadline = event.answerDeadline, deadline > start { c.answerDeadline = .null }
        if series.price != event.price { c.price = series.price.map { .value($0) } ?? .null }
        return c
    }

    /// How far ahead a series' dates may be named (a split, an opt-out): two years.
    static let planningDays = 731

    /// Throws 422 on `date` unless the series can have a game that day: on its rule, from
    /// today, within the two years a series is planned in (opt-outs and skips name such a date).
    static func requireComingDate(_ date: LocalDate, of series: Series, at now: Date) throws {
        let today = series.date(of: now)
        guard date >= today, date <= today.adding(days: planningDays), series.rule.dates(from: series.firstDate, through: date).last == date
        else { throw DomainError.validation(["date": Sentence("must be a coming date the series has a game on, within two years")]) }
    }

    /// `19:00` → 1140.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard text.utf8.count == 5, parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h),
            (0...59).contains(m)
        else { return nil }
        return h * 60 + m
    }
}

import Foundation

/// The weekly game: a series makes its occurrences — real events, each with its own
/// attendance, capacity, waitlist, chat room and reminders — a rolling window ahead
/// (``horizon``), by a scheduled job that runs a day later again, under the series
/// row's lock and a unique (series, date) index, so several instances running it make
/// each occurrence once. Regulars are put on each new occurrence (going, or waitlisted
/// by the usual rules, in the order they joined) unless they said they are not coming
/// that day; leaving one date leaves only that date.
struct SeriesService: Sendable {
    let store: SeriesStore
    let events: EventService
    let eventStore: EventStore
    let scheduler: Scheduler
    /// Groups, for their series (made by their admins; their members told).
    let groups: GroupStore
    let notifier: Notifier
    let sports: SportCatalog
    /// People blocked either way with the organiser are not on their list of regulars.
    let blocks: Blocks
    let write: Writer
    let clock: any AppClock
    /// How far ahead occurrences exist.
    let horizon: TimeInterval

    /// A new series, or (with `from`) what changes from a date on: absent fields are
    /// required for a new series and unchanged in a split.
    struct Input: Decodable, Sendable {
        var title: String?
        var sport: String?
        var location: LocationInput?
        var address: String?
        var description: String?
        /// `null` or absent: no limit (a split keeps the series' own when absent).
        var capacity: Patch<Int> = .absent
        var timeZone: String?
        var firstDate: String?
        var startTime: String?
        var durationMinutes: Int?
        var rule: String?
        var reminders: [Int]?
        /// A split's first date.
        var from: String?
        /// The group it is made for, and whether its members alone see it (new series only).
        var groupId: Patch<String> = .absent
        var membersOnly: Patch<Bool> = .absent
        /// What each game costs, or null for free (a split keeps the series' own when absent).
        var price: Patch<PriceInput> = .absent

        enum CodingKeys: String, CodingKey {
            case title, sport, location, address, description, capacity, timeZone, firstDate, startTime, durationMinutes, rule, reminders,
                from
            case groupId, membersOnly, price
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            sport = try c.decodeIfPresent(String.self, forKey: .sport)
            location = try c.decodeIfPresent(LocationInput.self, forKey: .location)
            address = try c.decodeIfPresent(String.self, forKey: .address)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            capacity = try c.patch(.capacity)
            timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
            firstDate = try c.decodeIfPresent(String.self, forKey: .firstDate)
            startTime = try c.decodeIfPresent(String.self, forKey: .startTime)
            durationMinutes = try c.decodeIfPresent(Int.self, forKey: .durationMinutes)
            rule = try c.decodeIfPresent(String.self, forKey: .rule)
            reminders = try c.decodeIfPresent([Int].self, forKey: .reminders)
            from = try c.decodeIfPresent(String.self, forKey: .from)
            groupId = try c.patch(.groupId)
            membersOnly = try c.patch(.membersOnly)
            price = try c.patch(.price)
        }
    }

    /// A series as a caller sees it.
    struct View: Sendable {
        var series: Series
        var regulars: Int
        var isRegular: Bool
        var upcoming: [Event]
    }

    // MARK: Making

    func create(by organiser: UUID, _ input: Input) async throws -> View {
        let now = clock.now()
        var v = Validator()
        let first = input.firstDate.flatMap({ LocalDate($0) })
        if first == nil { v.fail("first_date", Sentence("must be a date such as 2026-05-12")) }
        var series = template(input, base: nil, first: first, organiser: organiser, at: now, into: &v)
        try v.throwIfInvalid()
        let choice = try GroupChoice.read(groupID: input.groupId, membersOnly: input.membersOnly, creating: true)
        series?.groupID = choice?.group
        series?.membersOnly = choice?.membersOnly ?? false
        guard let series else { throw DomainError.validation(v.fields) }
        try await write { [store, groups, notifier] sql, changes in
            let group = try await choice?.requireMaker(organiser, groups: groups, at: now, on: sql)
            try await store.insert(series, on: sql)
            try await extend(series.id, at: now, on: sql, changes: &changes)
            // The group hears of the weekly game once, by its first game.
            if let group, let first = try await store.occurrences(of: series.id, from: series.firstDate, on: sql).first {
                let members = try await groups.unmutedMembers(of: group.id, except: organiser, on: sql)
                try await notifier.groupEvent(first, group: group, to: members, at: now, on: sql, changes: &changes)
            }
        }
        return try await view(series.id, for: organiser)
    }

    /// Checks a series' template: every field of a new series, or the fields given over
    /// `base`'s for a split. A split without a rule keeps the base's, with what is left
    /// of its COUNT.
    private func template(_ input: Input, base: Series?, first: LocalDate?, organiser: UUID, at now: Date, into v: inout Validator)
        -> Series?
    {
        let title = input.title == nil && base != nil ? base?.title : v.text(input.title, "title", 1...120)
        let sport = input.sport ?? base?.sport
        if let slug = input.sport, sports[slug] == nil {
            v.fail("sport", Sentence("unknown sport '\(slug.prefix(64))'"))
        } else if sport == nil {
            v.fail("sport", Sentence("is required"))
        }
        let location = input.location.map { $0.validated("location", into: &v) } ?? base?.location
        if input.location == nil && base == nil { v.fail("location", Sentence("is required")) }
        let address = input.address.map { v.text($0, "address", 0...300).flatMap { $0.isEmpty ? nil : $0 } } ?? base?.address
        let description = input.description.flatMap { v.text($0, "description", 0...4_000, multiline: true) } ?? base?.description ?? ""
        let capacity: Int?
        switch input.capacity {
        case .value(let n):
            capacity = n
            if !(1...10_000).contains(n) { v.fail("capacity", Sentence("must be between 1 and 10000, or null for no limit")) }
        case .null: capacity = nil
        case .absent: capacity = base?.capacity
        }
        let zoneName = input.timeZone ?? base?.timeZone
        let zone = v.timeZone(zoneName)
        if let first, let zone, base == nil {
            let today = LocalDate(now, in: zone)
            if first < today { v.fail("first_date", Sentence("must not be in the past")) }
            if first > today.adding(days: 730) { v.fail("first_date", Sentence("must be within two years")) }
        }
        let minutes = input.startTime.map(Self.minutes) ?? base?.startMinutes
        if minutes == nil { v.fail("start_time", Sentence("must be a local time such as 19:00")) }
        let duration = input.durationMinutes ?? base?.durationMinutes ?? 120
        if !(15...1_440).contains(duration) { v.fail("duration_minutes", Sentence("must be 15 to 1440")) }
        var rule: Recurrence?
        if let text = input.rule, let first {
            do throws(RecurrenceError) { rule = try Recurrence(parsing: text, first: first) } catch { v.fail("rule", error.message) }
        } else if let base, let first {
            rule = base.rule
            if let count = base.rule.count {
                let before = base.rule.dates(from: base.firstDate, through: first.adding(days: -1)).count
                rule?.count = count - before
            }
        } else if input.rule == nil {
            v.fail("rule", Sentence("is required: an RRULE such as FREQ=WEEKLY;BYDAY=TU"))
        }
        let reminders = input.reminders.map { v.reminders($0) } ?? base?.reminders ?? Event.defaultReminders
        var price = base?.price
        switch input.price {
        case .value(let given): price = given.validated(into: &v)
        case .null: price = nil
        case .absent: break
        }
        guard let title, let sport, let location, let zoneName, let first, let minutes, let rule, let reminders else { return nil }
        return Series(
            id: UUID(), organiserID: organiser, organiserName: base?.organiserName ?? "", groupID: base?.groupID,
            membersOnly: base?.membersOnly ?? false, title: title, sport: sport,
            description: description, address: address, location: location, capacity: capacity, timeZone: zoneName,
            reminders: reminders, startMinutes: minutes, durationMinutes: duration, firstDate: first, rule: rule,
            status: .active, madeThrough: first.adding(days: -1), price: price, version: 1, createdAt: now, updatedAt: now
        )
    }

    /// Runs a due extension: the occurrences up to the horizon, and the next run.
    func extendDue(_ id: UUID) async throws {
        let now = clock.now()
        try await write { sql, changes in try await extend(id, at: now, on: sql, changes: &changes) }
    }

    /// Makes the series' occurrences through the horizon that are not made yet, inside
    /// the caller's transaction, and schedules the next look a day later.
    func extend(_ id: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        guard let series = try await store.lock(id, on: sql), series.status == .active, let zone = TimeZone(identifier: series.timeZone)
        else { return }
        // A series whose organiser deleted their account makes no games in their name: it ends here.
        guard try await store.organiserIsLive(id, on: sql) else { return try await store.end(id, at: now, on: sql) }
        let through = LocalDate(now.addingTimeInterval(horizon), in: zone)
        if through > series.madeThrough {
            let skipped = try await store.skipped(of: id, on: sql)
            let regulars = try await store.regulars(of: id, on: sql)
            for date in series.rule.dates(from: series.firstDate, through: through)
            where date > series.madeThrough && !skipped.contains(date.description) {
                let start = series.start(on: date)
                guard start > now, try await store.occurrence(of: id, on: date, on: sql) == nil else { continue }
                try await makeOccurrence(of: series, on: date, startingAt: start, regulars: regulars, at: now, on: sql, changes: &changes)
            }
            try await store.setMadeThrough(id, through, at: now, on: sql)
        }
        // A rule with an end stops looking once its last date is made.
        if let last = series.rule.end(from: series.firstDate), through >= last { return }
        try await scheduler.schedule(
            .seriesExtension(series: id), dedupeKey: "series_extend:\(id.lowercased):\(through.description)", after: 86_400, on: sql)
        changes.record(.jobs)
    }

    // MARK: This and following

    /// Edits the games from `input.from` on ("this and following", as calendars do): the
    /// series ends the day before (or, split at its first date, ends), and a new series
    /// carries on with the changes, its regulars (in their order), skips and opt-outs.
    /// Games made already from that date move to it and change in place — attendance,
    /// chat and cover stay, everyone going hears of a new time or place and reminders
    /// move — or, when the new rule has no game that day, stay the old series' and are
    /// cancelled. Earlier games are left alone.
    func split(_ id: UUID, by user: UUID, _ input: Input) async throws -> View {
        let now = clock.now()
        // Within two years, checked before anything is read or locked.
        if let from = input.from.flatMap({ LocalDate($0) }), from > LocalDate(now, in: .gmt).adding(days: Self.planningDays) {
            throw DomainError.validation(["from": Sentence("must be within two years")])
        }
        _ = try GroupChoice.read(groupID: input.groupId, membersOnly: input.membersOnly, creating: false)
        let next: Series = try await write { [self] sql, changes in
            guard let old = try await store.lock(id, on: sql) else { throw DomainError.notFound(.series) }
            guard old.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may change the series.")) }
            guard old.status == .active else { throw DomainError.conflict("series_ended", Sentence("The series has ended.")) }
            var v = Validator()
            let from = input.from.flatMap({ LocalDate($0) })
            if let from {
                if old.rule.dates(from: old.firstDate, through: from).last != from {
                    v.fail("from", Sentence("must be a date the series has a game on"))
                }
            } else {
                v.fail("from", Sentence("must be a date such as 2026-05-12"))
            }
            guard var next = template(input, base: old, first: from, organiser: user, at: now, into: &v), let from else {
                try v.throwIfInvalid()
                throw DomainError.validation(v.fields)
            }
            if next.start(on: from) <= now { v.fail("start_time", Sentence("would put the game on \(from) in the past")) }
            try v.throwIfInvalid()
            if let made = try await store.occurrence(of: id, on: from, on: sql), let game = try await eventStore.event(made, on: sql),
                game.startsAt <= now
            {
                throw DomainError.conflict(
                    "game_started", Sentence("The game on \(from) has started; change the series from a later date."))
            }
            next.organiserName = old.organiserName
            try await store.insert(next, on: sql)
            var ended = old.rule
            ended.until = from.adding(days: -1)
            ended.count = nil
            try await store.split(id, rule: from > old.firstDate ? ended : nil, followedBy: next.id, at: now, on: sql)
            // The old series still makes its games up to the day before (a split beyond
            // the horizon leaves no gap); one that ended makes none.
            if from > old.firstDate {
                try await extend(id, at: now, on: sql, changes: &changes)
            } else {
                try await scheduler.unschedule(.seriesExtension, of: .series(id), on: sql)
            }
            try await store.copyPeople(of: id, to: next.id, from: from, on: sql)
            let dates = Set(next.rule.dates(from: from, through: max(old.madeThrough, from)).map(\.description))
            for occurrence in try await store.occurrences(of: id, from: from, on: sql) {
                // A game that has started (moved earlier by itself) is left alone.
                guard let current = try await eventStore.lock(occurrence.id, on: sql), current.startsAt > now else { continue }
                // A date the new rule has no game on stays the old series', cancelled.
                guard let text = current.occurrenceDate, dates.contains(text), let date = LocalDate(text) else {
                    try await events.cancel(current, at: now, on: sql, changes: &changes)
                    continue
                }
                try await store.move(occurrence: current.id, to: next.id, on: sql)
                guard current.status == .active else { continue }
                _ = try await events.apply(
                    Self.edits(next, to: current, on: date), to: current, by: user, at: now, on: sql, changes: &changes)
            }
            try await extend(next.id, at: now, on: sql, changes: &changes)
            return next
        }
        return try await view(next.id, for: user)
    }

    private func makeOccurrence(
        of series: Series, on date: LocalDate, startingAt start: Date, regulars: [SeriesRegular], at now: Date,
        on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let event = Event(
            id: UUID(), organiserID: series.organiserID, organiserName: series.organiserName, sport: series.sport, title: series.title,
            description: series.description, address: series.address, cover: nil, location: series.location, startsAt: start,
            endsAt: start.addingTimeInterval(Double(series.durationMinutes) * 60), capacity: series.capacity, status: .active,
            goingCount: 0, waitlistCount: 0, version: 1, createdAt: now, updatedAt: now,
            timeZone: series.timeZone, reminders: series.reminders, seriesID: series.id, occurrenceDate: date.description,
            groupID: series.groupID, membersOnly: series.membersOnly, price: series.price
        )
        try await events.insert(event, at: now, on: sql, changes: &changes)
        let away = try await store.optedOut(of: series.id, on: date, on: sql)
        for regular in regulars where regular.user.id != series.organiserID && !away.contains(regular.user.id) {
            guard let current = try await eventStore.event(event.id, on: sql) else { break }
            try await putOn(current, regular.user.id, at: now, on: sql, changes: &changes)
        }
    }
}

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
    /// Published teams follow who is going.
    let teams: Teams
    /// A player's open requests for a substitute end when they leave.
    let substituteRequests: SubstituteStore
    /// What people owe at a priced game follows who is going.
    let ledger: Ledger
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
        /// Whether the result moves levels: fixed once someone has joined.
        var competitive: Patch<Bool> = .absent
        /// What playing costs: `{amount, currency, split, late_cancel_hours}`, or null for free.
        var price: Patch<PriceInput> = .absent

        enum CodingKeys: String, CodingKey {
            case title, sport, startsAt, endsAt, location, address, description, capacity, coverId, imageUrl, timeZone, reminders,
                answerDeadline, minRecord
            case minPlayers, decideMinutes, level, audience, groupId, membersOnly, competitive, price
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
            competitive = try c.patch(.competitive)
            price = try c.patch(.price)
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
                v.fail("min_record.last_games", Sentence("must be 1 to \(Reliability.games)"))
                return nil
            }
            guard let maxNoShows, (0..<lastGames).contains(maxNoShows) else {
                v.fail("min_record.max_no_shows", Sentence("must be 0 to one less than last_games"))
                return nil
            }
            return RecordRule(lastGames: lastGames, maxNoShows: maxNoShows)
        }
    }

    /// Checks the fields present in `input` and returns them as changes (the cover as
    /// the upload's id, for ``attachCover(_:to:owner:at:on:)`` to resolve in the transaction).
    func validate(_ input: Input, creating: Bool, current: Event?, now: Date) throws -> (EventStore.Changes, Patch<UUID>) {
        var cover = Patch<UUID>.absent
        var v = Validator()
        var c = EventStore.Changes()
        func required<T>(_ patch: Patch<T>, _ field: String) -> T? {
            switch patch {
            case .value(let value): return value
            case .null:
                v.fail(field, Sentence("must not be null"))
                return nil
            case .absent:
                if creating { v.fail(field, Sentence("is required")) }
                return nil
            }
        }
        if let title = required(input.title, "title") { c.title = v.text(title, "title", 1...120) }
        if let slug = required(input.sport, "sport") {
            if sports[slug] == nil { v.fail("sport", Sentence("unknown sport '\(slug.prefix(64))'")) } else { c.sport = slug }
        }
        if let location = required(input.location, "location") { c.location = location.validated("location", into: &v) }
        if let text = required(input.startsAt, "starts_at") {
            if let date = RFC3339.parse(text)?.wholeMilliseconds {
                if date < now.addingTimeInterval(-Self.clockSkew) {
                    v.fail("starts_at", Sentence("must not be in the past"))
                } else if date > now.addingTimeInterval(Self.maxLeadTime) {
                    v.fail("starts_at", Sentence("must be within two years"))
                } else {
                    c.startsAt = date
                }
            } else {
                v.fail("starts_at", Sentence("must be an RFC 3339 date-time such as 2026-05-01T18:00:00Z"))
            }
        }
        switch input.endsAt {
        case .value(let text):
            if let date = RFC3339.parse(text)?.wholeMilliseconds {
                c.endsAt = date
            } else {
                v.fail("ends_at", Sentence("must be an RFC 3339 date-time such as 2026-05-01T20:00:00Z"))
            }
        case .null: if !creating { v.fail("ends_at", Sentence("must not be null")) }
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
        if !input.imageUrl.isAbsent {
            v.fail("image_url", Sentence("is set by the server; upload the image (POST /v1/media?use=cover) and send cover_id"))
        }
        switch input.coverId {
        case .value(let text): if let id = MediaAttachments.parseID(text, field: "cover_id", into: &v) { cover = .value(id) }
        case .null: cover = .null
        case .absent: break
        }
        switch input.capacity {
        case .value(let capacity):
            if !(1...10_000).contains(capacity) {
                v.fail("capacity", Sentence("must be between 1 and 10000, or null for no limit"))
            } else if let current, capacity < current.goingCount + current.offeredCount {
                v.fail("capacity", Sentence("must not be below the \(current.goingCount + current.offeredCount) places taken or offered"))
            } else {
                c.capacity = .value(capacity)
            }
        case .null: c.capacity = .null
        case .absent: break
        }
        switch input.timeZone {
        case .value(let identifier): if v.timeZone(identifier) != nil { c.timeZone = identifier }
        case .null: v.fail("time_zone", Sentence("must not be null"))
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
                if date <= now {
                    v.fail("answer_deadline", Sentence("must be in the future"))
                } else if let start, date > start {
                    v.fail("answer_deadline", Sentence("must not be after starts_at"))
                } else {
                    c.answerDeadline = .value(date)
                }
            } else {
                v.fail("answer_deadline", Sentence("must be an RFC 3339 date-time such as 2026-05-01T12:00:00Z"))
            }
        case .null: c.answerDeadline = .null
        case .absent:
            if let deadline = current?.answerDeadline, let start = c.startsAt, deadline > start {
                v.fail("answer_deadline", Sentence("must not be after starts_at: move it with the start"))
            }
        }
        switch input.minRecord {
        case .value(let rule): if let rule = rule.validated(into: &v) { c.recordRule = .value(rule) }
        case .null: c.recordRule = .null
        case .absent: break
        }
        switch input.level {
        case .value(let range):
            let low = range.min.flatMap(Level.init)
            let high = range.max.flatMap(Level.init)
            if low == nil { v.fail("level.min", Sentence("must be 0 to 7 in half steps, such as 2.5")) }
            if high == nil { v.fail("level.max", Sentence("must be 0 to 7 in half steps, such as 4")) }
            if let low, let high {
                if low > high { v.fail("level.max", Sentence("must not be below level.min")) } else { c.levelRange = .value(low...high) }
            }
        case .null: c.levelRange = .null
        case .absent: break
        }
        switch input.audience {
        case .value(let text):
            if let audience = Audience(rawValue: text) {
                c.audience = audience
            } else {
                v.fail("audience", Sentence("must be anyone, women, men or mixed"))
            }
        case .null: v.fail("audience", Sentence("must not be null: anyone, women, men or mixed"))
        case .absent: break
        }
        c.competitive = v.nonNull(input.competitive, "competitive")
        if let competitive = c.competitive, let current, competitive != current.competitive,
            current.goingCount > 0 || current.waitlistCount > 0
        {
            throw DomainError.conflict("competitive_fixed", Sentence("Whether a game is competitive is fixed once someone has joined."))
        }
        switch input.price {
        case .value(let price):
            if let price = price.validated(into: &v) { c.price = .value(price) }
        case .null: c.price = .null
        case .absent: break
        }
        if !c.price.isAbsent, let current, now >= current.startsAt, c.price.over(current.price) != current.price {
            throw DomainError.conflict("price_frozen", Sentence("The game has started: what each person owes stands."))
        }
        switch input.minPlayers {
        case .value(let n):
            if (1...10_000).contains(n) {
                c.minPlayers = .value(n)
            } else {
                v.fail("min_players", Sentence("must be 1 to 10000, or null for none"))
            }
        case .null: c.minPlayers = .null
        case .absent: break
        }
        switch input.decideMinutes {
        case .value(let n):
            if (15...10_080).contains(n) { c.decideMinutes = n } else { v.fail("decide_minutes", Sentence("must be 15 to 10080 (a week)")) }
        case .null: v.fail("decide_minutes", Sentence("must not be null"))
        case .absent: break
        }
        // The minimum as it will be: not above the places, decided in the future.
        let minPlayers = c.minPlayers.over(current?.minPlayers)
        let capacity = c.capacity.over(current?.capacity)
        if let minPlayers, v.fields["min_players"] == nil, v.fields["capacity"] == nil {
            if let capacity, minPlayers > capacity { v.fail("min_players", Sentence("must not be more than the \(capacity) places")) }
            let moved = !c.minPlayers.isAbsent || c.decideMinutes != nil || c.startsAt != nil
            if moved, current?.gameOnAt == nil, let start = c.startsAt ?? current?.startsAt, v.fields["starts_at"] == nil,
                v.fields["decide_minutes"] == nil
            {
                let decision = start.addingTimeInterval(
                    -Double(c.decideMinutes ?? current?.decideMinutes ?? Event.defaultDecideMinutes) * 60)
                if decision <= now {
                    v.fail(
                        "decide_minutes",
                        Sentence("puts the decision on the number of players in the past (at \(RFC3339.format(decision)))"))
                }
            }
        }
        // The period as it will be.
        if v.fields["starts_at"] == nil && v.fields["ends_at"] == nil, let start = c.startsAt ?? current?.startsAt {
            if creating && c.endsAt == nil { c.endsAt = start.addingTimeInterval(Self.defaultDuration) }
            // Moving the start without an end keeps the event's length.
            if let current, c.startsAt != nil, c.endsAt == nil {
                c.endsAt = start.addingTimeInterval(current.endsAt.timeIntervalSince(current.startsAt))
            }
            let end = c.endsAt ?? current?.endsAt ?? start.addingTimeInterval(Self.defaultDuration)
            if end <= start {
                v.fail("ends_at", Sentence("must be after starts_at"))
            } else if end.timeIntervalSince(start) > Self.maxDuration {
                v.fail("ends_at", Sentence("must be at most 7 days after starts_at"))
            } else if !creating, c.endsAt != nil || c.startsAt != nil, end <= now {
                v.fail("ends_at", Sentence("must be in the future"))
            }
        }
        try v.throwIfInvalid()
        return (c, cover)
    }

}

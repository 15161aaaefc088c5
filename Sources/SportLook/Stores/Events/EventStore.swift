import Foundation
import SQLKit

/// Events and attendance in SQL.
struct EventStore: Store {
    let database: Database

    static let columns = """
        e.id, e.organiser_id, u.name AS organiser_name, e.sport_slug, e.title, e.description, e.address, e.cover_id, e.cover_variants,
        e.lat, e.lon, e.starts_at, e.ends_at, e.capacity, e.status, e.going_count, e.waitlist_count,
        e.version, e.created_at, e.updated_at, e.time_zone, e.reminders, e.series_id, e.occurrence_date, e.answer_deadline,
        e.record_last_games, e.record_max_no_shows, e.min_players, e.decide_minutes, e.game_on_at, e.offered_count,
        e.level_min_half, e.level_max_half, e.audience, e.group_id, e.members_only, e.competitive, e.price
        """
    static let from = "events e JOIN users u ON u.id = e.organiser_id"

    /// ``EventAccess``'s rule as a condition on the event row `alias`, for queries
    /// that list rooms and events by the database: an event that is not
    /// members-only, or one of a group `user` belongs to.
    static func visible(_ alias: String, to user: UUID) -> SQLQueryString {
        let (before, after) = visibleParts(alias)
        return "\(unsafeRaw: before)\(bind: user)\(unsafeRaw: after)"
    }

    /// ``EventAccess/seesAttendance(_:)`` as SQL: `viewer` is going to the event `alias`.
    static func seesAttendance(_ alias: String, viewer: UUID) -> SQLQueryString {
        "EXISTS (SELECT 1 FROM attendances sa WHERE sa.event_id = \(unsafeRaw: alias).id AND sa.user_id = \(bind: viewer) AND sa.status = 'going')"
    }

    /// The same condition with the user as an SQL expression (`$2`, `a.user_id`).
    static func visible(_ alias: String, toUserIn expression: String) -> String {
        let (before, after) = visibleParts(alias)
        return before + expression + after
    }

    private static func visibleParts(_ alias: String) -> (String, String) {
        (
            "(\(alias).members_only = FALSE OR EXISTS (SELECT 1 FROM group_members vm WHERE vm.group_id = \(alias).group_id AND vm.user_id = ",
            "))"
        )
    }

    static func decode(_ row: any SQLRow) throws -> Event {
        Event(
            id: try row.value("id"), organiserID: try row.value("organiser_id"), organiserName: try row.value("organiser_name"),
            sport: try row.value("sport_slug"), title: try row.value("title"), description: try row.value("description"),
            address: try row.optional("address"),
            cover: MediaRef(id: try row.optional("cover_id"), stored: try row.optional("cover_variants")),
            location: Coordinate(lat: try row.value("lat"), lon: try row.value("lon")),
            startsAt: try row.value("starts_at"), endsAt: try row.value("ends_at"), capacity: try row.optional("capacity"),
            status: EventStatus(rawValue: try row.value("status")) ?? .cancelled,
            goingCount: try row.value("going_count"), waitlistCount: try row.value("waitlist_count"),
            version: try row.value("version"),
            createdAt: try row.value("created_at"), updatedAt: try row.value("updated_at"),
            timeZone: try row.value("time_zone"), reminders: Self.decodeReminders(try row.value("reminders")),
            seriesID: try row.optional("series_id"), occurrenceDate: try row.optional("occurrence_date"),
            answerDeadline: try row.optional("answer_deadline"),
            recordRule: try Self.decodeRecordRule(row),
            minPlayers: try row.optional("min_players"), decideMinutes: try row.value("decide_minutes"),
            gameOnAt: try row.optional("game_on_at"),
            offeredCount: try row.value("offered_count"),
            levelRange: try Self.decodeLevels(row), audience: Audience(rawValue: try row.value("audience")) ?? .anyone,
            groupID: try row.optional("group_id"), membersOnly: try row.value("members_only"), competitive: try row.value("competitive"),
            price: Price(stored: try row.optional("price"))
        )
    }

    static func decodeLevels(_ row: any SQLRow) throws -> ClosedRange<Level>? {
        guard let low: Int = try row.optional("level_min_half"), let high: Int = try row.optional("level_max_half"), low <= high else {
            return nil
        }
        return Level(halves: low)...Level(halves: high)
    }

    static func decodeRecordRule(_ row: any SQLRow) throws -> RecordRule? {
        guard let last: Int = try row.optional("record_last_games"), let most: Int = try row.optional("record_max_no_shows") else {
            return nil
        }
        return RecordRule(lastGames: last, maxNoShows: most)
    }

    /// `[1440,120]` as stored; anything else (never written) as no reminders.
    static func decodeReminders(_ text: String) -> [Int] {
        (try? JSONDecoder().decode([Int].self, from: Data(text.utf8))) ?? []
    }

    static func encodeReminders(_ minutes: [Int]) -> String {
        "[" + minutes.map(String.init).joined(separator: ",") + "]"
    }

    func insert(_ event: Event, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO events (id, organiser_id, sport_slug, title, description, address, cover_id, cover_variants, lat, lon, starts_at, ends_at,
                                capacity, status, going_count, waitlist_count, waitlist_counter, version, created_at, updated_at, time_zone, reminders,
                                series_id, occurrence_date, answer_deadline, record_last_games, record_max_no_shows,
                                min_players, decide_minutes, level_min_half, level_max_half, audience, group_id, members_only,
                                competitive, price)
            VALUES (\(bind: event.id), \(bind: event.organiserID), \(bind: event.sport), \(bind: event.title), \(bind: event.description),
                    \(bind: event.address), \(bind: event.cover?.id), \(bind: event.cover?.stored), \(bind: event.location.lat), \(bind: event.location.lon),
                    \(bind: event.startsAt), \(bind: event.endsAt), \(bind: event.capacity), 'active', 0, 0, 0, 1,
                    \(bind: event.createdAt), \(bind: event.updatedAt), \(bind: event.timeZone), \(bind: Self.encodeReminders(event.reminders)),
                    \(bind: event.seriesID), \(bind: event.occurrenceDate), \(bind: event.answerDeadline),
                    \(bind: event.recordRule?.lastGames), \(bind: event.recordRule?.maxNoShows), \(bind: event.minPlayers), \(bind: event.decideMinutes),
                    \(bind: event.levelRange?.lowerBound.halves), \(bind: event.levelRange?.upperBound.halves), \(bind: event.audience.rawValue),
                    \(bind: event.groupID), \(bind: event.membersOnly), \(bind: event.competitive), \(bind: event.price?.stored))
            """
        ).run()
        try await sql.raw(
            """
            INSERT INTO attendances (event_id, user_id, status, queue_number, joined_at)
            VALUES (\(bind: event.id), \(bind: event.organiserID), 'going', NULL, \(bind: event.createdAt))
            """
        ).run()
        // The event's chat room has the event's id.
        try await sql.raw(
            """
            INSERT INTO rooms (id, kind, event_id, last_message_seq, last_change_seq, last_activity_at, created_at)
            VALUES (\(bind: event.id), 'event', \(bind: event.id), 0, 0, \(bind: event.createdAt), \(bind: event.createdAt))
            """
        ).run()
    }

    func event(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Event? {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE e.id = \(bind: id)").first().map(
                Self.decode)
        }
    }

    /// Locks the event row for the rest of the transaction (PostgreSQL; SQLite's
    /// single writer is already exclusive) and returns it.
    func lock(_ id: UUID, on sql: any SQLDatabase) async throws -> Event? {
        guard try await sql.raw("SELECT id FROM events WHERE id = \(bind: id) \(ForUpdateClause())").first() != nil else { return nil }
        return try await event(id, on: sql)
    }

    /// Events by id, in one query.
    func events(_ ids: [UUID], on sql: any SQLDatabase) async throws -> [UUID: Event] {
        guard !ids.isEmpty else { return [:] }
        var out: [UUID: Event] = [:]
        for row in try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE e.id IN (\(binds: ids))").all() {
            let event = try Self.decode(row)
            out[event.id] = event
        }
        return out
    }

    struct Changes: Sendable {
        var title: String?
        var description: String?
        var sport: String?
        var address: Patch<String> = .absent
        var cover: Patch<MediaRef> = .absent
        var location: Coordinate?
        var startsAt: Date?
        var endsAt: Date?
        var capacity: Patch<Int> = .absent
        var timeZone: String?
        var reminders: [Int]?
        var answerDeadline: Patch<Date> = .absent
        var recordRule: Patch<RecordRule> = .absent
        var minPlayers: Patch<Int> = .absent
        var decideMinutes: Int?
        var levelRange: Patch<ClosedRange<Level>> = .absent
        var audience: Audience?
        var competitive: Bool?
        var price: Patch<Price> = .absent
    }

    func update(_ id: UUID, _ c: Changes, at now: Date, on sql: any SQLDatabase) async throws {
        var set: [SQLQueryString] = ["updated_at = \(bind: now)", "version = version + 1"]
        if let v = c.title { set.append("title = \(bind: v)") }
        if let v = c.description { set.append("description = \(bind: v)") }
        if let v = c.sport { set.append("sport_slug = \(bind: v)") }
        if case .value(let v) = c.address {
            set.append("address = \(bind: v)")
        } else if case .null = c.address {
            set.append("address = NULL")
        }
        if case .value(let v) = c.cover {
            set.append("cover_id = \(bind: v.id), cover_variants = \(bind: v.stored)")
        } else if case .null = c.cover {
            set.append("cover_id = NULL, cover_variants = NULL")
        }
        if let v = c.location { set.append("lat = \(bind: v.lat), lon = \(bind: v.lon)") }
        if let v = c.startsAt { set.append("starts_at = \(bind: v)") }
        if let v = c.endsAt { set.append("ends_at = \(bind: v)") }
        if c.startsAt != nil || c.endsAt != nil { set.append("timed_at = \(bind: now)") }
        if case .value(let v) = c.capacity {
            set.append("capacity = \(bind: v)")
        } else if case .null = c.capacity {
            set.append("capacity = NULL")
        }
        if let v = c.timeZone { set.append("time_zone = \(bind: v)") }
        if let v = c.reminders { set.append("reminders = \(bind: Self.encodeReminders(v))") }
        if case .value(let v) = c.answerDeadline {
            set.append("answer_deadline = \(bind: v)")
        } else if case .null = c.answerDeadline {
            set.append("answer_deadline = NULL")
        }
        if case .value(let v) = c.recordRule {
            set.append("record_last_games = \(bind: v.lastGames), record_max_no_shows = \(bind: v.maxNoShows)")
        } else if case .null = c.recordRule {
            set.append("record_last_games = NULL, record_max_no_shows = NULL")
        }
        if case .value(let v) = c.minPlayers {
            set.append("min_players = \(bind: v)")
        } else if case .null = c.minPlayers {
            set.append("min_players = NULL")
        }
        if let v = c.decideMinutes { set.append("decide_minutes = \(bind: v)") }
        if case .value(let v) = c.levelRange {
            set.append("level_min_half = \(bind: v.lowerBound.halves), level_max_half = \(bind: v.upperBound.halves)")
        } else if case .null = c.levelRange {
            set.append("level_min_half = NULL, level_max_half = NULL")
        }
        if let v = c.audience { set.append("audience = \(bind: v.rawValue)") }
        if let v = c.competitive { set.append("competitive = \(bind: v)") }
        if case .value(let v) = c.price {
            set.append("price = \(bind: v.stored)")
        } else if case .null = c.price {
            set.append("price = NULL")
        }
        try await sql.raw("UPDATE events SET \(set.joined(separator: ", ")) WHERE id = \(bind: id)").run()
    }

    /// Marks the game on, once: false when it was already.
    func markGameOn(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE events SET game_on_at = \(bind: now), updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id) AND game_on_at IS NULL RETURNING id
            """
        ).first() != nil
    }

    /// The people going, the organiser among them.
    func goingIDs(event: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw("SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND status = 'going'").all().map {
            try $0.value("user_id")
        }
    }

}

import Foundation
import SQLKit

/// Series in SQL: the `series` row, its regulars, the dates skipped and the dates
/// regulars are not coming to. Occurrences are events (``EventStore``) with the
/// series' id and their local date.
struct SeriesStore: Store {
    let database: Database

    static let columns = """
        s.id, s.organiser_id, u.name AS organiser_name, s.group_id, s.title, s.sport_slug, s.description, s.address, s.lat, s.lon, s.capacity,
        s.time_zone, s.reminders, s.start_minutes, s.duration_minutes, s.first_date, s.rule, s.status, s.made_through, s.followed_by, s.version, s.created_at, s.updated_at, s.members_only, s.price
        """
    static let from = "series s JOIN users u ON u.id = s.organiser_id"

    static func decode(_ row: any SQLRow) throws -> Series {
        let first = LocalDate(try row.value("first_date", as: String.self)) ?? LocalDate(Date(timeIntervalSince1970: 0), in: .gmt)
        let rule = try Recurrence(parsing: try row.value("rule", as: String.self), first: first)
        return Series(
            id: try row.value("id"), organiserID: try row.value("organiser_id"), organiserName: try row.value("organiser_name"),
            groupID: try row.optional("group_id"),
            membersOnly: try row.value("members_only"),
            title: try row.value("title"), sport: try row.value("sport_slug"), description: try row.value("description"),
            address: try row.optional("address"),
            location: Coordinate(lat: try row.value("lat"), lon: try row.value("lon")), capacity: try row.optional("capacity"),
            timeZone: try row.value("time_zone"), reminders: EventStore.decodeReminders(try row.value("reminders")),
            startMinutes: try row.value("start_minutes"), durationMinutes: try row.value("duration_minutes"), firstDate: first, rule: rule,
            status: Series.Status(rawValue: try row.value("status")) ?? .ended,
            madeThrough: LocalDate(try row.value("made_through", as: String.self)) ?? first, followedBy: try row.optional("followed_by"),
            price: Price(stored: try row.optional("price")),
            version: try row.value("version"), createdAt: try row.value("created_at"), updatedAt: try row.value("updated_at")
        )
    }

    func insert(_ series: Series, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO series (id, organiser_id, group_id, title, sport_slug, description, address, lat, lon, capacity, time_zone, reminders,
                                start_minutes, duration_minutes, first_date, rule, status, made_through, version, created_at, updated_at, members_only, price)
            VALUES (\(bind: series.id), \(bind: series.organiserID), \(bind: series.groupID), \(bind: series.title), \(bind: series.sport), \(bind: series.description),
                    \(bind: series.address), \(bind: series.location.lat), \(bind: series.location.lon), \(bind: series.capacity), \(bind: series.timeZone),
                    \(bind: EventStore.encodeReminders(series.reminders)), \(bind: series.startMinutes), \(bind: series.durationMinutes),
                    \(bind: series.firstDate.description), \(bind: series.rule.text), 'active', \(bind: series.madeThrough.description), 1,
                    \(bind: series.createdAt), \(bind: series.updatedAt), \(bind: series.membersOnly), \(bind: series.price?.stored))
            """
        ).run()
    }

    func series(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Series? {
        try await reading(on: sql) { sql in
            // A row whose rule no longer reads (never written so) is no series.
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE s.id = \(bind: id)").first().flatMap {
                try? Self.decode($0)
            }
        }
    }

    /// Locks the series row for the rest of the transaction (PostgreSQL; SQLite's
    /// writer is alone already) and returns it: makers of occurrences take turns.
    func lock(_ id: UUID, on sql: any SQLDatabase) async throws -> Series? {
        guard try await sql.raw("SELECT id FROM series WHERE id = \(bind: id) \(ForUpdateClause())").first() != nil else { return nil }
        return try await series(id, on: sql)
    }

    func setMadeThrough(_ id: UUID, _ date: LocalDate, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE series SET made_through = \(bind: date.description), updated_at = \(bind: now) WHERE id = \(bind: id)")
            .run()
    }

    /// Ends the series' rule the day before a split's date and names the series that carries on.
    /// Without a rule (split at its first date) the series ends.
    func split(_ id: UUID, rule: Recurrence?, followedBy next: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        if let rule {
            try await sql.raw(
                """
                UPDATE series SET rule = \(bind: rule.text), followed_by = \(bind: next), updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id)
                """
            ).run()
        } else {
            try await sql.raw(
                """
                UPDATE series SET status = 'ended', followed_by = \(bind: next), updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// The regulars (with their places in line), skips and opt-outs from `date` on,
    /// copied to the series that carries on from it.
    func copyPeople(of id: UUID, to next: UUID, from date: LocalDate, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO series_regulars (series_id, user_id, joined_at) SELECT \(bind: next), user_id, joined_at FROM series_regulars WHERE series_id = \(bind: id)
            """
        ).run()
        try await sql.raw(
            """
            INSERT INTO series_skips (series_id, occurrence_date) SELECT \(bind: next), occurrence_date FROM series_skips
            WHERE series_id = \(bind: id) AND occurrence_date >= \(bind: date.description)
            """
        ).run()
        try await sql.raw(
            """
            INSERT INTO series_opt_outs (series_id, user_id, occurrence_date) SELECT \(bind: next), user_id, occurrence_date FROM series_opt_outs
            WHERE series_id = \(bind: id) AND occurrence_date >= \(bind: date.description)
            """
        ).run()
    }

    /// Moves a made game to the series that carries on.
    func move(occurrence event: UUID, to next: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE events SET series_id = \(bind: next) WHERE id = \(bind: event)").run()
    }

    /// Takes `user` off the regulars of a group's members-only series (they left the group).
    func removeRegular(_ user: UUID, fromMembersOnlySeriesOf group: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            DELETE FROM series_regulars WHERE user_id = \(bind: user)
              AND series_id IN (SELECT id FROM series WHERE group_id = \(bind: group) AND members_only = \(bind: true))
            """
        ).run()
    }

    /// Ends every active series of a group (it was deleted), or only the members-only
    /// ones `organiser` runs (they left it): no more occurrences.
    func endAll(ofGroup group: UUID, membersOnlyOrganisedBy organiser: UUID? = nil, at now: Date, on sql: any SQLDatabase) async throws {
        let theirs: SQLQueryString = organiser.map { "AND organiser_id = \(bind: $0) AND members_only = \(bind: true)" } ?? ""
        try await sql.raw(
            """
            UPDATE series SET status = 'ended', updated_at = \(bind: now), version = version + 1 WHERE group_id = \(bind: group) AND status = 'active' \(theirs)
            """
        ).run()
    }

    /// Ends every active series `organiser` runs (their account is deleted): no more
    /// games are made in the name of someone who is gone.
    func endAll(organisedBy organiser: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE series SET status = 'ended', updated_at = \(bind: now), version = version + 1 WHERE organiser_id = \(bind: organiser) AND status = 'active'
            """
        ).run()
    }

    /// Whether the series' organiser still has an account.
    func organiserIsLive(_ id: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS live FROM \(unsafeRaw: Self.from) WHERE s.id = \(bind: id) AND u.deleted_at IS NULL").first() != nil
    }

    func end(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE series SET status = 'ended', updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id)")
            .run()
    }

    /// The series' events from `date` on (their local dates), by date.
    func occurrences(of id: UUID, from date: LocalDate, on sql: (any SQLDatabase)? = nil) async throws -> [Event] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: EventStore.columns) FROM \(unsafeRaw: EventStore.from)
                WHERE e.series_id = \(bind: id) AND e.occurrence_date >= \(bind: date.description)
                ORDER BY e.occurrence_date
                """
            ).all().map(EventStore.decode)
        }
    }

    func occurrence(of id: UUID, on date: LocalDate, on sql: any SQLDatabase) async throws -> UUID? {
        try await sql.raw("SELECT id FROM events WHERE series_id = \(bind: id) AND occurrence_date = \(bind: date.description)").first()?
            .value("id")
    }

    // MARK: Regulars, skips, opt-outs

    /// `false` when they were a regular already.
    func addRegular(_ user: UUID, to id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO series_regulars (series_id, user_id, joined_at) VALUES (\(bind: id), \(bind: user), \(bind: now))
            ON CONFLICT (series_id, user_id) DO NOTHING RETURNING user_id
            """
        ).first() != nil
    }

    func removeRegular(_ user: UUID, from id: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("DELETE FROM series_regulars WHERE series_id = \(bind: id) AND user_id = \(bind: user) RETURNING user_id").first()
            != nil
    }

    func isRegular(_ user: UUID, of id: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS regular FROM series_regulars WHERE series_id = \(bind: id) AND user_id = \(bind: user)").first()
            != nil
    }

    /// The regulars in the order they joined.
    func regulars(of id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [SeriesRegular] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT r.user_id, u.name, r.joined_at FROM series_regulars r JOIN users u ON u.id = r.user_id
                WHERE r.series_id = \(bind: id) AND u.deleted_at IS NULL ORDER BY r.joined_at, r.user_id
                """
            ).all().map {
                SeriesRegular(
                    user: UserSummary(id: try $0.value("user_id"), name: try $0.value("name")), joinedAt: try $0.value("joined_at"))
            }
        }
    }

    func skip(_ date: LocalDate, of id: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "INSERT INTO series_skips (series_id, occurrence_date) VALUES (\(bind: id), \(bind: date.description)) ON CONFLICT DO NOTHING"
        ).run()
    }

    func skipped(of id: UUID, on sql: any SQLDatabase) async throws -> Set<String> {
        Set(
            try await sql.raw("SELECT occurrence_date FROM series_skips WHERE series_id = \(bind: id)").all().map {
                try $0.value("occurrence_date")
            })
    }

    /// A person is not coming to the series' game on `date` (made or not yet).
    func optOut(_ user: UUID, of id: UUID, on date: String, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO series_opt_outs (series_id, user_id, occurrence_date) VALUES (\(bind: id), \(bind: user), \(bind: date)) ON CONFLICT DO NOTHING
            """
        ).run()
    }

    func optedOut(of id: UUID, on date: LocalDate, on sql: any SQLDatabase) async throws -> Set<UUID> {
        Set(
            try await sql.raw(
                "SELECT user_id FROM series_opt_outs WHERE series_id = \(bind: id) AND occurrence_date = \(bind: date.description)"
            )
            .all().map { try $0.value("user_id") })
    }
}

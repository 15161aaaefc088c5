import Foundation
import SQLKit

/// An event's state and places in SQL: cancelling, its counts, going, waiting, offers and reminders.
extension EventStore {
    func cancel(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE events SET status = 'cancelled', updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id)")
            .run()
    }

    /// Bumps the version after attendance changed the counts.
    func touch(_ id: UUID, at now: Date, goingDelta: Int, waitlistDelta: Int, offeredDelta: Int = 0, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE events SET going_count = going_count + \(bind: goingDelta), waitlist_count = waitlist_count + \(bind: waitlistDelta),
                offered_count = offered_count + \(bind: offeredDelta), updated_at = \(bind: now), version = version + 1
            WHERE id = \(bind: id)
            """
        ).run()
    }

    // MARK: Attendance

    struct Attendance: Sendable {
        var status: AttendanceStatus
        var queueNumber: Int?
        /// A place offered from the waitlist, until then.
        var offerExpiresAt: Date? = nil
    }

    /// Those of `users` going or waitlisted at the event.
    func attending(event: UUID, among users: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !users.isEmpty else { return [] }
        return Set(
            try await sql.raw("SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND user_id IN (\(binds: users))").all().map
            {
                try $0.value("user_id")
            })
    }

    func attendance(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Attendance? {
        guard
            let row = try await sql.raw(
                """
                SELECT status, queue_number, offer_expires_at FROM attendances WHERE event_id = \(bind: event) AND user_id = \(bind: user)
                """
            ).first()
        else { return nil }
        return Attendance(
            status: AttendanceStatus(rawValue: try row.value("status")) ?? .waitlisted, queueNumber: try row.optional("queue_number"),
            offerExpiresAt: try row.optional("offer_expires_at"))
    }

    /// Offers the next `count` places to the first in line without an offer, until
    /// `expiresAt`; returns who was offered one.
    func offer(event: UUID, count: Int, until expiresAt: Date, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        guard count > 0 else { return [] }
        let users: [UUID] = try await sql.raw(
            """
            SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND status = 'waitlisted' AND offer_expires_at IS NULL
            ORDER BY queue_number LIMIT \(bind: count)
            """
        ).all().map { try $0.value("user_id") }
        for user in users {
            try await sql.raw(
                "UPDATE attendances SET offer_expires_at = \(bind: expiresAt) WHERE event_id = \(bind: event) AND user_id = \(bind: user)"
            ).run()
        }
        if !users.isEmpty { try await touch(event, at: now, goingDelta: 0, waitlistDelta: 0, offeredDelta: users.count, on: sql) }
        return users
    }

    /// Withdraws every offer out (their people stay in line where they were).
    func withdrawOffers(event: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        let rows = try await sql.raw(
            """
            UPDATE attendances SET offer_expires_at = NULL WHERE event_id = \(bind: event) AND offer_expires_at IS NOT NULL RETURNING user_id
            """
        ).all()
        if !rows.isEmpty { try await touch(event, at: now, goingDelta: 0, waitlistDelta: 0, offeredDelta: -rows.count, on: sql) }
    }

    /// When the last offer out runs out.
    func lastOfferExpiry(event: UUID, on sql: any SQLDatabase) async throws -> Date? {
        try await sql.raw(
            "SELECT MAX(offer_expires_at) AS last FROM attendances WHERE event_id = \(bind: event) AND offer_expires_at IS NOT NULL"
        ).first()?.optional("last")
    }

    /// The people a place is offered to now.
    func offeredIDs(event: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            """
            SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND status = 'waitlisted' AND offer_expires_at IS NOT NULL ORDER BY queue_number
            """
        ).all().map { try $0.value("user_id") }
    }

    /// Takes an offered place: going. False when there was no offer.
    func acceptOffer(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        guard
            try await sql.raw(
                """
                UPDATE attendances SET status = 'going', queue_number = NULL, offer_expires_at = NULL, joined_at = \(bind: now)
                WHERE event_id = \(bind: event) AND user_id = \(bind: user) AND status = 'waitlisted' AND offer_expires_at IS NOT NULL RETURNING user_id
                """
            ).first() != nil
        else { return false }
        try await touch(event, at: now, goingDelta: 1, waitlistDelta: -1, offeredDelta: -1, on: sql)
        return true
    }

    /// Position on the waitlist (1 is next) of the holder of `queueNumber`.
    func waitlistPosition(event: UUID, queueNumber: Int, on sql: any SQLDatabase) async throws -> Int {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS ahead FROM attendances WHERE event_id = \(bind: event) AND status = 'waitlisted' AND queue_number <= \(bind: queueNumber)
            """
        ).first()
        return try row?.value("ahead", as: Int.self) ?? 1
    }

    func addGoing(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "INSERT INTO attendances (event_id, user_id, status, queue_number, joined_at) VALUES (\(bind: event), \(bind: user), 'going', NULL, \(bind: now))"
        ).run()
        try await touch(event, at: now, goingDelta: 1, waitlistDelta: 0, on: sql)
    }

    /// Puts the user at the end of the waitlist; returns their queue number.
    func addWaitlisted(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Int {
        let row = try await sql.raw(
            "UPDATE events SET waitlist_counter = waitlist_counter + 1 WHERE id = \(bind: event) RETURNING waitlist_counter"
        ).first()
        let number = try row?.value("waitlist_counter", as: Int.self) ?? 1
        try await sql.raw(
            "INSERT INTO attendances (event_id, user_id, status, queue_number, joined_at) VALUES (\(bind: event), \(bind: user), 'waitlisted', \(bind: number), \(bind: now))"
        ).run()
        try await touch(event, at: now, goingDelta: 0, waitlistDelta: 1, on: sql)
        return number
    }

    /// Takes the user off the event (and a place offered to them back).
    func remove(event: UUID, user: UUID, status: AttendanceStatus, at now: Date, on sql: any SQLDatabase) async throws {
        guard
            let row = try await sql.raw(
                "DELETE FROM attendances WHERE event_id = \(bind: event) AND user_id = \(bind: user) RETURNING offer_expires_at"
            ).first()
        else { return }
        let offered = (try row.optional("offer_expires_at", as: Date.self)) != nil
        try await touch(
            event, at: now, goingDelta: status == .going ? -1 : 0, waitlistDelta: status == .waitlisted ? -1 : 0,
            offeredDelta: offered ? -1 : 0, on: sql)
    }

    /// Moves the first `count` waitlisted people to going; returns who moved.
    func promote(event: UUID, count: Int, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        guard count > 0 else { return [] }
        let rows = try await sql.raw(
            """
            SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND status = 'waitlisted' AND offer_expires_at IS NULL
            ORDER BY queue_number LIMIT \(bind: count)
            """
        ).all()
        let users: [UUID] = try rows.map { try $0.value("user_id") }
        for user in users {
            try await sql.raw(
                "UPDATE attendances SET status = 'going', queue_number = NULL, joined_at = \(bind: now) WHERE event_id = \(bind: event) AND user_id = \(bind: user)"
            ).run()
        }
        if !users.isEmpty { try await touch(event, at: now, goingDelta: users.count, waitlistDelta: -users.count, on: sql) }
        return users
    }

    /// Everyone attending (going or waitlisted), organiser included.
    /// The events a user attends or organises, in id order (the order they are locked in).
    func eventIDs(attendedBy user: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            """
            SELECT event_id AS id FROM attendances WHERE user_id = \(bind: user)
            UNION SELECT id FROM events WHERE organiser_id = \(bind: user) AND status = 'active'
            ORDER BY id
            """
        ).all().map { try $0.value("id") }
    }

    /// The people going who want reminders, with the language to write to them in.
    func remindable(event: UUID, on sql: any SQLDatabase) async throws -> [(id: UUID, language: Language)] {
        try await sql.raw(
            """
            SELECT a.user_id, u.language FROM attendances a JOIN users u ON u.id = a.user_id
            WHERE a.event_id = \(bind: event) AND a.status = 'going' AND u.reminders = \(bind: true) AND u.deleted_at IS NULL
            ORDER BY a.user_id
            """
        ).all().map { (try $0.value("user_id"), Language(rawValue: try $0.value("language")) ?? .en) }
    }

    /// When the organiser last reminded everyone.
    func remindedAt(_ id: UUID, on sql: any SQLDatabase) async throws -> Date? {
        try await sql.raw("SELECT reminded_at FROM events WHERE id = \(bind: id)").first()?.optional("reminded_at")
    }

    func markReminded(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE events SET reminded_at = \(bind: now) WHERE id = \(bind: id)").run()
    }

    func attendeeIDs(event: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw("SELECT user_id FROM attendances WHERE event_id = \(bind: event)").all().map { try $0.value("user_id") }
    }

    /// The caller's status at each of `events`.
    func attendances(user: UUID, events: [UUID]? = nil) async throws -> [UUID: AttendanceStatus] {
        try await database.read { sql in
            let filter: SQLQueryString = events.map { "AND event_id IN (\(binds: $0))" } ?? ""
            var out: [UUID: AttendanceStatus] = [:]
            for row in try await sql.raw("SELECT event_id, status FROM attendances WHERE user_id = \(bind: user) \(filter)").all() {
                out[try row.value("event_id")] = AttendanceStatus(rawValue: try row.value("status"))
            }
            return out
        }
    }

    /// A user's statuses at their unfinished events (positions left out: they change
    /// with every leave; lists show the status, the event page the position).
    func statuses(of user: UUID, now: Date) async throws -> [UUID: MyAttendance] {
        try await database.read { sql in
            var out: [UUID: MyAttendance] = [:]
            let rows = try await sql.raw(
                """
                SELECT a.event_id, a.status, e.organiser_id FROM attendances a JOIN events e ON e.id = a.event_id
                WHERE a.user_id = \(bind: user) AND e.ends_at > \(bind: now)
                """
            ).all()
            for row in rows {
                let status = AttendanceStatus(rawValue: try row.value("status")) ?? .waitlisted
                out[try row.value("event_id")] = MyAttendance(
                    status: status, position: nil, isOrganiser: try row.value("organiser_id", as: UUID.self) == user)
            }
            return out
        }
    }
}

import Foundation
import SQLKit

/// The lists of events and attendees, keyset-paged.
extension EventStore {
    /// One of the caller's events, with the caller's place at it.
    struct MyEvent: Sendable {
        var event: Event
        var mine: MyAttendance
    }

    /// A user's events: upcoming (ending after `now`) soonest first, or past latest first.
    func myEvents(user: UUID, organising: Bool, past: Bool, now: Date, cursor: TimeCursor?, limit: Int) async throws -> Page<MyEvent> {
        try await database.read { sql in
            let descending = past
            let period: SQLQueryString = past ? "e.ends_at <= \(bind: now)" : "e.ends_at > \(bind: now)"
            let membership: SQLQueryString = organising ? "AND e.organiser_id = \(bind: user)" : ""
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: EventStore.columns), a.status AS my_status, a.offer_expires_at AS my_offer_expires_at
                FROM \(unsafeRaw: EventStore.from) JOIN attendances a ON a.event_id = e.id AND a.user_id = \(bind: user)
                WHERE \(period) \(membership) AND \(EventStore.visible("e", to: user)) \(Keyset.after(time: "e.starts_at", id: "e.id", after: cursor, descending: descending))
                ORDER BY e.starts_at \(unsafeRaw: descending ? "DESC" : "ASC"), e.id \(unsafeRaw: descending ? "DESC" : "ASC")
                LIMIT \(bind: limit + 1)
                """
            ).all()
            var items: [MyEvent] = []
            for row in rows.prefix(limit) {
                let event = try Self.decode(row)
                let status = AttendanceStatus(rawValue: try row.value("my_status")) ?? .going
                // A place offered from the waitlist shows here too: a "my games" screen is where it is seen.
                items.append(
                    MyEvent(
                        event: event,
                        mine: MyAttendance(
                            status: status, position: nil, isOrganiser: event.organiserID == user,
                            offerExpiresAt: try row.optional("my_offer_expires_at"))))
            }
            let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.event.startsAt, id: $0.event.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    /// The events `user` goes to or organises (not those they wait for) ending after
    /// `since`, cancelled ones included, soonest first.
    func calendar(of user: UUID, since: Date, limit: Int) async throws -> [Event] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: EventStore.columns)
                FROM \(unsafeRaw: EventStore.from) JOIN attendances a ON a.event_id = e.id AND a.user_id = \(bind: user) AND a.status = 'going'
                WHERE e.ends_at > \(bind: since) AND \(EventStore.visible("e", to: user))
                ORDER BY e.starts_at, e.id
                LIMIT \(bind: limit)
                """
            ).all().map(Self.decode)
        }
    }

    struct Attendee: Sendable {
        var id: UUID
        var name: String
        var photo: MediaRef?
        var status: AttendanceStatus
        var position: Int?
        var isOrganiser: Bool
    }

    /// Where an attendee list continues: among those going (by arrival), then
    /// in the waitlist (by queue order).
    struct AttendeeCursor: CursorCodable, Sendable {
        var going: TimeCursor?
        var queueNumber: Int?

        init(going: TimeCursor?, queueNumber: Int?) {
            self.going = going
            self.queueNumber = queueNumber
        }

        init?(cursor: String) {
            guard let f = OpaqueCursor.decode(cursor, count: 2) else { return nil }
            if f[0] == "g", let going = TimeCursor(cursor: f[1]) {
                self.going = going
                queueNumber = nil
            } else if f[0] == "w", let number = Int(f[1]) {
                going = nil
                queueNumber = number
            } else {
                return nil
            }
        }

        var cursor: String {
            queueNumber.map { OpaqueCursor.encode(["w", String($0)]) } ?? OpaqueCursor.encode(["g", going?.cursor ?? ""])
        }
    }

    /// An event's attendees: those going by arrival, then the waitlist in queue order
    /// with each one's position.
    func attendees(of eventID: UUID, cursor: AttendeeCursor?, limit: Int) async throws -> Page<Attendee> {
        try await database.read { sql in
            guard let organiserRow = try await sql.raw("SELECT organiser_id FROM events WHERE id = \(bind: eventID)").first() else {
                throw DomainError.notFound(.event)
            }
            let organiser: UUID = try organiserRow.value("organiser_id")
            var items: [Attendee] = []
            var next: String?
            var goingExhausted = true
            if cursor?.queueNumber == nil {
                let rows = try await sql.raw(
                    """
                    SELECT a.user_id, a.joined_at, u.name, u.photo_id, u.photo_variants FROM attendances a JOIN users u ON u.id = a.user_id
                    WHERE a.event_id = \(bind: eventID) AND a.status = 'going' \(Keyset.after(time: "a.joined_at", id: "a.user_id", after: cursor?.going, descending: false))
                    ORDER BY a.joined_at, a.user_id LIMIT \(bind: limit + 1)
                    """
                ).all()
                for row in rows.prefix(limit) {
                    let id: UUID = try row.value("user_id")
                    items.append(
                        Attendee(
                            id: id, name: try row.value("name"),
                            photo: MediaRef(id: try row.optional("photo_id"), stored: try row.optional("photo_variants")), status: .going,
                            position: nil, isOrganiser: id == organiser))
                }
                if rows.count > limit, let last = rows.prefix(limit).last {
                    next =
                        AttendeeCursor(
                            going: TimeCursor(time: try last.value("joined_at"), id: try last.value("user_id")), queueNumber: nil
                        ).cursor
                    goingExhausted = false
                }
            }
            if goingExhausted && items.count == limit {
                let waiting = try await sql.raw(
                    "SELECT user_id FROM attendances WHERE event_id = \(bind: eventID) AND status = 'waitlisted' LIMIT 1"
                ).first()
                if waiting != nil { next = AttendeeCursor(going: nil, queueNumber: 0).cursor }
            } else if goingExhausted {
                let after = cursor?.queueNumber ?? 0
                let ahead =
                    try await sql.raw(
                        """
                        SELECT COUNT(*) AS n FROM attendances WHERE event_id = \(bind: eventID) AND status = 'waitlisted' AND queue_number <= \(bind: after)
                        """
                    ).first()?.value("n", as: Int.self) ?? 0
                let room = limit - items.count
                let rows = try await sql.raw(
                    """
                    SELECT a.user_id, a.queue_number, u.name, u.photo_id, u.photo_variants FROM attendances a JOIN users u ON u.id = a.user_id
                    WHERE a.event_id = \(bind: eventID) AND a.status = 'waitlisted' AND a.queue_number > \(bind: after)
                    ORDER BY a.queue_number LIMIT \(bind: room + 1)
                    """
                ).all()
                for (i, row) in rows.prefix(room).enumerated() {
                    items.append(
                        Attendee(
                            id: try row.value("user_id"), name: try row.value("name"),
                            photo: MediaRef(id: try row.optional("photo_id"), stored: try row.optional("photo_variants")),
                            status: .waitlisted, position: ahead + i + 1, isOrganiser: false))
                }
                if rows.count > room, let last = rows.prefix(room).last {
                    next = AttendeeCursor(going: nil, queueNumber: try last.value("queue_number")).cursor
                }
            }
            return Page(items: items, nextCursor: next)
        }
    }

    /// The user's upcoming events another may see: those the user organises, and
    /// those the user goes to where `viewer` has a place too; soonest first.
    func upcoming(of user: UUID, sharedWith viewer: UUID, now: Date, limit: Int, on sql: any SQLDatabase) async throws -> [Event] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
            WHERE e.status = 'active' AND e.ends_at > \(bind: now) AND (
                e.organiser_id = \(bind: user)
                OR (EXISTS (SELECT 1 FROM attendances a WHERE a.event_id = e.id AND a.user_id = \(bind: user) AND a.status = 'going')
                    AND \(Self.seesAttendance("e", viewer: viewer))))
              AND \(Self.visible("e", to: viewer))
            ORDER BY e.starts_at, e.id LIMIT \(bind: limit)
            """
        ).all().map(Self.decode)
    }

    /// A group's unfinished active events, by id (the order their locks are taken
    /// in): all of them, or with `member`, the members-only ones that person
    /// organises, attends, waits for or said maybe to.
    func unfinishedEvents(ofGroup group: UUID, involving member: UUID? = nil, now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        let involving: SQLQueryString =
            member.map { user in
                """
                AND e.members_only = \(bind: true) AND (e.organiser_id = \(bind: user)
                    OR EXISTS (SELECT 1 FROM attendances a WHERE a.event_id = e.id AND a.user_id = \(bind: user))
                    OR EXISTS (SELECT 1 FROM event_maybes m WHERE m.event_id = e.id AND m.user_id = \(bind: user)))
                """
            } ?? ""
        return try await sql.raw(
            """
            SELECT e.id FROM events e WHERE e.group_id = \(bind: group) AND e.status = 'active' AND e.ends_at > \(bind: now) \(involving) ORDER BY e.id
            """
        ).all().map { try $0.value("id") }
    }

    /// A group's unfinished events `viewer` may see, soonest first.
    func groupEvents(of group: UUID, viewer: UUID, now: Date, cursor: TimeCursor?, limit: Int) async throws -> Page<Event> {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE e.group_id = \(bind: group) AND e.status = 'active' AND e.ends_at > \(bind: now) AND \(Self.visible("e", to: viewer))
                  \(Keyset.after(time: "e.starts_at", id: "e.id", after: cursor, descending: false))
                ORDER BY e.starts_at, e.id LIMIT \(bind: limit + 1)
                """
            ).all().map(Self.decode)
            let items = Array(rows.prefix(limit))
            let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.startsAt, id: $0.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    /// Deletes `user`'s pending invitations to a group's members-only games.
    func dropPendingInvitations(of user: UUID, toMembersOnlyGamesOf group: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            DELETE FROM invitations WHERE invitee_id = \(bind: user) AND status = 'pending'
              AND event_id IN (SELECT id FROM events WHERE group_id = \(bind: group) AND members_only = \(bind: true))
            """
        ).run()
    }

    /// Of these events, the members-only ones, each with its group (none for a row that names none).
    func membersOnlyGroups(of ids: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: UUID?] {
        guard !ids.isEmpty else { return [:] }
        var out: [UUID: UUID?] = [:]
        for row in try await sql.raw("SELECT id, group_id FROM events WHERE id IN (\(binds: Array(ids))) AND members_only = \(bind: true)")
            .all()
        {
            out[try row.value("id")] = .some(try row.optional("group_id"))
        }
        return out
    }
}

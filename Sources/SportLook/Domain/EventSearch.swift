import Foundation
import GeoGrid
import SQLKit

/// Finding events: nearby and in a map box from the in-memory index, the
/// caller's events and an event's attendees from the database.
struct EventSearch: Sendable {
    let database: Database
    let index: EventIndex
    let attendance: AttendanceCache
    let sports: SportCatalog
    let clock: any AppClock
    /// Where a page's event details come from: the in-memory cards (default), or
    /// the database in one query per page (`NEARBY_CARDS=database`, kept to measure
    /// the difference; see BENCHMARKS.md).
    var cardsFromDatabase = false

    /// Each id's event JSON in the order asked, none for an event no longer live:
    /// from the in-memory cards, reading the few not cached yet in one query; or,
    /// with `cardsFromDatabase`, all from the database.
    private func liveCards(_ ids: [UUID], now: Date) async throws -> EventIndex.Cards {
        var cards: EventIndex.Cards
        if cardsFromDatabase {
            cards = EventIndex.Cards(ranges: Array(repeating: nil, count: ids.count), unloaded: Array(ids.indices))
        } else {
            cards = index.cards(ids, now: now)
        }
        let missing = cards.unloaded
        guard !missing.isEmpty else { return cards }
        let wanted = missing.map { ids[$0] }
        let events = try await database.read { sql in try await EventStore(database: database).events(wanted, on: sql) }
        var read: [(Event, [UInt8]?)] = []
        for i in missing {
            guard let event = events[ids[i]] else { continue }
            let json = event.isOpen(at: now) ? EventJSON.body(event, sports: sports) : nil
            if let json { cards.fill(i, with: json) }
            read.append((event, json))
        }
        if !cardsFromDatabase { index.remember(read, now: now) }
        return cards
    }

    struct Filters: Sendable, Hashable {
        var sport: String?
        var startsAfter: Date?
        var startsBefore: Date?

        func geoFilter(_ sports: SportCatalog) -> GeoFilter {
            GeoFilter(
                anyOf: sport.map { sports.mask(of: [$0]) },
                timeFrom: startsAfter.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? .min,
                timeTo: startsBefore.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? .max
            )
        }

        var fingerprint: String { "\(sport ?? "")|\(startsAfter?.timeIntervalSince1970 ?? 0)|\(startsBefore?.timeIntervalSince1970 ?? 0)" }
    }

    /// A position in a distance-ordered list, tied to the query it came from.
    struct DistanceCursor: CursorCodable, Sendable {
        var position: GeoCursor
        var query: UInt32

        init(position: GeoCursor, query: UInt32) {
            self.position = position
            self.query = query
        }

        init?(cursor: String) {
            guard let f = OpaqueCursor.decode(cursor, count: 3), let bits = UInt64(f[0], radix: 16), let id = UUID(uuidString: f[1]),
                  let query = UInt32(f[2], radix: 16)
            else { return nil }
            let distance = Double(bitPattern: bits)
            guard distance.isFinite, distance >= 0 else { return nil }
            self.position = GeoCursor(distance: distance, key: id.geoKey)
            self.query = query
        }

        var cursor: String {
            OpaqueCursor.encode([String(position.distance.bitPattern, radix: 16), UUID(geoKey: position.key).lowercased, String(query, radix: 16)])
        }
    }

    /// FNV-1a of a query's parameters: a cursor only continues the query that made it.
    static func fingerprint(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    enum Area: Sendable {
        case radius(center: GeoPoint, metres: Double)
        case box(GeoBox)

        var fingerprint: String {
            switch self {
            case .radius(let c, let m): "r|\(c.latitudeE7)|\(c.longitudeE7)|\(m)"
            case .box(let b): "b|\(b.minLatitude)|\(b.minLongitude)|\(b.maxLatitude)|\(b.maxLongitude)"
            }
        }
    }

    /// A page of live events in `area`, nearest first, as JSON bytes.
    func page(in area: Area, filters: Filters, limit: Int, cursor: DistanceCursor?, for user: UUID) async throws -> [UInt8] {
        guard index.isWarm else {
            throw APIError.warmingUp
        }
        let queryID = Self.fingerprint(area.fingerprint + "|" + filters.fingerprint)
        if let cursor, cursor.query != queryID {
            throw APIError.invalidParameter("cursor", "belongs to another query")
        }
        let now = clock.now()
        let filter = filters.geoFilter(sports)
        var after = cursor?.position
        var page: [(hit: GeoHit, card: ArraySlice<UInt8>)] = []
        var more = false
        while true {
            let need = limit - page.count
            let hits: [GeoHit]
            switch area {
            case .radius(let center, let metres): hits = index.grid.search(within: metres, of: center, filter: filter, after: after, limit: need + 1)
            case .box(let box): hits = index.grid.search(in: box, filter: filter, after: after, limit: need + 1)
            }
            let cards = try await liveCards(hits.prefix(need).map { UUID(geoKey: $0.entry.key) }, now: now)
            for (hit, range) in zip(hits.prefix(need), cards.ranges) {
                after = hit.cursor
                if let range { page.append((hit, cards.bytes[range])) }
            }
            if hits.count <= need { break }
            if page.count == limit { more = true; break }
        }
        let mine = page.isEmpty ? [:] : try await attendance.statuses(of: user, now: now)
        var json = JSONWriter(capacity: page.reduce(64) { $0 + $1.card.count + 64 })
        json.objectStart()
        json.key("items")
        json.arrayStart()
        for (hit, card) in page {
            json.raw(card)
            EventJSON.writeTail(mine[UUID(geoKey: hit.entry.key)], distance: hit.distance, to: &json)
        }
        json.arrayEnd()
        json.field("next_cursor", more ? after.map { DistanceCursor(position: $0, query: queryID).cursor } : nil)
        json.objectEnd()
        return json.bytes
    }

    // MARK: Lists from the database

    /// `(time, id)` strictly after a cursor in the given direction. Instants are
    /// whole milliseconds, so half a millisecond tells equal from different on
    /// either engine, whatever rounding the driver applied.
    static func keyset(time column: String, id idColumn: String, after cursor: TimeCursor?, descending: Bool) -> SQLQueryString {
        guard let cursor else { return "" }
        let low = cursor.time.addingTimeInterval(-0.0005), high = cursor.time.addingTimeInterval(0.0005)
        if descending {
            return "AND (\(unsafeRaw: column) < \(bind: low) OR (\(unsafeRaw: column) <= \(bind: high) AND \(unsafeRaw: column) >= \(bind: low) AND \(unsafeRaw: idColumn) < \(bind: cursor.id)))"
        }
        return "AND (\(unsafeRaw: column) > \(bind: high) OR (\(unsafeRaw: column) <= \(bind: high) AND \(unsafeRaw: column) >= \(bind: low) AND \(unsafeRaw: idColumn) > \(bind: cursor.id)))"
    }

    enum Role: String, Sendable { case attending, organising }
    enum When: String, Sendable { case upcoming, past }

    /// The caller's events: upcoming soonest first, past latest first.
    func myEvents(user: UUID, role: Role, when: When, cursor: TimeCursor?, limit: Int) async throws -> Page<EventRepresentation> {
        let now = clock.now()
        let sports = self.sports
        return try await database.read { sql in
            let descending = when == .past
            let period: SQLQueryString = when == .upcoming ? "e.ends_at > \(bind: now)" : "e.ends_at <= \(bind: now)"
            let membership: SQLQueryString = role == .organising ? "AND e.organiser_id = \(bind: user)" : ""
            let rows = try await sql.raw("""
                SELECT \(unsafeRaw: EventStore.columns), a.status AS my_status
                FROM \(unsafeRaw: EventStore.from) JOIN attendances a ON a.event_id = e.id AND a.user_id = \(bind: user)
                WHERE \(period) \(membership) \(Self.keyset(time: "e.starts_at", id: "e.id", after: cursor, descending: descending))
                ORDER BY e.starts_at \(unsafeRaw: descending ? "DESC" : "ASC"), e.id \(unsafeRaw: descending ? "DESC" : "ASC")
                LIMIT \(bind: limit + 1)
                """).all()
            var items: [EventRepresentation] = []
            for row in rows.prefix(limit) {
                let event = try EventStore.decode(row)
                let status = AttendanceStatus(rawValue: try row.value("my_status")) ?? .going
                items.append(EventRepresentation(event: event, sport: sports[event.sport], mine: MyAttendance(status: status, position: nil, isOrganiser: event.organiserID == user)))
            }
            let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.event.startsAt, id: $0.event.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    struct Attendee: JSONEncodable {
        var id: UUID
        var name: String
        var imageURL: String?
        var status: AttendanceStatus
        var position: Int?
        var isOrganiser: Bool

        func encode(to json: inout JSONWriter) {
            json.objectStart()
            json.field("id", id)
            json.field("name", name)
            json.field("image_url", imageURL)
            json.field("status", status.rawValue)
            json.field("position", position)
            json.field("is_organiser", isOrganiser)
            json.objectEnd()
        }
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
            if f[0] == "g", let going = TimeCursor(cursor: f[1]) { self.going = going; queueNumber = nil }
            else if f[0] == "w", let number = Int(f[1]) { going = nil; queueNumber = number }
            else { return nil }
        }

        var cursor: String { queueNumber.map { OpaqueCursor.encode(["w", String($0)]) } ?? OpaqueCursor.encode(["g", going?.cursor ?? ""]) }
    }

    func attendees(of eventID: UUID, excluding hidden: Set<UUID> = [], cursor: AttendeeCursor?, limit: Int) async throws -> Page<Attendee> {
        try await database.read { sql in
            guard let organiserRow = try await sql.raw("SELECT organiser_id FROM events WHERE id = \(bind: eventID)").first() else { throw APIError.notFound("event") }
            let organiser: UUID = try organiserRow.value("organiser_id")
            var items: [Attendee] = []
            var next: String?
            var goingExhausted = true
            if cursor?.queueNumber == nil {
                let rows = try await sql.raw("""
                    SELECT a.user_id, a.joined_at, u.name, u.image_url FROM attendances a JOIN users u ON u.id = a.user_id
                    WHERE a.event_id = \(bind: eventID) AND a.status = 'going' \(Self.keyset(time: "a.joined_at", id: "a.user_id", after: cursor?.going, descending: false))
                    ORDER BY a.joined_at, a.user_id LIMIT \(bind: limit + 1)
                    """).all()
                for row in rows.prefix(limit) {
                    let id: UUID = try row.value("user_id")
                    items.append(Attendee(id: id, name: try row.value("name"), imageURL: try row.optional("image_url"), status: .going, position: nil, isOrganiser: id == organiser))
                }
                if rows.count > limit, let last = rows.prefix(limit).last {
                    next = AttendeeCursor(going: TimeCursor(time: try last.value("joined_at"), id: try last.value("user_id")), queueNumber: nil).cursor
                    goingExhausted = false
                }
            }
            if goingExhausted && items.count == limit {
                let waiting = try await sql.raw("SELECT user_id FROM attendances WHERE event_id = \(bind: eventID) AND status = 'waitlisted' LIMIT 1").first()
                if waiting != nil { next = AttendeeCursor(going: nil, queueNumber: 0).cursor }
            } else if goingExhausted {
                let after = cursor?.queueNumber ?? 0
                let ahead = try await sql.raw("""
                    SELECT COUNT(*) AS n FROM attendances WHERE event_id = \(bind: eventID) AND status = 'waitlisted' AND queue_number <= \(bind: after)
                    """).first()?.value("n", as: Int.self) ?? 0
                let room = limit - items.count
                let rows = try await sql.raw("""
                    SELECT a.user_id, a.queue_number, u.name, u.image_url FROM attendances a JOIN users u ON u.id = a.user_id
                    WHERE a.event_id = \(bind: eventID) AND a.status = 'waitlisted' AND a.queue_number > \(bind: after)
                    ORDER BY a.queue_number LIMIT \(bind: room + 1)
                    """).all()
                for (i, row) in rows.prefix(room).enumerated() {
                    items.append(Attendee(id: try row.value("user_id"), name: try row.value("name"), imageURL: try row.optional("image_url"),
                                          status: .waitlisted, position: ahead + i + 1, isOrganiser: false))
                }
                if rows.count > room, let last = rows.prefix(room).last {
                    next = AttendeeCursor(going: nil, queueNumber: try last.value("queue_number")).cursor
                }
            }
            return Page(items: items.filter { !hidden.contains($0.id) }, nextCursor: next)
        }
    }
}

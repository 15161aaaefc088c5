import Foundation
import GeoGrid

/// Finding events: nearby and in a map box from the in-memory index, the
/// caller's events and an event's attendees from the database.
struct EventSearch: Sendable {
    let database: Database
    let store: EventStore
    let index: EventIndex
    let attendance: AttendanceCache
    /// Who may see which event: members-only events are found by their group's members alone.
    let access: EventAccess
    let groups: GroupStore
    let blocks: Blocks
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
        let events = try await database.read { [store] sql in try await store.events(wanted, on: sql) }
        var read: [(Event, [UInt8]?)] = []
        for i in missing {
            guard let event = events[ids[i]] else { continue }
            let json = event.isOpen(at: now) ? index.encodeCard(event) : nil
            if let json { cards.fill(i, with: json) }
            read.append((event, json))
        }
        if !cardsFromDatabase { index.remember(read, now: now) }
        return cards
    }

    /// What a search asks of the events besides where they are. Every filter is
    /// answered by the index while it walks its cells, so a page is full whenever
    /// enough events match.
    struct Filters: Sendable, Hashable {
        var sport: String?
        var startsAfter: Date?
        var startsBefore: Date?
        /// Games open to a player of this level: their range holds it, or they name none.
        var level: Level?
        /// Games for one of these audiences; empty for any.
        var audiences: Set<Audience> = []
        /// Only games with a place free now (no capacity, or a place neither taken nor offered).
        var freePlaces = false

        func geoFilter(_ sports: SportCatalog) -> GeoFilter {
            GeoFilter(
                anyOf: sport.map { sports.mask(of: [$0]) },
                timeFrom: startsAfter.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? .min,
                timeTo: startsBefore.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? .max,
                traitGroups: SIMD4(
                    level.map(GameTraits.level) ?? 0,
                    audiences.reduce(0) { $0 | GameTraits.audience($1) },
                    freePlaces ? GameTraits.freePlaces : 0,
                    0
                )
            )
        }

        func fingerprint(into query: inout QueryFingerprint) {
            query.add(text: sport)
            query.add(double: startsAfter?.timeIntervalSince1970)
            query.add(double: startsBefore?.timeIntervalSince1970)
            query.add(level.map { Int64($0.halves) } ?? -1)
            query.add(Audience.allCases.reduce(Int64(0)) { $0 << 1 | (audiences.contains($1) ? 1 : 0) })
            query.add(freePlaces ? 1 : 0)
        }
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
            guard let f = OpaqueCursor.decode(cursor, count: 3), let bits = UInt64(f[0], radix: 16), let id = UUID(text: f[1]),
                let query = UInt32(f[2], radix: 16)
            else { return nil }
            let distance = Double(bitPattern: bits)
            guard distance.isFinite, distance >= 0 else { return nil }
            self.position = GeoCursor(distance: distance, key: id.geoKey)
            self.query = query
        }

        var cursor: String {
            OpaqueCursor.encode([
                String(position.distance.bitPattern, radix: 16), UUID(geoKey: position.key).lowercased, String(query, radix: 16),
            ])
        }
    }

    enum Area: Sendable {
        case radius(center: GeoPoint, metres: Double)
        case box(GeoBox)

        func fingerprint(into query: inout QueryFingerprint) {
            switch self {
            case .radius(let c, let m):
                query.add(1)
                query.add(Int64(c.latitudeE7))
                query.add(Int64(c.longitudeE7))
                query.add(double: m)
            case .box(let b):
                query.add(2)
                query.add(double: b.minLatitude)
                query.add(double: b.minLongitude)
                query.add(double: b.maxLatitude)
                query.add(double: b.maxLongitude)
            }
        }
    }

    /// A page of live events nearest first: each one's card (the bytes the index
    /// holds for it, at its range of `cards`), the caller's place at it and its distance.
    struct NearbyPage: Sendable {
        struct Item: Sendable {
            var card: Range<Int>
            var mine: MyAttendance?
            var distance: Double
        }
        /// The items' cards, one after another, as the index copied them out (a range
        /// each rather than a slice each: 50 slices were 100 reference counts a page).
        var cards: [UInt8]
        var items: [Item]
        var nextCursor: String?
    }

    /// A page of live events in `area`, nearest first.
    func page(in area: Area, filters: Filters, limit: Int, cursor: DistanceCursor?, for user: UUID) async throws -> NearbyPage {
        guard index.isWarm else {
            throw DomainError.warmingUp
        }
        var query = QueryFingerprint()
        area.fingerprint(into: &query)
        filters.fingerprint(into: &query)
        let queryID = query.value
        if let cursor, cursor.query != queryID {
            throw DomainError.invalidParameter("cursor", Sentence("belongs to another query"))
        }
        let now = clock.now()
        var filter = filters.geoFilter(sports)
        // Members-only events of the caller's groups are found; other groups' are
        // passed over inside the walk, so pages stay full.
        filter.scopes = try await access.scopes(for: user)
        var after = cursor?.position
        var page: [(hit: GeoHit, card: Range<Int>)] = []
        page.reserveCapacity(min(limit, 128))
        var bytes: [UInt8] = []
        var more = false
        while true {
            let need = limit - page.count
            let hits: [GeoHit]
            switch area {
            case .radius(let center, let metres):
                hits = index.grid.search(within: metres, of: center, filter: filter, after: after, limit: need + 1)
            case .box(let box): hits = index.grid.search(in: box, filter: filter, after: after, limit: need + 1)
            }
            let cards = try await liveCards(hits.prefix(need).map { UUID(geoKey: $0.entry.key) }, now: now)
            // The first walk's bytes are taken as they are; a further walk's follow them.
            let offset = bytes.count
            if bytes.isEmpty { bytes = cards.bytes } else { bytes.append(contentsOf: cards.bytes) }
            for (hit, range) in zip(hits.prefix(need), cards.ranges) {
                after = hit.cursor
                if let range { page.append((hit, (range.lowerBound + offset)..<(range.upperBound + offset))) }
            }
            if hits.count <= need { break }
            if page.count == limit {
                more = true
                break
            }
        }
        let mine = page.isEmpty ? [:] : try await attendance.value(of: user, now: now)
        return NearbyPage(
            cards: bytes,
            // Most callers hold no place in any event nearby: no id is made and hashed for them.
            items: page.map {
                NearbyPage.Item(card: $0.card, mine: mine.isEmpty ? nil : mine[UUID(geoKey: $0.hit.entry.key)], distance: $0.hit.distance)
            },
            nextCursor: more ? after.map { DistanceCursor(position: $0, query: queryID).cursor } : nil
        )
    }

    // MARK: Lists from the database

    enum Role: String, Sendable { case attending, organising }
    enum When: String, Sendable { case upcoming, past }

    typealias MyEvent = EventStore.MyEvent
    typealias Attendee = EventStore.Attendee
    typealias AttendeeCursor = EventStore.AttendeeCursor

    /// The caller's events: upcoming soonest first, past latest first.
    func myEvents(user: UUID, role: Role, when: When, cursor: TimeCursor?, limit: Int) async throws -> Page<MyEvent> {
        // (A members-only event of a group the caller left is not theirs to see: the query asks EventAccess's rule.)
        try await store.myEvents(
            user: user, organising: role == .organising, past: when == .past, now: clock.now(), cursor: cursor, limit: limit)
    }

    /// A group's coming games the caller may see (members-only ones to members),
    /// soonest first, each with the caller's place. 404 for no live group.
    func groupEvents(of group: UUID, for user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<(Event, MyAttendance?)> {
        guard let found = try await groups.group(group), !found.isDeleted else { throw DomainError.notFound(.group) }
        let now = clock.now()
        let page = try await store.groupEvents(of: group, viewer: user, now: now, cursor: cursor, limit: limit)
        let mine = page.items.isEmpty ? [:] : try await attendance.value(of: user, now: now)
        return page.map { ($0, mine[$0.id]) }
    }

    static let attendeesPrivate = Sentence(
        "Only the event's organiser and the people going see who they are; the event shows how many.")

    /// An event's attendees: those going by arrival, then the waitlist in order.
    /// Only the people going (the organiser among them) see who they are: to anyone
    /// else — a place on the waitlist, which anyone can take on a full event, included —
    /// where people will be is private, and the event shows the counts.
    func attendees(of eventID: UUID, for viewer: UUID, cursor: AttendeeCursor?, limit: Int) async throws -> Page<Attendee> {
        if !EventAccess.seesAttendance(try await store.attendances(user: viewer, events: [eventID])[eventID]) {
            guard try await store.event(eventID) != nil else { throw DomainError.notFound(.event) }
            throw DomainError.forbidden("attendees_private", Self.attendeesPrivate)
        }
        // People blocked either way between the viewer and an attendee do not see each other.
        let hidden = try await blocks.eitherWay(viewer)
        let page = try await store.attendees(of: eventID, cursor: cursor, limit: limit)
        return Page(items: page.items.filter { !hidden.contains($0.id) }, nextCursor: page.nextCursor)
    }
}

/// FNV-1a over a query's parameters, their bits rather than their text: a cursor
/// carries it and continues only the query that made it.
struct QueryFingerprint {
    private(set) var value: UInt32 = 2_166_136_261

    private mutating func add(bytes: UnsafeRawBufferPointer) {
        for byte in bytes { value = (value ^ UInt32(byte)) &* 16_777_619 }
    }

    mutating func add(_ number: Int64) { withUnsafeBytes(of: number.littleEndian) { add(bytes: $0) } }

    /// A number (its bits), or none (told apart from every number).
    mutating func add(double number: Double?) {
        add(number == nil ? 0 : 1)
        if let number { add(Int64(bitPattern: number.bitPattern)) }
    }

    /// Text, its length first (so that fields cannot run into each other), or none.
    mutating func add(text: String?) {
        guard var text else { return add(-1) }
        add(Int64(text.utf8.count))
        text.withUTF8 { add(bytes: UnsafeRawBufferPointer($0)) }
    }
}

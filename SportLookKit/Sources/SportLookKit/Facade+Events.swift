import Foundation
import SportLookAPI

extension SportLookClient {
    /// Games: find them near a place, make one, join, leave.
    public var events: Events { Events(client: self) }

    /// Games: find them near a place, make one, join, leave.
    public struct Events: Sendable {
        let client: SportLookClient

        /// Which games a search keeps.
        public struct Filter: Hashable, Sendable {
            /// Only this sport (a slug of `GET /v1/sports`).
            public var sport: String?
            public var startsAfter: Date?
            public var startsBefore: Date?
            /// Games open to a player of this level.
            public var level: Double?
            public var audiences: Set<Audience>
            /// Only games with a place free now.
            public var freePlacesOnly: Bool

            public init(
                sport: String? = nil, startsAfter: Date? = nil, startsBefore: Date? = nil, level: Double? = nil,
                audiences: Set<Audience> = [], freePlacesOnly: Bool = false
            ) {
                self.sport = sport
                self.startsAfter = startsAfter
                self.startsBefore = startsBefore
                self.level = level
                self.audiences = audiences
                self.freePlacesOnly = freePlacesOnly
            }
        }

        /// Games within `kilometres` of `place`, nearest first, page by page (each page is
        /// fetched as the sequence is read; `pageSize` games each).
        public func nearby(around place: Place, within kilometres: Double = 10, filter: Filter = .init(), pageSize: Int = 50)
            -> Pages<Event>
        {
            let audiences =
                filter.audiences.isEmpty
                ? nil
                : filter.audiences.sorted { $0.rawValue < $1.rawValue }.compactMap {
                    Components.Parameters.GameAudiencePayload(rawValue: $0.rawValue)
                }
            return Pages { cursor in
                let sport = try filter.sport.map(Self.slug)
                let page = try await client.call {
                    try await $0.eventsNearby(
                        query: .init(
                            lat: place.latitude, lon: place.longitude, radiusKm: kilometres, sport: sport,
                            startsAfter: filter.startsAfter, startsBefore: filter.startsBefore, level: filter.level, audience: audiences,
                            freePlaces: filter.freePlacesOnly ? true : nil, limit: pageSize, cursor: cursor)
                    ).ok.body.json
                }
                return (try page.items.map(Event.init), page.nextCursor)
            }
        }

        /// One game.
        public func get(_ id: Event.ID) async throws -> Event {
            try Event(try await client.call { try await $0.getEvent(path: .init(id: id.description)).ok.body.json })
        }

        /// Makes a game; the organiser is going.
        public func create(_ draft: Draft) async throws -> Event {
            let sport = try Self.slug(draft.sport)
            var price: Components.Schemas.NewEvent.PricePayload?
            if let money = draft.price {
                guard let currency = Components.Schemas.PriceInput.CurrencyPayload(rawValue: money.currency) else {
                    throw SportLookError(
                        status: 0, code: "unknown_currency", message: "\(money.currency) is not a currency the server takes",
                        fields: ["price": "is not a known currency"], retryAfter: nil)
                }
                price = .init(value1: .init(amount: money.minorUnits, currency: currency, split: draft.splitPrice))
            }
            return try Event(
                try await client.call {
                    try await $0.createEvent(
                        body: .json(
                            .init(
                                title: draft.title, sport: sport, startsAt: draft.startsAt, endsAt: draft.endsAt,
                                location: .init(lat: draft.place.latitude, lon: draft.place.longitude), address: draft.address,
                                description: draft.description, capacity: draft.capacity,
                                level: draft.level.map { .init(value1: .init(min: $0.min, max: $0.max)) },
                                audience: draft.audience.flatMap { .init(rawValue: $0.rawValue) }, competitive: draft.competitive,
                                price: price
                            ))
                    ).created.body.json
                })
        }

        /// What a new game is.
        public struct Draft: Hashable, Sendable {
            public var title: String
            /// A slug of `GET /v1/sports`.
            public var sport: String
            public var startsAt: Date
            /// Default: two hours after the start.
            public var endsAt: Date?
            public var place: Place
            public var address: String?
            public var description: String?
            public var capacity: Int?
            public var level: LevelRange?
            public var audience: Audience?
            public var competitive: Bool?
            /// Each player's price (`splitPrice`: the whole game's cost, shared by everyone going).
            public var price: Money?
            public var splitPrice: Bool

            public init(
                title: String, sport: String, startsAt: Date, endsAt: Date? = nil, place: Place, address: String? = nil,
                description: String? = nil, capacity: Int? = nil, level: LevelRange? = nil, audience: Audience? = nil,
                competitive: Bool? = nil, price: Money? = nil, splitPrice: Bool = false
            ) {
                self.title = title
                self.sport = sport
                self.startsAt = startsAt
                self.endsAt = endsAt
                self.place = place
                self.address = address
                self.description = description
                self.capacity = capacity
                self.level = level
                self.audience = audience
                self.competitive = competitive
                self.price = price
                self.splitPrice = splitPrice
            }
        }

        /// Takes a place, or a place on the waitlist when the game is full: where the
        /// signed-in person stands now, and their waitlist position.
        @discardableResult
        public func join(_ id: Event.ID) async throws -> (attendance: Attendance, waitlistPosition: Int?) {
            let joined = try await client.call { try await $0.joinEvent(path: .init(id: id.description)).ok.body.json }
            return (Attendance(rawValue: joined.status.rawValue) ?? .going, joined.position)
        }

        /// Answers maybe (no place taken).
        public func answerMaybe(_ id: Event.ID) async throws {
            _ = try await client.call { try await $0.answerMaybe(path: .init(id: id.description)).ok }
        }

        /// Gives up the place (or the waitlist's, or a maybe).
        public func leave(_ id: Event.ID) async throws {
            _ = try await client.call { try await $0.leaveEvent(path: .init(id: id.description)).noContent }
        }

        /// Cancels a game the signed-in person organises; the people going are told.
        public func cancel(_ id: Event.ID) async throws {
            _ = try await client.call { try await $0.cancelEvent(path: .init(id: id.description)).noContent }
        }

        /// The signed-in person's games, page by page.
        public func mine(organising: Bool = false, past: Bool = false) -> Pages<Event> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.myEvents(
                        query: .init(
                            role: organising ? .organising : .attending, when: past ? .past : .upcoming, limit: 100, cursor: cursor)
                    ).ok.body.json
                }
                return (try page.items.map(Event.init), page.nextCursor)
            }
        }

        static func slug(_ text: String) throws -> Components.Schemas.SportSlug {
            guard let slug = Components.Schemas.SportSlug(rawValue: text) else { throw SportLookError.unknownSport(text) }
            return slug
        }
    }
}

extension SportLookError {
    static func unknownSport(_ slug: String) -> SportLookError {
        SportLookError(
            status: 0, code: "unknown_sport", message: "\(slug) is not a sport of this version's list (GET /v1/sports)",
            fields: ["sport": "is not a known sport"], retryAfter: nil)
    }
}

/// A list read page by page as it is iterated: each element is a page of plain models
/// (an app shows one page, then asks for the next); ``all()`` reads them all.
public struct Pages<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Item]
    let fetch: @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)

    init(fetch: @escaping @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)) { self.fetch = fetch }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let fetch: @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)
        var cursor: String?
        var done = false

        public mutating func next() async throws -> [Item]? {
            guard !done else { return nil }
            let page = try await fetch(cursor)
            cursor = page.next
            done = page.next == nil
            return page.items
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(fetch: fetch) }

    /// Every item of every page.
    public func all() async throws -> [Item] {
        var items: [Item] = []
        for try await page in self { items += page }
        return items
    }
}

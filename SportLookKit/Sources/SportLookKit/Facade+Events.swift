import Foundation
internal import SportLookAPI

extension SportLookClient {
    /// Games: find them near a place, make one, join, leave.
    public var events: Events { Events(client: self) }

    /// Games: find them near a place, make one, join, leave.
    public struct Events: Sendable {
        let client: SportLookClient

        /// Which games a search keeps.
        public struct Filter: Hashable, Sendable, Codable {
            /// Only this sport (a slug of `GET /v1/sports`).
            public var sport: String?
            /// Only games starting at or after this.
            public var startsAfter: Date?
            /// Only games starting before this.
            public var startsBefore: Date?
            /// Games open to a player of this level.
            public var level: Double?
            /// Only games for these audiences (empty: any).
            public var audiences: Set<Audience>
            /// Only games with a place free now.
            public var freePlacesOnly: Bool

            /// A filter; what is left out does not filter.
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
        public struct Draft: Hashable, Sendable, Codable {
            /// What the game is called.
            public var title: String
            /// A slug of `GET /v1/sports`.
            public var sport: String
            /// When it starts.
            public var startsAt: Date
            /// Default: two hours after the start.
            public var endsAt: Date?
            /// Where it is played.
            public var place: Place
            /// The address, in words.
            public var address: String?
            public var description: String?
            /// Places in all; nil for no limit.
            public var capacity: Int?
            /// The levels it is for.
            public var level: LevelRange?
            /// Who may join (default: anyone).
            public var audience: Audience?
            /// Whether results move levels (fixed once someone joined).
            public var competitive: Bool?
            /// Each player's price (`splitPrice`: the whole game's cost, shared by everyone going).
            public var price: Money?
            /// Whether `price` is the whole game's cost, shared by everyone going.
            public var splitPrice: Bool

            /// A new game; what is not given takes the server's default.
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
        public func join(_ id: Event.ID) async throws -> Joined {
            let joined = try await client.call { try await $0.joinEvent(path: .init(id: id.description)).ok.body.json }
            return Joined(attendance: Attendance(rawValue: joined.status.rawValue) ?? .going, waitlistPosition: joined.position)
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

        /// The signed-in person's games (those they go to or wait for, or those they
        /// organise), coming ones soonest first or past ones latest first, page by page.
        public func mine(organising: Bool = false, past: Bool = false, pageSize: Int = 100) -> Pages<Event> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.myEvents(
                        query: .init(
                            role: organising ? .organising : .attending, when: past ? .past : .upcoming, limit: pageSize, cursor: cursor)
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

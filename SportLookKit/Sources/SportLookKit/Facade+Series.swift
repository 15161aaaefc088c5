import Foundation
internal import SportLookAPI

/// A weekly (or other) game series: its games are made ahead, its regulars go to each.
public struct Series: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<Series>
    /// One of its next games.
    public struct Game: Hashable, Sendable, Codable {
        /// The game.
        public var event: Event.ID
        /// Its local date (`2026-12-06`).
        public var date: String?
        /// When it starts.
        public var startsAt: Date
        /// Whether it was cancelled.
        public var isCancelled: Bool
        /// How many are going.
        public var goingCount: Int
    }

    public var id: ID
    /// What the games are called.
    public var title: String
    /// Their sport.
    public var sport: Sport
    /// Who organises them.
    public var organiser: Person
    /// Where they are played.
    public var place: Place
    /// The IANA zone its local times are in.
    public var timeZone: String
    /// The first game's local date (`2026-12-06`) and its local start (`19:30`).
    public var firstDate: String
    /// The local start time (`19:30`).
    public var startTime: String
    /// How long each game lasts.
    public var durationMinutes: Int
    /// `FREQ=WEEKLY;BYDAY=TU` and the like.
    public var rule: String
    /// Whether the series has ended.
    public var hasEnded: Bool
    /// How many regulars it has.
    public var regularsCount: Int
    /// Whether the signed-in person is a regular.
    public var iAmRegular: Bool
    /// Its next games.
    public var upcoming: [Game]

    init(_ series: Components.Schemas.Series) throws {
        id = try .parse(series.id)
        title = series.title
        sport = Sport(slug: series.sport.slug, name: series.sport.name)
        organiser = try Person(series.organiser)
        place = Place(latitude: series.location.lat, longitude: series.location.lon)
        timeZone = series.timeZone
        firstDate = series.firstDate
        startTime = series.startTime
        durationMinutes = series.durationMinutes
        rule = series.rule
        hasEnded = series.status == .ended
        regularsCount = series.regularsCount
        iAmRegular = series.iAmRegular
        upcoming = try series.upcoming.map {
            Game(
                event: try .parse($0.eventId), date: $0.date, startsAt: $0.startsAt, isCancelled: $0.status == .cancelled,
                goingCount: $0.goingCount)
        }
    }
}

extension SportLookClient {
    /// Game series and their regulars.
    public var series: SeriesClient { SeriesClient(client: self) }

    /// Game series and their regulars.
    public struct SeriesClient: Sendable {
        let client: SportLookClient

        /// Starts a series; its games are made ahead in the place's zone.
        /// - Parameters:
        ///   - title: What the games are called.
        ///   - sport: A slug of `GET /v1/sports`.
        ///   - place: Where they are played.
        ///   - timeZone: The place's IANA zone (`Europe/Copenhagen`): the games keep their local time across DST.
        ///   - firstDate: The first game's local date, `2026-12-06`.
        ///   - startTime: Its local start, `19:30`.
        ///   - rule: `FREQ=WEEKLY` (every week on the first date's weekday), `FREQ=WEEKLY;BYDAY=TU,TH`…
        ///   - capacity: Places in each game; nil for no limit.
        public func create(
            title: String, sport: String, place: Place, timeZone: String, firstDate: String, startTime: String,
            rule: String = "FREQ=WEEKLY", capacity: Int? = nil
        ) async throws -> Series {
            try Series(
                try await client.call {
                    try await $0.createSeries(
                        body: .json(
                            .init(
                                title: title, sport: try Events.slug(sport), location: .init(lat: place.latitude, lon: place.longitude),
                                capacity: capacity, timeZone: timeZone, firstDate: firstDate, startTime: startTime, rule: rule))
                    ).created.body.json
                })
        }

        /// One series.
        public func get(_ id: Series.ID) async throws -> Series {
            try Series(try await client.call { try await $0.getSeries(path: .init(id: id.description)).ok.body.json })
        }

        /// Becomes a regular: a place in every coming game.
        @discardableResult
        public func becomeRegular(_ id: Series.ID) async throws -> Series {
            try Series(try await client.call { try await $0.joinSeries(path: .init(id: id.description)).ok.body.json })
        }

        /// Stops being a regular.
        public func stopBeingRegular(_ id: Series.ID) async throws {
            _ = try await client.call { try await $0.leaveSeries(path: .init(id: id.description)).noContent }
        }

        /// A regular cannot come on one date (`2026-12-13`): their place that day is given up.
        public func optOut(_ id: Series.ID, on date: String) async throws {
            _ = try await client.call {
                try await $0.optOutOfSeriesDate(path: .init(id: id.description), body: .json(.init(date: date))).noContent
            }
        }

        /// The organiser skips a date: no game that day.
        public func skip(_ id: Series.ID, on date: String) async throws {
            _ = try await client.call {
                try await $0.skipSeriesDate(path: .init(id: id.description), body: .json(.init(date: date))).noContent
            }
        }

        /// The organiser ends the series; its coming games are cancelled.
        public func end(_ id: Series.ID) async throws {
            _ = try await client.call { try await $0.endSeries(path: .init(id: id.description)).noContent }
        }

        /// The regulars, in the order they joined.
        public func regulars(of id: Series.ID) async throws -> [Person] {
            try await client.call { try await $0.listRegulars(path: .init(id: id.description)).ok.body.json }.items.map {
                try Person($0.user)
            }
        }
    }
}

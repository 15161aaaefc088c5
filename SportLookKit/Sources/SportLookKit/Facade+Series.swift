import Foundation
import SportLookAPI

/// A weekly (or other) game series: its games are made ahead, its regulars go to each.
public struct Series: Hashable, Sendable, Identifiable {
    public typealias ID = Identifier<Series>
    /// One of its next games.
    public struct Game: Hashable, Sendable {
        public var event: Event.ID
        /// Its local date (`2026-12-06`).
        public var date: String?
        public var startsAt: Date
        public var isCancelled: Bool
        public var goingCount: Int
    }

    public var id: ID
    public var title: String
    public var sport: Sport
    public var organiser: Person
    public var place: Place
    /// The IANA zone its local times are in.
    public var timeZone: String
    /// The first game's local date (`2026-12-06`) and its local start (`19:30`).
    public var firstDate: String
    public var startTime: String
    public var durationMinutes: Int
    /// `FREQ=WEEKLY;BYDAY=TU` and the like.
    public var rule: String
    public var hasEnded: Bool
    public var regularsCount: Int
    public var iAmRegular: Bool
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
        ///   - firstDate: The first game's local date, `2026-12-06`.
        ///   - startTime: Its local start, `19:30`.
        ///   - rule: `FREQ=WEEKLY` (every week on the first date's weekday), `FREQ=WEEKLY;BYDAY=TU,TH`…
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

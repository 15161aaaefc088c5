import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Series: the weekly game, its occurrences and its regulars", .timeLimit(.minutes(10)))
struct SeriesTests {
    struct SeriesView: Decodable {
        struct Game: Decodable {
            var eventId: String
            var date: String
            var startsAt: String
            var status: String
            enum CodingKeys: String, CodingKey { case eventId = "event_id", date, startsAt = "starts_at", status }
        }
        var id: String
        var rule: String
        var startTime: String
        var status: String
        var regularsCount: Int
        var iAmRegular: Bool
        var upcoming: [Game]
        var followedBy: String?
        enum CodingKeys: String, CodingKey {
            case id, rule, status, upcoming
            case startTime = "start_time", regularsCount = "regulars_count", iAmRegular = "i_am_regular", followedBy = "followed_by"
        }
    }
    struct Regular: Decodable {
        var user: API.UserSummary
        var position: Int
    }

    /// A clock on 1 March of next year at noon UTC: weeks before the spring daylight-saving changes.
    static func march() throws -> ManualClock {
        let year = Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
        return ManualClock(try #require(LocalDate("\(year)-03-01")).at(minutes: 12 * 60, in: .gmt))
    }

    static func tuesday(after clock: ManualClock, zone: String) throws -> LocalDate {
        var date = LocalDate(clock.now(), in: try #require(TimeZone(identifier: zone))).adding(days: 1)
        while date.weekday != 3 { date = date.adding(days: 1) }
        return date
    }

    static func create(
        _ api: API, _ token: String, zone: String, first: LocalDate, capacity: Int? = nil, rule: String = "FREQ=WEEKLY;BYDAY=TU"
    ) async throws -> SeriesView {
        var body: [String: Any] = [
            "title": "Tuesday football", "sport": "football", "location": ["lat": 55.6761, "lon": 12.5683], "time_zone": zone,
            "first_date": first.description, "start_time": "19:00", "duration_minutes": 90, "rule": rule,
        ]
        if let capacity { body["capacity"] = capacity }
        return try await api.post("/v1/series", token: token, json: body).decode(expecting: .created)
    }

    static func games(_ services: AppServices, _ series: String) async throws -> [(date: String, start: Date)] {
        let id = try #require(UUID(uuidString: series))
        return try await services.database.read { sql in
            try await sql.raw("SELECT occurrence_date, starts_at FROM events WHERE series_id = \(bind: id) ORDER BY occurrence_date").all()
                .map { (try $0.decode(column: "occurrence_date", as: String.self), try $0.decode(column: "starts_at", as: Date.self)) }
        }
    }

    @Test(
        "a weekly game stays at 19:00 local across daylight saving in Copenhagen and New York; occurrences are made eight weeks ahead, then a week more a week later",
        arguments: engines)
    func occurrencesAcrossDST(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = .gmt
            for (zone, winter, summer) in [("Europe/Copenhagen", 18, 17), ("America/New_York", 0, 23)] {
                let first = try Self.tuesday(after: clock, zone: zone)
                let series = try await Self.create(api, organiser.token, zone: zone, first: first)
                #expect(series.rule == "FREQ=WEEKLY;BYDAY=TU" && series.startTime == "19:00")
                let games = try await Self.games(services, series.id)
                // Every Tuesday from the first through eight weeks from now.
                let horizon = LocalDate(clock.now().addingTimeInterval(56 * 86_400), in: try #require(TimeZone(identifier: zone)))
                let expected = try Recurrence(parsing: "FREQ=WEEKLY;BYDAY=TU", first: first).dates(from: first, through: horizon).map(
                    \.description)
                #expect(games.map(\.date) == expected, "\(zone)")
                let local = try #require(TimeZone(identifier: zone))
                #expect(games.allSatisfy { LocalDate($0.start, in: local).description == $0.date }, "\(zone)")
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = local
                #expect(
                    games.allSatisfy {
                        calendar.component(.hour, from: $0.start) == 19 && calendar.component(.minute, from: $0.start) == 0
                    }, "\(zone)")
                let (firstGame, lastGame) = (try #require(games.first), try #require(games.last))
                #expect(
                    utc.component(.hour, from: firstGame.start) == winter && utc.component(.hour, from: lastGame.start) == summer, "\(zone)"
                )
                // Each is a real event that says it belongs to the series.
                let event = try await api.get(
                    "/v1/events/\(try await api.eventID(ofSeries: series.id, services: services))", token: organiser.token)
                #expect(event.text.contains("\"series_id\":\"\(series.id)\""))
            }
            // A week later the rolling job (due a day after each run) makes one more of each, once.
            let before = try await services.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM events WHERE series_id IS NOT NULL").first()?.decode(column: "n", as: Int.self)
            }
            clock.advance(by: 7 * 86_400)
            try await eventually("the next games made") {
                try await services.database.read { sql in
                    try await sql.raw("SELECT COUNT(*) AS n FROM events WHERE series_id IS NOT NULL").first()?.decode(
                        column: "n", as: Int.self)
                } == (before ?? 0) + 2
            }
            // Whatever the job's runs, one game per series and date.
            let pairs = try await services.database.read { sql in
                try await sql.raw(
                    "SELECT COUNT(*) AS n, COUNT(DISTINCT series_id || occurrence_date) AS d FROM events WHERE series_id IS NOT NULL"
                ).first()
                    .map { (try $0.decode(column: "n", as: Int.self), try $0.decode(column: "d", as: Int.self)) }
            }
            #expect(pairs.map { $0.0 == $0.1 } == true)
        }
    }

    @Test("two instances making a series' games at once make each once")
    func twoInstancesExtend() async throws {
        let clock = try Self.march()
        try await withTwoInstances(clock: clock, queueClock: clock, configure: { $0.jobWorkers = 0 }) { one, _, first, second in
            let organiser = try await one.register("Org")
            let series = try await Self.create(
                one, organiser.token, zone: "Europe/Copenhagen", first: try Self.tuesday(after: clock, zone: "Europe/Copenhagen"))
            let made = try await Self.games(first, series.id).count
            clock.advance(by: 21 * 86_400)
            let id = try #require(UUID(uuidString: series.id))
            async let a: Void = first.series.extendDue(id)
            async let b: Void = second.series.extendDue(id)
            async let c: Void = first.series.extendDue(id)
            _ = try await (a, b, c)
            let games = try await Self.games(first, series.id)
            #expect(games.count == made + 3)
            #expect(Set(games.map(\.date)).count == games.count)
        }
    }

    @Test(
        "regulars are on every new game in the order they joined (going, then waitlisted); leaving one date leaves only it; a date opted out of ahead is not theirs",
        arguments: engines)
    func regulars(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let stranger = try await api.register("Stranger")
            let first = try Self.tuesday(after: clock, zone: "Europe/Copenhagen")
            let series = try await Self.create(api, organiser.token, zone: "Europe/Copenhagen", first: first, capacity: 1)
            #expect(
                try await api.post("/v1/series/\(series.id)/regulars", token: ann.token).decode(SeriesView.self, expecting: .ok).iAmRegular)
            clock.advance(by: 1)
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: bo.token).status == .ok)
            let upcoming = try await api.get("/v1/series/\(series.id)", token: stranger.token).decode(SeriesView.self, expecting: .ok)
                .upcoming
            #expect(upcoming.count >= 7 && !upcoming.isEmpty)
            for game in upcoming {
                #expect(try await api.event(game.eventId, token: ann.token).myStatus?.value1 == .going)
                #expect(try await api.event(game.eventId, token: bo.token).myStatus?.value1 == .waitlisted)
            }
            // The organiser sees the regulars in order; nobody else does.
            let regulars = try await api.get("/v1/series/\(series.id)/regulars", token: organiser.token).decode(
                API.Page<Regular>.self, expecting: .ok
            ).items
            #expect(regulars.map(\.user.id) == [ann.id, bo.id] && regulars.map(\.position) == [1, 2])
            #expect(try await api.get("/v1/series/\(series.id)/regulars", token: ann.token).status == .forbidden)
            // Ann leaves the second date: Bo moves up there, the other dates stay as they were.
            _ = try await api.delete("/v1/events/\(upcoming[1].eventId)/attendance", token: ann.token)
            #expect(try await api.event(upcoming[1].eventId, token: bo.token).myStatus?.value1 == .going)
            #expect(try await api.event(upcoming[2].eventId, token: ann.token).myStatus?.value1 == .going)
            // Ann says ahead she misses a date not made yet; a week on it is made without her.
            let later = try #require(LocalDate(upcoming.last?.date ?? "")).adding(days: 7)
            #expect(
                try await api.post("/v1/series/\(series.id)/opt-outs", token: ann.token, json: ["date": later.description]).status
                    == .noContent)
            clock.advance(by: 7 * 86_400)
            try await eventually("the next game made") {
                try await api.get("/v1/series/\(series.id)", token: ann.token).decode(SeriesView.self, expecting: .ok).upcoming.contains {
                    $0.date == later.description
                }
            }
            let made = try #require(
                try await api.get("/v1/series/\(series.id)", token: ann.token).decode(SeriesView.self, expecting: .ok).upcoming.first {
                    $0.date == later.description
                })
            #expect(try await api.event(made.eventId, token: ann.token).myStatus == nil)
            #expect(try await api.event(made.eventId, token: bo.token).myStatus?.value1 == .going)
            // Leaving the series takes Ann off the games to come.
            #expect(try await api.delete("/v1/series/\(series.id)/regulars", token: ann.token).status == .noContent)
            #expect(try await api.event(upcoming[3].eventId, token: ann.token).myStatus == nil)
            #expect(try await api.event(upcoming[3].eventId, token: bo.token).myStatus?.value1 == .going)
        }
    }

    @Test(
        "\"this and following\": the series is split at a date, earlier games are left alone, later ones change in place or are cancelled, regulars and opt-outs carry on; COUNT continues; split at the first date ends the old one",
        arguments: engines)
    func thisAndFollowing(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        // Weeks pass on the clock: the sessions last the year.
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.tokenTTL = 365 * 86_400 }) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let carl = try await api.register("Carl")
            let zone = try #require(TimeZone(identifier: "Europe/Copenhagen"))
            let first = try Self.tuesday(after: clock, zone: zone.identifier)
            let series = try await Self.create(api, organiser.token, zone: zone.identifier, first: first, capacity: 10)
            _ = try await api.post("/v1/series/\(series.id)/regulars", token: ann.token)
            clock.advance(by: 1)
            _ = try await api.post("/v1/series/\(series.id)/regulars", token: carl.token)
            let before = try await api.get("/v1/series/\(series.id)", token: organiser.token).decode(SeriesView.self, expecting: .ok)
                .upcoming
            let split = try #require(LocalDate(before[3].date))
            try await api.join(before[3].eventId, token: bo.token)
            // Carl says ahead he misses a date the new rule will have, beyond the games made.
            let away = split.adding(days: 70)
            #expect(
                try await api.post("/v1/series/\(series.id)/opt-outs", token: carl.token, json: ["date": away.description]).status
                    == .noContent)

            // Refusals: not the organiser; not a date of the series; nothing about the body checked before that.
            let change: [String: Any] = [
                "from": split.description, "start_time": "20:00", "title": "Tuesday football, new pitch",
                "rule": "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
            ]
            #expect(try await api.post("/v1/series/\(series.id)/split", token: ann.token, json: change).status == .forbidden)
            var wednesday = change
            wednesday["from"] = split.adding(days: 1).description
            let notADate = try await api.post("/v1/series/\(series.id)/split", token: organiser.token, json: wednesday)
            #expect(notADate.status == .unprocessableContent)
            #expect(try notADate.errorFields["from"] != nil)
            var badTime = change
            badTime["start_time"] = "24:30"
            #expect(
                try await api.post("/v1/series/\(series.id)/split", token: organiser.token, json: badTime).status == .unprocessableContent)

            let reply = try await api.post("/v1/series/\(series.id)/split", token: organiser.token, json: change)
            let next = try reply.decode(SeriesView.self, expecting: .created)
            #expect(next.id != series.id && next.rule == "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" && next.startTime == "20:00")
            #expect(reply.headers[.location] == "/v1/series/\(next.id)")
            let old = try await api.get("/v1/series/\(series.id)", token: organiser.token).decode(SeriesView.self, expecting: .ok)
            #expect(old.rule == "FREQ=WEEKLY;BYDAY=TU;UNTIL=\(split.adding(days: -1).description.replacingOccurrences(of: "-", with: ""))")
            #expect(old.followedBy == next.id && old.status == "active")

            // Earlier games: untouched, still the old series', at 19:00.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let oldGames = try await Self.games(services, series.id)
            #expect(oldGames.prefix(3).map(\.date) == before.prefix(3).map(\.date))
            #expect(oldGames.allSatisfy { calendar.component(.hour, from: $0.start) == 19 })
            for game in before.prefix(3) {
                let event = try await api.event(game.eventId, token: ann.token)
                #expect(event.title == "Tuesday football" && event.myStatus?.value1 == .going && event.status == .active)
            }
            // The split date: the same event, now the new series' at 20:00, with everyone still on it.
            let moved = try await api.event(before[3].eventId, token: bo.token)
            #expect(moved.title == "Tuesday football, new pitch" && moved.myStatus?.value1 == .going && moved.status == .active)
            let start = moved.startsAt
            #expect(calendar.component(.hour, from: start) == 20 && LocalDate(start, in: zone) == split)
            #expect(try await api.event(before[3].eventId, token: ann.token).myStatus?.value1 == .going)
            try await eventually("Bo told of the new time") {
                try await api.notifications(bo.token).contains { $0.kind == .eventUpdated }
            }
            // A week later, not in the fortnightly rule: cancelled, and left with the old series. Two weeks later: moved.
            #expect(try await api.event(before[4].eventId, token: ann.token).status == .cancelled)
            #expect(try await api.event(before[5].eventId, token: ann.token).status == .active)
            // The new series' games are exactly its rule's, all at 20:00 local; the regulars are its regulars, in order.
            let horizon = LocalDate(clock.now().addingTimeInterval(56 * 86_400), in: zone)
            let expected = try Recurrence(parsing: next.rule, first: split).dates(from: split, through: horizon).map(\.description)
            let newGames = try await Self.games(services, next.id)
            #expect(newGames.map(\.date) == expected)
            #expect(newGames.allSatisfy { calendar.component(.hour, from: $0.start) == 20 })
            let regulars = try await api.get("/v1/series/\(next.id)/regulars", token: organiser.token).decode(
                API.Page<Regular>.self, expecting: .ok
            ).items
            #expect(regulars.map(\.user.id) == [ann.id, carl.id])
            // The date Carl said he misses is made later without him, with Ann.
            clock.advance(by: 6 * 7 * 86_400)
            try await eventually("the later game made") { try await Self.games(services, next.id).contains { $0.date == away.description } }
            let later = try #require(
                try await api.get("/v1/series/\(next.id)", token: ann.token).decode(SeriesView.self, expecting: .ok).upcoming.first {
                    $0.date == away.description
                })
            #expect(try await api.event(later.eventId, token: ann.token).myStatus?.value1 == .going)
            #expect(try await api.event(later.eventId, token: carl.token).myStatus == nil)
            // The old series makes nothing more: its games are the three before and the dates the new rule dropped.
            let dropped = before.dropFirst(3).filter { !expected.contains($0.date) }.map(\.date)
            #expect(try await Self.games(services, series.id).map(\.date) == before.prefix(3).map(\.date) + dropped)

            // COUNT: what is left of it carries on; split at the first date, the old series ends and its games move.
            let counted = try await Self.create(
                api, organiser.token, zone: zone.identifier, first: first.adding(days: 63), rule: "FREQ=WEEKLY;BYDAY=TU;COUNT=6")
            let third = try #require(LocalDate(counted.upcoming[2].date))
            let rest = try await api.post(
                "/v1/series/\(counted.id)/split", token: organiser.token, json: ["from": third.description, "duration_minutes": 60]
            )
            .decode(SeriesView.self, expecting: .created)
            #expect(rest.rule == "FREQ=WEEKLY;BYDAY=TU;COUNT=4" && rest.startTime == "19:00")
            let whole = try await api.post(
                "/v1/series/\(counted.id)/split", token: organiser.token,
                json: ["from": counted.upcoming[0].date, "capacity": NSNull()]
            ).decode(SeriesView.self, expecting: .created)
            #expect(
                whole.rule == "FREQ=WEEKLY;BYDAY=TU;UNTIL=\(third.adding(days: -1).description.replacingOccurrences(of: "-", with: ""))")
            #expect(whole.upcoming.map(\.eventId) == counted.upcoming.prefix(2).map(\.eventId))
            let ended = try await api.get("/v1/series/\(counted.id)", token: organiser.token).decode(SeriesView.self, expecting: .ok)
            #expect(ended.status == "ended" && ended.followedBy == whole.id && ended.upcoming.isEmpty)
            #expect(try await api.event(counted.upcoming[0].eventId, token: organiser.token).status == .active)
            #expect(try await api.event(counted.upcoming[0].eventId, token: organiser.token).capacity == nil)
            // An ended series cannot be split.
            #expect(
                try await api.post("/v1/series/\(counted.id)/split", token: organiser.token, json: ["from": counted.upcoming[1].date])
                    .status == .conflict)
        }
    }

}

extension API {
    /// The first game of a series.
    func eventID(ofSeries id: String, services: AppServices) async throws -> String {
        let series = try #require(UUID(uuidString: id))
        return try await services.database.read { sql in
            try #require(
                try await sql.raw("SELECT id FROM events WHERE series_id = \(bind: series) ORDER BY occurrence_date LIMIT 1").first()?
                    .decode(column: "id", as: UUID.self)
            ).lowercased
        }
    }
}

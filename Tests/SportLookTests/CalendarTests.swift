import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Calendars: an event and a person's feed as iCalendar", .timeLimit(.minutes(10)))
struct CalendarTests {
    struct Read: Decodable {
        struct Moment: Decodable {
            var local: String
            var zone: String
            var offset: Int?
        }
        struct Event: Decodable {
            var uid: String
            var sequence: Int
            var status: String
            var summary: String
            var location: String?
            var start: Moment
            var end: Moment
        }
        var name: String
        var events: [Event]
        var zones: [String]
    }

    /// What the `icalendar` package (PyPI) reads in `text`: Tests/fakes/ics_read.py.
    static func parse(_ text: String) async throws -> Read {
        let file = NSTemporaryDirectory() + "sportlook-\(UUID().uuidString).ics"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../fakes/ics_read.py").standardized
            .path
        let (out, err) = (file + ".out", file + ".err")
        defer { for path in [out, err] { try? FileManager.default.removeItem(atPath: path) } }
        // posix_spawn, not Foundation's Process: its run() once crashed copying past a buffer
        // while the suite held over a thousand descriptors open.
        let output = try await blocking { () throws -> Data in
            let status = exitStatus(of: try spawn(["/usr/bin/env", "python3", script, file], output: out, errors: err))
            let problem = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            guard status == 0 else { throw ClusterError("icalendar refused it: \(problem.suffix(600))\n\(text)") }
            return try Data(contentsOf: URL(fileURLWithPath: out))
        }
        return try JSONDecoder().decode(Read.self, from: output)
    }

    /// A game at 19:00 local time in Copenhagen on `date`.
    static func game(_ api: API, _ token: String, title: String, on date: String, extra: [String: Any] = [:]) async throws -> API.Event {
        let zone = try #require(TimeZone(identifier: "Europe/Copenhagen"))
        let start = try #require(LocalDate(date)).at(minutes: 19 * 60, in: zone)
        var body: [String: Any] = [
            "title": title, "sport": "football", "starts_at": RFC3339.format(start),
            "ends_at": RFC3339.format(start.addingTimeInterval(5_400)),
            "location": ["lat": 55.6761, "lon": 12.5683], "time_zone": "Europe/Copenhagen",
            "address": "Fælledparken, pitch 3; by the trees",
        ]
        body.merge(extra) { $1 }
        return try await api.post("/v1/events", token: token, json: body).decode(expecting: .created)
    }

    static func year() -> Int { Calendar(identifier: .gregorian).component(.year, from: Date()) + 1 }

    @Test("a line is folded by octets, between scalars: a letter with 60 combining marks is no 121-octet line", arguments: engines)
    func foldsByOctet(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let organiser = try await api.register("Org")
            let title = "a" + String(repeating: "\u{301}", count: 60)
            #expect(title.count == 1 && title.utf8.count == 121)
            let game = try await Self.game(api, organiser.token, title: title, on: "\(Self.year())-03-10")
            let answer = try await api.get("/v1/events/\(game.id)/calendar.ics", token: organiser.token)
            #expect(answer.status == .ok)
            let lines = Data(answer.text.utf8).split(separator: 10).map { $0.count - ($0.last == 13 ? 1 : 0) }
            #expect(lines.allSatisfy { $0 <= 75 }, "\(lines.max() ?? 0)")
            // (The title as kept, in normal form C: the letter and its first mark composed.)
            #expect(game.title.unicodeScalars.count >= 60)
            #expect(try await Self.parse(answer.text).events.first?.summary.unicodeScalars.elementsEqual(game.title.unicodeScalars) == true)
        }
        // Unfolded again (CRLF and one space removed), every line is what it was.
        for line in [
            "SUMMARY:" + String(repeating: "é⚽️", count: 40), "X:" + String(repeating: "\u{301}", count: 100),
            String(repeating: "x", count: 75),
        ] {
            let folded = ICalendar.fold(line)
            #expect(Data(folded.utf8).split(separator: 10).allSatisfy { $0.count - ($0.last == 13 ? 1 : 0) <= 75 })
            var unfolded: [UInt8] = []
            for byte in folded.utf8 {
                unfolded.append(byte)
                if unfolded.suffix(3) == [13, 10, 32] { unfolded.removeLast(3) }
            }
            #expect(unfolded == Array(line.utf8))
        }
    }

    @Test(
        "one event: a stable UID, its local time and zone in winter and in summer, escaped text, SEQUENCE and STATUS:CANCELLED",
        arguments: engines)
    func eventCalendar(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let organiser = try await api.register("Org")
            let winter = try await Self.game(
                api, organiser.token, title: "Winter football, five-a-side; bring a bib", on: "\(Self.year())-01-12",
                extra: ["description": String(repeating: "Long description with æøå and ⚽️, ", count: 12)])
            let summer = try await Self.game(api, organiser.token, title: "Summer football", on: "\(Self.year())-07-13")
            let answer = try await api.get("/v1/events/\(winter.id)/calendar.ics", token: organiser.token)
            #expect(answer.status == .ok && answer.headers[.contentType]?.hasPrefix("text/calendar") == true)
            #expect(answer.text.contains("\r\n") && answer.text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
            let read = try await Self.parse(answer.text)
            let event = try #require(read.events.first)
            #expect(event.uid == "\(winter.id)@sportlook")
            #expect(event.summary == "Winter football, five-a-side; bring a bib")
            #expect(event.location == "Fælledparken, pitch 3; by the trees")
            #expect(event.start.local.hasSuffix("T19:00") && event.start.offset == 3_600 && event.end.local.hasSuffix("T20:30"))
            #expect(event.start.zone.contains("Copenhagen") && read.zones == ["Europe/Copenhagen"])
            #expect(event.status == "CONFIRMED")
            let july = try await Self.parse(try await api.get("/v1/events/\(summer.id)/calendar.ics", token: organiser.token).text)
            #expect(july.events.first?.start.local.hasSuffix("T19:00") == true && july.events.first?.start.offset == 7_200)
            // Moved and then cancelled: the same UID, a higher SEQUENCE each time, CANCELLED.
            #expect(
                try await api.patch("/v1/events/\(winter.id)", token: organiser.token, json: ["title": "Winter football"]).status == .ok)
            let moved = try #require(
                try await Self.parse(try await api.get("/v1/events/\(winter.id)/calendar.ics", token: organiser.token).text).events.first)
            #expect(moved.uid == event.uid && moved.sequence > event.sequence)
            #expect(try await api.delete("/v1/events/\(winter.id)", token: organiser.token).status == .noContent)
            let cancelled = try #require(
                try await Self.parse(try await api.get("/v1/events/\(winter.id)/calendar.ics", token: organiser.token).text).events.first)
            #expect(cancelled.status == "CANCELLED" && cancelled.sequence > moved.sequence)
            #expect(try await api.get("/v1/events/\(UUID())/calendar.ics", token: organiser.token).status == .notFound)
            #expect(try await api.get("/v1/events/\(summer.id)/calendar.ics").status == .unauthorized)
        }
    }

    @Test(
        "a person's feed: games they go to or organise, not those they wait for, cancelled ones marked; a new secret ends the old URL, and it can be removed",
        arguments: engines)
    func personalFeed(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let other = try await api.register("Other")
            let going = try await Self.game(api, organiser.token, title: "Tuesday football", on: "\(Self.year())-03-16")
            let full = try await Self.game(api, organiser.token, title: "Full game", on: "\(Self.year())-04-06", extra: ["capacity": 1])
            let called = try await Self.game(api, organiser.token, title: "Called off", on: "\(Self.year())-05-04")
            _ = try await Self.game(api, player.token, title: "Player's own", on: "\(Self.year())-06-01")
            _ = try await Self.game(api, organiser.token, title: "Not joined", on: "\(Self.year())-06-02")
            try await api.join(going.id, token: player.token)
            try await api.join(full.id, token: other.token)
            #expect(try await api.join(full.id, token: player.token).status == .waitlisted)
            try await api.join(called.id, token: player.token)
            #expect(try await api.delete("/v1/events/\(called.id)", token: organiser.token).status == .noContent)

            struct Feed: Decodable { var path: String }
            let feed = try await api.post("/v1/me/calendar", token: player.token).decode(Feed.self, expecting: .created)
            #expect(feed.path.hasPrefix("/v1/calendar/") && feed.path.hasSuffix(".ics"))
            let answer = try await api.get(feed.path)
            #expect(answer.status == .ok)
            let read = try await Self.parse(answer.text)
            #expect(read.name == "SportLook: Player")
            #expect(read.events.map(\.summary) == ["Tuesday football", "Called off", "Player's own"])
            #expect(read.events.map(\.status) == ["CONFIRMED", "CANCELLED", "CONFIRMED"])
            #expect(read.events.allSatisfy { $0.start.local.hasSuffix("T19:00") })
            // Spring and summer both: the zone is described for both offsets.
            #expect(read.events.map(\.start.offset) == [3_600, 7_200, 7_200])
            // The zone's description covers the first game: an observance begins before it.
            let firstObservance = try #require(
                answer.text.components(separatedBy: "BEGIN:VTIMEZONE")[1].components(separatedBy: "DTSTART:").dropFirst().first?.prefix(8))
            #expect(String(firstObservance) < "\(Self.year())0316")
            // A new secret: the old URL answers 404, the new one the feed; removed, nothing.
            let again = try await api.post("/v1/me/calendar", token: player.token).decode(Feed.self, expecting: .created)
            #expect(again.path != feed.path)
            #expect(try await api.get(feed.path).status == .notFound)
            #expect(try await api.get(again.path).status == .ok)
            #expect(try await api.delete("/v1/me/calendar", token: player.token).status == .noContent)
            #expect(try await api.get(again.path).status == .notFound)
            for path in [
                "/v1/calendar/nothing.ics", "/v1/calendar/\(String(repeating: "A", count: 43))",
                "/v1/calendar/\(String(repeating: "A", count: 43)).ics",
            ] {
                #expect(try await api.get(path).status == .notFound, "\(path)")
            }
        }
    }

    @Test("a regular's feed holds a weekly series' games across the spring daylight-saving change, each at 19:00 local", arguments: engines)
    func seriesInFeed(engine: DatabaseEngine) async throws {
        let clock = try SeriesTests.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let first = try SeriesTests.tuesday(after: clock, zone: "Europe/Copenhagen")
            let series = try await SeriesTests.create(api, organiser.token, zone: "Europe/Copenhagen", first: first)
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: player.token).status == .ok)
            struct Feed: Decodable { var path: String }
            let feed = try await api.post("/v1/me/calendar", token: player.token).decode(Feed.self, expecting: .created)
            let read = try await Self.parse(try await api.get(feed.path).text)
            #expect(read.events.count == series.upcoming.count && read.events.count >= 7)
            #expect(read.events.allSatisfy { $0.start.local.hasSuffix("T19:00") && $0.summary == "Tuesday football" })
            let offsets = read.events.compactMap(\.start.offset)
            #expect(offsets.first == 3_600 && offsets.last == 7_200, "\(offsets)")
            #expect(Set(read.events.map(\.uid)).count == read.events.count)
        }
    }

    @Test("a calendar feed shows on the profile and ends with a password change and with logging out everywhere else", arguments: engines)
    func feedEndsWithSessions(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let player = try await api.register("Player")
            struct Feed: Decodable { var path: String }
            func live(_ token: String) async throws -> Bool {
                try await api.get("/v1/me", token: token).text.contains("\"calendar_feed\":true")
            }
            #expect(try await !live(player.token))
            let first = try await api.post("/v1/me/calendar", token: player.token).decode(Feed.self, expecting: .created)
            #expect(try await live(player.token))
            #expect(try await api.delete("/v1/me/sessions", token: player.token).status == .noContent)
            #expect(try await api.get(first.path).status == .notFound)
            #expect(try await !live(player.token))
            let second = try await api.post("/v1/me/calendar", token: player.token).decode(Feed.self, expecting: .created)
            #expect(
                try await api.post(
                    "/v1/me/password", token: player.token,
                    json: ["current_password": "correct horse battery", "new_password": "another fine passphrase"]
                ).status == .noContent)
            #expect(try await api.get(second.path).status == .notFound)
        }
    }
}

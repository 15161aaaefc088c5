import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Showing up: check-in, the organiser's sheet, late cancellations and a player's record", .timeLimit(.minutes(10)))
struct ShowingUpTests {
    struct Row: Decodable {
        struct Summary: Decodable {
            var games: Int
            var attended: Int
            var noShows: Int
            var lateCancellations: Int
            var excused: Int
            enum CodingKeys: String, CodingKey {
                case games, attended, excused, noShows = "no_shows", lateCancellations = "late_cancellations"
            }
        }
        var user: API.UserSummary
        var going: Bool
        var mark: String?
        var outcome: String?
        var record: Summary?
    }
    struct Record: Decodable {
        struct Game: Decodable {
            var eventId: String
            var title: String
            var outcome: String
            enum CodingKeys: String, CodingKey { case eventId = "event_id", title, outcome }
        }
        var games: Int
        var attended: Int
        var noShows: Int
        var lateCancellations: Int
        var excused: Int
        var items: [Game]
        enum CodingKeys: String, CodingKey {
            case games, attended, excused, items, noShows = "no_shows", lateCancellations = "late_cancellations"
        }
    }
    struct Attendee: Decodable {
        var id: String
        var record: Row.Summary?
    }

    /// Metres north of the default place (48.8566, 2.3522).
    static func near(_ metres: Double) -> [String: Any] { ["location": ["lat": 48.8566 + metres / 111_195, "lon": 2.3522]] }

    static func sheet(_ api: API, _ event: String, _ token: String) async throws -> [Row] {
        try await api.get("/v1/events/\(event)/sheet", token: token).decode(API.Page<Row>.self, expecting: .ok).items
    }

    @Test("check-in opens 30 minutes before the start and closes at the end, within 300 m, for the people going", arguments: engines)
    func checkInWindowAndDistance(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let event = try await api.createEvent(organiser.token, startsIn: 2 * 3_600, duration: 3_600, now: clock.now())
            try await api.join(event.id, token: ann.token)
            let early = try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: Self.near(10))
            #expect(early.status == .conflict)
            #expect(try early.errorCode == "check_in_not_open")
            clock.advance(by: 2 * 3_600 - 29 * 60)
            // Not going: refused; too far: refused with the distance; near: in.
            let stranger = try await api.post("/v1/events/\(event.id)/check-in", token: bo.token, json: Self.near(10))
            #expect(stranger.status == .forbidden)
            #expect(try stranger.errorCode == "not_going")
            let far = try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: Self.near(500))
            #expect(far.status == .unprocessableContent)
            #expect(try far.errorFields["location"]?.contains("500 m") == true)
            let missing = try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: [String: Any]())
            #expect(missing.status == .unprocessableContent)
            // The organiser does not check in: their own games are not on their record.
            #expect(try await api.post("/v1/events/\(event.id)/check-in", token: organiser.token, json: Self.near(10)).status == .forbidden)
            let checked = try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: Self.near(250)).decode(
                Row.self, expecting: .ok)
            #expect(checked.outcome == "attended" && checked.mark == nil)
            // Once it is over, check-in is closed.
            try await api.join(event.id, token: bo.token)
            clock.advance(by: 29 * 60 + 3_600 + 1)
            let late = try await api.post("/v1/events/\(event.id)/check-in", token: bo.token, json: Self.near(10))
            #expect(late.status == .conflict)
            #expect(try late.errorCode == "check_in_closed")
        }
    }

    @Test(
        "the organiser marks from the start until two days after the end, over a check-in; only the organiser sees the sheet",
        arguments: engines)
    func organiserMarks(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            // An organiser of a week's standing: their games count toward records.
            clock.advance(by: Reliability.organiserAge)
            let event = try await api.createEvent(organiser.token, startsIn: 3_600, duration: 3_600, now: clock.now())
            try await api.join(event.id, token: ann.token)
            try await api.join(event.id, token: bo.token)
            let before = try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "no_show"])
            #expect(before.status == .conflict)
            #expect(try before.errorCode == "marking_not_open")
            clock.advance(by: 3_600 - 10 * 60)
            _ = try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: Self.near(20)).decode(
                Row.self, expecting: .ok)
            clock.advance(by: 20 * 60)
            var sheet = try await Self.sheet(api, event.id, organiser.token)
            #expect(Set(sheet.map(\.user.id)) == [ann.id, bo.id])
            #expect(sheet.first { $0.user.id == ann.id }?.outcome == "attended" && sheet.first { $0.user.id == bo.id }?.outcome == nil)
            #expect(try await api.get("/v1/events/\(event.id)/sheet", token: ann.token).status == .forbidden)
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: ann.token, json: ["outcome": "no_show"]).status
                    == .forbidden)
            // Marks: over Ann's check-in, Bo a no-show; a stranger is nobody's to mark; a bad outcome is refused.
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(ann.id)", token: organiser.token, json: ["outcome": "excused"]).decode(
                    Row.self, expecting: .ok
                ).outcome == "excused")
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "no_show"]).decode(
                    Row.self, expecting: .ok
                ).outcome == "no_show")
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(cy.id)", token: organiser.token, json: ["outcome": "attended"]).status
                    == .notFound)
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "late_cancel"]).status
                    == .unprocessableContent)
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: [String: Any]()).status
                    == .unprocessableContent)
            // The mark taken back: Ann's check-in counts again.
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(ann.id)", token: organiser.token, json: ["outcome": NSNull()]).decode(
                    Row.self, expecting: .ok
                ).outcome == "attended")
            // Someone who blocks the organiser is off the sheet and cannot be marked.
            try await api.join(event.id, token: cy.token)
            #expect(try await api.post("/v1/users/\(organiser.id)/block", token: cy.token).status == .noContent)
            #expect(!(try await Self.sheet(api, event.id, organiser.token).contains { $0.user.id == cy.id }))
            #expect(
                try await api.put("/v1/events/\(event.id)/sheet/\(cy.id)", token: organiser.token, json: ["outcome": "no_show"]).status
                    == .notFound)
            // Two days after the end marking closes; the record counts what was marked.
            clock.advance(by: 3_600 + 48 * 3_600 + 1)
            let closed = try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "attended"])
            #expect(closed.status == .conflict)
            #expect(try closed.errorCode == "marking_closed")
            sheet = try await Self.sheet(api, event.id, organiser.token)
            #expect(sheet.first { $0.user.id == bo.id }?.record?.noShows == 1)
            let annRecord = try await api.get("/v1/me/record", token: ann.token).decode(Record.self, expecting: .ok)
            #expect(annRecord.attended == 1 && annRecord.games == 1 && annRecord.items.map(\.eventId) == [event.id])
            let boRecord = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(boRecord.noShows == 1 && boRecord.attended == 0)
            // The organiser's own game is not on their record, and a game that is over cannot be cancelled.
            #expect(try await api.get("/v1/me/record", token: organiser.token).decode(Record.self, expecting: .ok).games == 0)
            let over = try await api.delete("/v1/events/\(event.id)", token: organiser.token)
            #expect(over.status == .conflict)
            #expect(try over.errorCode == "event_finished")
        }
    }

    @Test(
        "leaving within LATE_CANCEL_HOURS of the start is a late cancellation; earlier, or removed by the organiser, it is not",
        arguments: engines)
    func lateCancellations(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            clock.advance(by: Reliability.organiserAge)
            let event = try await api.createEvent(organiser.token, startsIn: 6 * 3_600, duration: 3_600, now: clock.now())
            for person in [ann, bo, cy] { try await api.join(event.id, token: person.token) }
            #expect(try await api.delete("/v1/events/\(event.id)/attendance", token: ann.token).status == .noContent)
            clock.advance(by: 3 * 3_600)
            #expect(try await api.delete("/v1/events/\(event.id)/attendance", token: bo.token).status == .noContent)
            #expect(try await api.delete("/v1/events/\(event.id)/attendees/\(cy.id)", token: organiser.token).status == .noContent)
            let sheet = try await Self.sheet(api, event.id, organiser.token)
            #expect(sheet.map(\.user.id) == [bo.id])
            #expect(sheet.first?.outcome == "late_cancel" && sheet.first?.going == false)
            // Counted once the game is over.
            #expect(try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok).games == 0)
            clock.advance(by: 4 * 3_600)
            let record = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(record.lateCancellations == 1 && record.items.first?.outcome == "late_cancel")
            #expect(try await api.get("/v1/me/record", token: ann.token).decode(Record.self, expecting: .ok).games == 0)
        }
    }

    @Test("checking in and then leaving is leaving: a late cancellation, not attended", arguments: engines)
    func checkInThenLeave(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            clock.advance(by: Reliability.organiserAge)
            let event = try await api.createEvent(organiser.token, startsIn: 2 * 3_600, duration: 3_600, now: clock.now())
            try await api.join(event.id, token: ann.token)
            clock.advance(by: 2 * 3_600 - 10 * 60)
            #expect(
                try await api.post("/v1/events/\(event.id)/check-in", token: ann.token, json: Self.near(20)).decode(
                    Row.self, expecting: .ok
                ).outcome == "attended")
            #expect(try await api.delete("/v1/events/\(event.id)/attendance", token: ann.token).status == .noContent)
            let row = try #require(try await Self.sheet(api, event.id, organiser.token).first { $0.user.id == ann.id })
            #expect(row.outcome == "late_cancel" && !row.going)
            clock.advance(by: 2 * 3_600)
            let record = try await api.get("/v1/me/record", token: ann.token).decode(Record.self, expecting: .ok)
            #expect(record.lateCancellations == 1 && record.attended == 0 && record.items.first?.outcome == "late_cancel")
        }
    }

    @Test(
        "the record is the last 20 games of 12 months; an event asking for one refuses a player with too many no-shows and says why; only the organiser sees attendees' records",
        arguments: engines)
    func recordWindowAndMinimum(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock, configure: { $0.tokenTTL = 3 * 365 * 86_400 }) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            clock.advance(by: Reliability.organiserAge)
            // 22 games: Ann a no-show at the first two, there at the rest; Bo a no-show at the last two.
            var games: [String] = []
            for n in 0..<22 {
                let event = try await api.createEvent(
                    organiser.token, title: "Game \(n)", startsIn: 3_600, duration: 3_600, now: clock.now())
                try await api.join(event.id, token: ann.token)
                try await api.join(event.id, token: bo.token)
                clock.advance(by: 2 * 3_600 + 1)
                let annOutcome = n < 2 ? "no_show" : "attended"
                let boOutcome = n >= 20 ? "no_show" : "attended"
                // One game a day: an organiser's games of one day count once.
                defer { clock.advance(by: 86_400 - (2 * 3_600 + 1)) }
                _ = try await api.put("/v1/events/\(event.id)/sheet/\(ann.id)", token: organiser.token, json: ["outcome": annOutcome])
                    .decode(Row.self, expecting: .ok)
                _ = try await api.put("/v1/events/\(event.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": boOutcome]).decode(
                    Row.self, expecting: .ok)
                games.append(event.id)
            }
            let annRecord = try await api.get("/v1/me/record", token: ann.token).decode(Record.self, expecting: .ok)
            // The latest 20: the two early no-shows fell out.
            #expect(annRecord.games == 20 && annRecord.noShows == 0 && annRecord.attended == 20)
            #expect(annRecord.items.map(\.eventId) == Array(games.suffix(20).reversed()))
            // A game for players with at most 1 no-show in their last 10.
            let strict = try await api.post(
                "/v1/events", token: organiser.token,
                json: [
                    "title": "Serious game", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(3_600)),
                    "location": ["lat": 48.8566, "lon": 2.3522], "min_record": ["last_games": 10, "max_no_shows": 1],
                ]
            ).decode(API.Event.self, expecting: .created)
            #expect(
                try await api.get("/v1/events/\(strict.id)", token: bo.token).text.contains(
                    "\"min_record\":{\"last_games\":10,\"max_no_shows\":1}"))
            let refused = try await api.post("/v1/events/\(strict.id)/attendance", token: bo.token)
            #expect(refused.status == .forbidden)
            #expect(try refused.errorCode == "record_required")
            #expect(refused.text.contains("at most 1 no-show in their last 10 games"))
            #expect(refused.text.contains("shows 2"))
            try await api.join(strict.id, token: ann.token)
            for bad in [
                ["last_games": 0, "max_no_shows": 0], ["last_games": 10, "max_no_shows": 10], ["last_games": 21, "max_no_shows": 1],
            ] {
                #expect(
                    try await api.patch("/v1/events/\(strict.id)", token: organiser.token, json: ["min_record": bad]).status
                        == .unprocessableContent)
            }
            // The organiser sees the attendees' records; an attendee sees none.
            let asOrganiser = try await api.get("/v1/events/\(strict.id)/attendees", token: organiser.token).decode(
                API.Page<Attendee>.self, expecting: .ok
            ).items
            #expect(asOrganiser.first { $0.id == ann.id }?.record?.games == 20)
            let asAnn = try await api.get("/v1/events/\(strict.id)/attendees", token: ann.token).decode(
                API.Page<Attendee>.self, expecting: .ok
            ).items
            #expect(asAnn.allSatisfy { $0.record == nil })
            // A year on, the games are out of the window.
            clock.advance(by: 366 * 86_400)
            #expect(try await api.get("/v1/me/record", token: ann.token).decode(Record.self, expecting: .ok).games == 0)
        }
    }

    @Test(
        "a record cannot be laundered: a throwaway organiser's game, a game made moments before its start, or one of seconds counts for nothing; an ordinary game counts",
        arguments: engines)
    func launderingDoesNotCount(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let bo = try await api.register("Bo")
            clock.advance(by: Reliability.organiserAge)
            // Bo's no-show at an ordinary game keeps him out of a game that asks for a clean record.
            let ordinary = try await api.createEvent(organiser.token, startsIn: 3_600, duration: 3_600, now: clock.now())
            try await api.join(ordinary.id, token: bo.token)
            clock.advance(by: 3_600 + 60)
            _ = try await api.put("/v1/events/\(ordinary.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "no_show"]).decode(
                Row.self, expecting: .ok)
            clock.advance(by: 3_600)
            #expect(try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok).noShows == 1)
            let strict = try await api.post(
                "/v1/events", token: organiser.token,
                json: [
                    "title": "Serious game", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(3 * 86_400)),
                    "location": ["lat": 48.8566, "lon": 2.3522], "min_record": ["last_games": 1, "max_no_shows": 0],
                ]
            ).decode(API.Event.self, expecting: .created)
            #expect(try await api.post("/v1/events/\(strict.id)/attendance", token: bo.token).status == .forbidden)
            let maybe = try await api.post("/v1/events/\(strict.id)/maybe", token: bo.token)
            #expect(maybe.status == .forbidden)
            #expect(try maybe.errorCode == "record_required")
            // A throwaway account's game that started 50 seconds ago and ends in seconds: Bo checks in, and is marked.
            let throwaway = try await api.register("Throwaway")
            let quick = try await api.post(
                "/v1/events", token: throwaway.token,
                json: [
                    "title": "Quick", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(-50)),
                    "ends_at": RFC3339.format(clock.now().addingTimeInterval(3)), "location": ["lat": 48.8566, "lon": 2.3522],
                ]
            ).decode(API.Event.self, expecting: .created)
            try await api.join(quick.id, token: bo.token)
            _ = try await api.post("/v1/events/\(quick.id)/check-in", token: bo.token, json: Self.near(10)).decode(Row.self, expecting: .ok)
            _ = try await api.put("/v1/events/\(quick.id)/sheet/\(bo.id)", token: throwaway.token, json: ["outcome": "attended"]).decode(
                Row.self, expecting: .ok)
            // The established organiser's own short or sudden games do not count either.
            let sudden = try await api.createEvent(organiser.token, startsIn: 60, duration: 3_600, now: clock.now())
            let short = try await api.createEvent(organiser.token, startsIn: 2 * 3_600, duration: 29 * 60, now: clock.now())
            for game in [sudden, short] { try await api.join(game.id, token: bo.token) }
            clock.advance(by: 2 * 3_600 + 60)
            for game in [sudden, short] {
                _ = try await api.put("/v1/events/\(game.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "attended"]).decode(
                    Row.self, expecting: .ok)
            }
            clock.advance(by: 3_600)
            let record = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(record.games == 1 && record.noShows == 1 && record.attended == 0)
            let stillRefused = try await api.post("/v1/events/\(strict.id)/attendance", token: bo.token)
            #expect(stillRefused.status == .forbidden)
            #expect(try stillRefused.errorCode == "record_required")
            // The next day, an ordinary game Bo comes to counts, and cleans the last game of his record.
            clock.advance(by: 86_400)
            let real = try await api.createEvent(organiser.token, startsIn: 3_600, duration: 3_600, now: clock.now())
            try await api.join(real.id, token: bo.token)
            clock.advance(by: 3_600 + 60)
            _ = try await api.put("/v1/events/\(real.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "attended"]).decode(
                Row.self, expecting: .ok)
            clock.advance(by: 3_600)
            let cleaned = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(cleaned.games == 2 && cleaned.attended == 1 && cleaned.items.first?.eventId == real.id)
            #expect(try await api.post("/v1/events/\(strict.id)/attendance", token: bo.token).status == .ok)
        }
    }
}

import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

@Suite("A record that holds: which games count, and no way out of a mark", .timeLimit(.minutes(10)))
struct RecordRulesTests {
    typealias Row = ShowingUpTests.Row
    typealias Record = ShowingUpTests.Record

    static func candidate(_ outcome: Outcome, start: TimeInterval, minutes: Double = 60, organiser: UUID) -> Reliability.Candidate {
        let startsAt = Date(timeIntervalSince1970: start)
        return Reliability.Candidate(
            game: Reliability.Game(eventID: UUID(), title: "", startsAt: startsAt, outcome: outcome),
            endsAt: startsAt.addingTimeInterval(minutes * 60), organiser: organiser)
    }

    @Test("games that overlap count once, by the worst outcome; an organiser's games of one day count once; at most 20")
    func whichCount() {
        let real = UUID()
        let throwaway = UUID()
        let day: TimeInterval = 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 86_400)
        // A no-show at noon, and twenty games at the same time where the player checked in (latest first).
        let slot =
            [Self.candidate(.noShow, start: day + 43_200, organiser: real)]
            + (0..<20).map { _ in Self.candidate(.attended, start: day + 43_200, minutes: 31, organiser: throwaway) }
        #expect(Reliability.counted(slot.reversed()).map(\.outcome) == [.noShow])
        // One organiser's three games on one day, not overlapping: one counts, the worst.
        let sameDay = [0.0, 10_000, 20_000].map { Self.candidate(.attended, start: day + $0, organiser: throwaway) }
        #expect(
            Reliability.counted((sameDay + [Self.candidate(.lateCancel, start: day + 30_000, organiser: throwaway)]).reversed()).map(
                \.outcome) == [.lateCancel])
        // One a day for thirty days: the latest twenty.
        let daily = (0..<30).map { Self.candidate(.attended, start: day + Double($0) * 86_400, organiser: real) }.reversed()
        let counted = Reliability.counted(Array(daily))
        #expect(counted.count == Reliability.games && counted.first?.startsAt == daily.first?.game.startsAt)
    }

    @Test(
        "twenty games a week-old throwaway holds at the time of a real no-show wash nothing out, nor does a game moved to start now; a game over keeps who was going",
        arguments: engines)
    func noWayOut(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let throwaway = try await api.register("Throwaway")
            let bo = try await api.register("Bo")
            clock.advance(by: Reliability.organiserAge)
            let real = try await api.createEvent(organiser.token, startsIn: 3_660, duration: 1_800, now: clock.now())
            var washes: [String] = []
            for _ in 0..<3 {
                washes.append(try await api.createEvent(throwaway.token, startsIn: 3_660, duration: 1_860, now: clock.now()).id)
            }
            for id in [real.id] + washes { try await api.join(id, token: bo.token) }
            clock.advance(by: 3_661)  // a second past the start: marking opens at it
            _ = try await api.put("/v1/events/\(real.id)/sheet/\(bo.id)", token: organiser.token, json: ["outcome": "no_show"])
                .decode(Row.self, expecting: .ok)
            for id in washes {
                _ = try await api.post("/v1/events/\(id)/check-in", token: bo.token, json: ShowingUpTests.near(10)).decode(
                    Row.self, expecting: .ok)
            }
            clock.advance(by: 1_900)
            // The game is over: Bo cannot leave it, and stays on the sheet.
            let leaving = try await api.delete("/v1/events/\(real.id)/attendance", token: bo.token)
            #expect(leaving.status == .conflict)
            #expect(try leaving.errorCode == "event_finished")
            #expect(try await ShowingUpTests.sheet(api, real.id, organiser.token).first { $0.user.id == bo.id }?.outcome == "no_show")
            var record = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(record.games == 1 && record.noShows == 1 && record.attended == 0)
            // The next day: a game made hours ago and moved to start now does not count; one set an hour ahead does.
            clock.advance(by: 86_400)
            let moved = try await api.createEvent(throwaway.token, startsIn: 3 * 3_600, duration: 3_600, now: clock.now())
            clock.advance(by: 2 * 3_600)
            _ = try await api.patch(
                "/v1/events/\(moved.id)", token: throwaway.token,
                json: [
                    "starts_at": RFC3339.format(clock.now().addingTimeInterval(-50)),
                    "ends_at": RFC3339.format(clock.now().addingTimeInterval(1_800)),
                ]
            ).decode(API.Event.self, expecting: .ok)
            try await api.join(moved.id, token: bo.token)
            _ = try await api.post("/v1/events/\(moved.id)/check-in", token: bo.token, json: ShowingUpTests.near(10)).decode(
                Row.self, expecting: .ok)
            clock.advance(by: 1_900)
            record = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(record.games == 1 && record.attended == 0)
            clock.advance(by: 86_400)
            let ordinary = try await api.createEvent(organiser.token, startsIn: 3_660, duration: 3_600, now: clock.now())
            try await api.join(ordinary.id, token: bo.token)
            clock.advance(by: 3_661)
            _ = try await api.post("/v1/events/\(ordinary.id)/check-in", token: bo.token, json: ShowingUpTests.near(10)).decode(
                Row.self, expecting: .ok)
            clock.advance(by: 3_700)
            record = try await api.get("/v1/me/record", token: bo.token).decode(Record.self, expecting: .ok)
            #expect(record.games == 2 && record.attended == 1 && record.noShows == 1)
        }
    }

    @Test("leaving a group near the start of its members-only game is a late cancellation, as leaving the game is", arguments: engines)
    func leavingTheGroup(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let admin = try await api.register("Admin")
            let player = try await api.register("Player")
            let group = try await GroupsTests.create(api, admin.token, policy: "public")
            _ = try await api.post("/v1/groups/\(group.id)/membership", token: player.token).decode(GroupsTests.Joined.self, expecting: .ok)
            let game = try await GroupEventsTests.groupEvent(
                api, admin.token, group: group.id, title: "Members' padel", membersOnly: true, now: clock.now(), startsIn: 600)
            try await api.join(game.id, token: player.token)
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: player.token).status == .noContent)
            let row = try #require(try await ShowingUpTests.sheet(api, game.id, admin.token).first { $0.user.id == player.id })
            #expect(row.outcome == "late_cancel" && !row.going)
        }
    }

    @Test(
        "a series' game that has started cannot be skipped (it stays on its players' records); a skip names a coming date of the series",
        arguments: engines)
    func skipLeavesStartedGames(engine: DatabaseEngine) async throws {
        let clock = try SeriesTests.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let first = try SeriesTests.tuesday(after: clock, zone: "Europe/Copenhagen")
            let series = try await SeriesTests.create(api, organiser.token, zone: "Europe/Copenhagen", first: first)
            let path = "/v1/series/\(series.id)/skips"
            for date in [first.adding(days: 1), first.adding(days: -7), first.adding(days: 7 * 120)] {
                let refused = try await api.post(path, token: organiser.token, json: ["date": date.description])
                #expect(refused.status == .unprocessableContent, "\(date)")
            }
            let start = try #require(RFC3339.parse(series.upcoming[0].startsAt))
            clock.advance(by: start.timeIntervalSince(clock.now()) + 60)
            let started = try await api.post(path, token: organiser.token, json: ["date": first.description])
            #expect(started.status == .conflict)
            #expect(try started.errorCode == "game_started")
            #expect(try await api.event(series.upcoming[0].eventId, token: organiser.token).status == .active)
            #expect(
                try await api.post(path, token: organiser.token, json: ["date": first.adding(days: 7).description]).status == .noContent)
        }
    }
}

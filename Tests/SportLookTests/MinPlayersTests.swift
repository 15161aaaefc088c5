import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Minimum players: game on once, or cancelled once at the decision time", .timeLimit(.minutes(10)))
struct MinPlayersTests {
    static func game(_ api: API, _ token: String, clock: ManualClock, startsIn: TimeInterval, capacity: Int?, minPlayers: Int, decide: Int)
        async throws -> API.Event
    {
        var body: [String: Any] = [
            "title": "Padel four", "sport": "padel", "starts_at": RFC3339.format(clock.now().addingTimeInterval(startsIn)),
            "location": ["lat": 55.6761, "lon": 12.5683], "min_players": minPlayers, "decide_minutes": decide,
        ]
        if let capacity { body["capacity"] = capacity }
        return try await api.post("/v1/events", token: token, json: body).decode(expecting: .created)
    }

    static func decisions(_ services: AppServices, _ event: String) async throws -> [Date] {
        try await services.scheduler.due(.gameDecision, of: .event(try #require(UUID(uuidString: event))))
    }

    @Test(
        "when the minimum is reached everyone going is told \"game on\" once; the decision is dropped and the game stays on when someone leaves",
        arguments: engines)
    func gameOn(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            let event = try await Self.game(
                api, organiser.token, clock: clock, startsIn: 6 * 3_600, capacity: 4, minPlayers: 2, decide: 120)
            let start = event.startsAt
            let shown = try await api.get("/v1/events/\(event.id)", token: ann.token).text
            #expect(shown.contains("\"min_players\":2,\"decide_minutes\":120,\"game_on\":false"))
            #expect(try await Self.decisions(services, event.id) == [start.addingTimeInterval(-7_200)])
            try await api.join(event.id, token: ann.token)
            try await api.join(event.id, token: bo.token)
            try await eventually("game on told") {
                for token in [organiser.token, ann.token, bo.token] where try await api.told(token, .gameOn, about: event.id).count != 1 {
                    return false
                }
                return true
            }
            #expect(try await api.get("/v1/events/\(event.id)", token: ann.token).text.contains("\"game_on\":true"))
            #expect(try await Self.decisions(services, event.id).isEmpty)
            // Later arrivals and leavers change nothing: told once, still on past the decision time.
            try await api.join(event.id, token: cy.token)
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: ann.token)
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: bo.token)
            clock.advance(by: 5 * 3_600)
            try await services.runDueJobs()
            #expect(try await api.event(event.id, token: cy.token).status == .active)
            #expect(try await api.told(cy.token, .gameOn, about: event.id).isEmpty)
            for token in [organiser.token, ann.token, bo.token] { #expect(try await api.told(token, .gameOn, about: event.id).count == 1) }
        }
    }

    @Test(
        "too few going at the decision time: cancelled once, and everyone going, waitlisted or maybe told why; a moved start moves the decision",
        arguments: engines)
    func notEnough(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let wes = try await api.register("Wes")
            let may = try await api.register("May")
            let event = try await Self.game(api, organiser.token, clock: clock, startsIn: 6 * 3_600, capacity: 2, minPlayers: 2, decide: 60)
            #expect(try await api.join(event.id, token: ann.token).status == .going)
            // Capacity 2 with a minimum of 2: lowering the places below the minimum is refused.
            let lower = try await api.patch("/v1/events/\(event.id)", token: organiser.token, json: ["capacity": 1])
            #expect(lower.status == .unprocessableContent)
            #expect(try lower.errorFields["min_players"] != nil)
            #expect(try await api.post("/v1/events/\(event.id)/maybe", token: may.token).status == .ok)
            // The start moves two hours later: so does the decision.
            let moved = clock.now().addingTimeInterval(8 * 3_600)
            _ = try await api.patch("/v1/events/\(event.id)", token: organiser.token, json: ["starts_at": RFC3339.format(moved)]).decode(
                API.Event.self, expecting: .ok)
            #expect(try await Self.decisions(services, event.id) == [moved.addingTimeInterval(-3_600)])
            // A minute before the decision: still on the cards.
            clock.advance(by: 7 * 3_600 - 60)
            try await services.runDueJobs()
            #expect(try await api.event(event.id, token: ann.token).status == .active)
            clock.advance(by: 61)
            try await eventually("cancelled for want of players") { try await api.event(event.id, token: ann.token).status == .cancelled }
            try await eventually("everyone told") {
                for token in [organiser.token, ann.token, may.token]
                where try await api.told(token, .eventCancelled, about: event.id).count != 1 { return false }
                return true
            }
            let notice = try #require(try await api.told(ann.token, .eventCancelled, about: event.id).first)
            #expect(notice.data.reason == "not_enough_players")
            #expect(try await api.told(wes.token, .eventCancelled, about: event.id).isEmpty)
            #expect(try await services.scheduler.due(.reminder, of: .event(try #require(UUID(uuidString: event.id)))).isEmpty)
            // A decision time already past is refused.
            let late = try await api.post(
                "/v1/events", token: organiser.token,
                json: [
                    "title": "Too soon", "sport": "padel", "starts_at": RFC3339.format(clock.now().addingTimeInterval(1_800)),
                    "location": ["lat": 55.6761, "lon": 12.5683], "min_players": 2, "decide_minutes": 60,
                ])
            #expect(late.status == .unprocessableContent)
            #expect(try late.errorFields["decide_minutes"] != nil)
        }
    }

    @Test("a decision moved later is not taken early; places out on offer put the decision off until they are taken", arguments: engines)
    func decisionsPutOff(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock, queueClock: clock,
            configure: {
                $0.jobWorkers = 0
                $0.waitlistOfferHours = 24
            }
        ) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let cy = try await api.register("Cy")
            // X needs two and has Ann; Y has one place, Ann in it and Cy waiting.
            let x = try await Self.game(api, organiser.token, clock: clock, startsIn: 6 * 3_600, capacity: 4, minPlayers: 2, decide: 120)
            try await api.join(x.id, token: ann.token)
            let y = try await api.createEvent(organiser.token, startsIn: 6 * 3_600, capacity: 1, now: clock.now())
            try await api.join(y.id, token: ann.token)
            #expect(try await api.join(y.id, token: cy.token).status == .waitlisted)
            @Sendable func decide(_ event: API.Event) async throws {
                try await services.events.decide(
                    try #require(UUID(uuidString: event.id)), startingAt: event.startsAt)
            }
            // X's decision time comes, but its organiser has just moved it to half an hour before the start.
            clock.advance(by: 4 * 3_600 + 1)
            _ = try await api.patch("/v1/events/\(x.id)", token: organiser.token, json: ["decide_minutes": 30]).decode(
                API.Event.self, expecting: .ok)
            try await decide(x)
            #expect(try await api.event(x.id, token: ann.token).status == .active)
            // Y gets a second place and needs two, decided in five minutes: the place is offered to Cy.
            _ = try await api.patch(
                "/v1/events/\(y.id)", token: organiser.token, json: ["capacity": 2, "min_players": 2, "decide_minutes": 115]
            )
            .decode(API.Event.self, expecting: .ok)
            let offer = try #require(
                try await api.event(y.id, token: cy.token).myOfferExpiresAt)
            // At the decision one is going and one place is out on offer: decided when the offer is settled.
            clock.advance(by: 5 * 60 + 1)
            try await decide(y)
            #expect(try await api.event(y.id, token: ann.token).status == .active)
            #expect(try await Self.decisions(services, y.id) == [offer.addingTimeInterval(1)])
            // Cy takes it: game on, and the put-off decision finds nothing to do.
            _ = try await api.post("/v1/events/\(y.id)/offer", token: cy.token).decode(API.Joined.self, expecting: .ok)
            #expect(try await api.get("/v1/events/\(y.id)", token: ann.token).text.contains("\"game_on\":true"))
            #expect(try await Self.decisions(services, y.id).isEmpty)
            clock.advance(by: 30 * 60)
            try await decide(y)
            #expect(try await api.event(y.id, token: ann.token).status == .active)
        }
    }

    @Test("with two instances, three decisions at once cancel once and tell each person once; three joins at once say game on once")
    func twoInstances() async throws {
        let clock = ManualClock()
        try await withTwoInstances(clock: clock, queueClock: clock, configure: { $0.jobWorkers = 0 }) { one, two, first, second in
            let organiser = try await one.register("Org")
            let ann = try await one.register("Ann")
            let bo = try await two.register("Bo")
            let cy = try await two.register("Cy")
            let di = try await one.register("Di")
            let thin = try await Self.game(one, organiser.token, clock: clock, startsIn: 6 * 3_600, capacity: 10, minPlayers: 3, decide: 60)
            try await one.join(thin.id, token: ann.token)
            let full = try await Self.game(one, organiser.token, clock: clock, startsIn: 6 * 3_600, capacity: 10, minPlayers: 2, decide: 60)
            async let b = two.join(full.id, token: bo.token)
            async let c = two.join(full.id, token: cy.token)
            async let d = one.join(full.id, token: di.token)
            _ = try await (b, c, d)
            clock.advance(by: 5 * 3_600 + 1)
            let (id, start) = (try #require(UUID(uuidString: thin.id)), thin.startsAt)
            async let x: Void = first.events.decide(id, startingAt: start)
            async let y: Void = second.events.decide(id, startingAt: start)
            async let z: Void = first.events.decide(id, startingAt: start)
            _ = try await (x, y, z)
            let counts = try await first.database.read { sql in
                try await sql.raw(
                    """
                    SELECT kind, COUNT(*) AS n FROM jobs WHERE dedupe_key LIKE \(bind: "%:" + thin.id + ":%") OR dedupe_key LIKE \(bind: "%:" + full.id + ":%") GROUP BY kind
                    """
                ).all().reduce(into: [String: Int]()) {
                    $0[try $1.decode(column: "kind", as: String.self)] = try $1.decode(column: "n", as: Int.self)
                }
            }
            // The thin game: cancelled once, the organiser and Ann told once each. The full one: game on to the organiser and the first two in.
            #expect(counts["event_cancelled"] == 2)
            #expect(counts["game_on"] == 3)
            #expect(try await one.event(thin.id, token: ann.token).status == .cancelled)
            #expect(try await one.event(full.id, token: bo.token).status == .active)
        }
    }
}

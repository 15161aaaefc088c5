import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Waitlist offers: a freed place close to the start is offered for a while, then passes on", .timeLimit(.minutes(10)))
struct WaitlistOfferTests {
    static func shown(_ api: API, _ event: String, _ token: String) async throws -> API.Event {
        try await api.event(event, token: token)
    }

    @Test(
        "more than a day ahead the next in line moves up at once; within a day the place is offered for 30 minutes, held, taken or passed on",
        arguments: engines)
    func offers(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.waitlistOfferHours = 24 }) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            let di = try await api.register("Di")
            let ed = try await api.register("Ed")
            let event = try await api.createEvent(organiser.token, startsIn: 3 * 86_400, duration: 3_600, capacity: 1, now: clock.now())
            try await api.join(event.id, token: ann.token)
            for person in [bo, cy, di] { #expect(try await api.join(event.id, token: person.token).status == .waitlisted) }
            // Three days ahead: Ann leaves, Bo moves up at once.
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: ann.token)
            #expect(try await Self.shown(api, event.id, bo.token).myStatus?.value1 == .going)
            // Within the last day: Bo leaves, and the place is offered to Cy, held for her.
            clock.advance(by: 2 * 86_400 + 3_600)
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: bo.token)
            let cyView = try await Self.shown(api, event.id, cy.token)
            #expect(cyView.myStatus?.value1 == .waitlisted && cyView.spotsLeft == 0)
            let expires = try #require(cyView.myOfferExpiresAt)
            #expect(expires == clock.now().addingTimeInterval(30 * 60))
            try await eventually("Cy told of the offer") { try await api.told(cy.token, .waitlistOffer, about: event.id).count == 1 }
            // Her list of games shows the offer too.
            let mine = try await api.get("/v1/me/events", token: cy.token).text
            #expect(mine.contains("\"my_offer_expires_at\":\"\(RFC3339.format(expires))\""))
            // Held: Ed joining now is put on the waitlist; Di has nothing to take.
            #expect(try await api.join(event.id, token: ed.token).status == .waitlisted)
            let none = try await api.post("/v1/events/\(event.id)/offer", token: di.token)
            #expect(none.status == .conflict)
            #expect(try none.errorCode == "no_offer")
            // Cy lets it run out: off the waitlist, told; Di is offered the place and takes it.
            clock.advance(by: 30 * 60 + 1)
            try await eventually("the offer passed to Di") { try await Self.shown(api, event.id, di.token).myOfferExpiresAt != nil }
            #expect(try await Self.shown(api, event.id, cy.token).myStatus == nil)
            try await eventually("Cy told it expired") { try await api.told(cy.token, .waitlistOfferExpired, about: event.id).count == 1 }
            let late = try await api.post("/v1/events/\(event.id)/offer", token: cy.token)
            #expect(late.status == .conflict)
            let taken = try await api.post("/v1/events/\(event.id)/offer", token: di.token).decode(API.Joined.self, expecting: .ok)
            #expect(taken.status == .going)
            #expect(
                try await api.post("/v1/events/\(event.id)/offer", token: di.token).decode(API.Joined.self, expecting: .ok).status
                    == .going)
            try await eventually("Di told she is in") { try await api.told(di.token, .waitlistPromoted, about: event.id).count == 1 }
            // Di leaves: Ed is offered it and declines; nobody is left to offer it to.
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: di.token)
            #expect(try await Self.shown(api, event.id, ed.token).myOfferExpiresAt != nil)
            #expect(try await api.delete("/v1/events/\(event.id)/offer", token: ed.token).status == .noContent)
            let after = try await Self.shown(api, event.id, ed.token)
            #expect(after.myStatus == nil && after.spotsLeft == 1)
        }
    }

    @Test(
        "places offered count as taken: capacity cannot drop below them; a start moved out of the window withdraws the offers and gives the places in order",
        arguments: engines)
    func offersAndEdits(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.waitlistOfferHours = 24 }) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            let di = try await api.register("Di")
            let event = try await api.createEvent(organiser.token, startsIn: 6 * 3_600, duration: 3_600, capacity: 2, now: clock.now())
            for person in [ann, bo, cy, di] { try await api.join(event.id, token: person.token) }
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: ann.token)
            #expect(try await Self.shown(api, event.id, cy.token).myOfferExpiresAt != nil)
            // Bo going and Cy's held place: two of the two.
            let lower = try await api.patch("/v1/events/\(event.id)", token: organiser.token, json: ["capacity": 1])
            #expect(lower.status == .unprocessableContent)
            #expect(try lower.errorFields["capacity"] != nil)
            // The game moves three days later: no offers then; Cy, first in line, simply goes.
            _ = try await api.patch(
                "/v1/events/\(event.id)", token: organiser.token,
                json: ["starts_at": RFC3339.format(clock.now().addingTimeInterval(3 * 86_400))]
            )
            .decode(API.Event.self, expecting: .ok)
            let cyView = try await Self.shown(api, event.id, cy.token)
            #expect(cyView.myStatus?.value1 == .going && cyView.myOfferExpiresAt == nil)
            let diView = try await api.event(event.id, token: di.token)
            #expect(diView.myStatus?.value1 == .waitlisted && diView.myPosition == 1)
        }
    }

    @Test(
        "with two instances, the offered person taking the place and a newcomer joining at once: the place is taken once, by the one it was offered to"
    )
    func raceForTheOfferedPlace() async throws {
        let clock = ManualClock()
        try await withTwoInstances(
            clock: clock, queueClock: clock,
            configure: {
                $0.jobWorkers = 0
                $0.waitlistOfferHours = 24
            }
        ) { one, two, first, _ in
            let organiser = try await one.register("Org")
            let ann = try await one.register("Ann")
            let bo = try await two.register("Bo")
            let newcomer = try await two.register("New")
            let other = try await one.register("Other")
            let event = try await one.createEvent(organiser.token, startsIn: 6 * 3_600, duration: 3_600, capacity: 1, now: clock.now())
            try await one.join(event.id, token: ann.token)
            #expect(try await one.join(event.id, token: bo.token).status == .waitlisted)
            _ = try await one.delete("/v1/events/\(event.id)/attendance", token: ann.token)
            async let take = one.post("/v1/events/\(event.id)/offer", token: bo.token)
            async let takeAgain = two.post("/v1/events/\(event.id)/offer", token: bo.token)
            async let join = two.post("/v1/events/\(event.id)/attendance", token: newcomer.token)
            async let join2 = one.post("/v1/events/\(event.id)/attendance", token: other.token)
            let (a, b, c, d) = try await (take, takeAgain, join, join2)
            #expect(a.status == .ok && b.status == .ok)
            #expect(try c.decode(API.Joined.self, expecting: .ok).status == .waitlisted)
            #expect(try d.decode(API.Joined.self, expecting: .ok).status == .waitlisted)
            let counts = try await first.database.read { sql in
                try await sql.raw(
                    "SELECT going_count, offered_count FROM events WHERE id = \(bind: try #require(UUID(uuidString: event.id)))"
                ).first()
                    .map { (try $0.decode(column: "going_count", as: Int.self), try $0.decode(column: "offered_count", as: Int.self)) }
            }
            #expect(counts?.0 == 1 && counts?.1 == 0)
            #expect(try await one.event(event.id, token: bo.token).myStatus?.value1 == .going)
        }
    }
}

import Foundation
import GeoGrid
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite(
    "A substitute from nearby: the right people offered the place, one of them takes it, and the player leaves without a late cancellation",
    .timeLimit(.minutes(10)))
struct SubstitutesTests {
    struct Request: Decodable {
        var id: String
        var status: String
        var offeredCount: Int
        @Nullable var filledBy: API.UserSummary?
        enum CodingKeys: String, CodingKey { case id, status, offeredCount = "offered_count", filledBy = "filled_by" }
    }
    struct Offer: Decodable {
        var id: String
        var eventTitle: String
        enum CodingKeys: String, CodingKey { case id, eventTitle = "event_title" }
    }

    static let place = (lat: 55.6761, lon: 12.5683)

    /// `metres` from the place, `degrees` clockwise from north.
    static func point(_ metres: Double, _ degrees: Double) -> (lat: Double, lon: Double) {
        let angle = degrees * .pi / 180
        return (
            place.lat + metres * cos(angle) / 111_195, place.lon + metres * sin(angle) / (111_195 * cos(place.lat * .pi / 180))
        )
    }

    @Test(
        "the place is offered to exactly the nearest 20 of the people a brute-force filter finds: near, discoverable, in the sport and level range, blocking nobody going",
        arguments: engines)
    func offeredToTheRightPeople(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let event = try await api.post(
                "/v1/events", token: organiser.token,
                json: [
                    "title": "Evening football", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                    "location": ["lat": Self.place.lat, "lon": Self.place.lon], "level": ["min": 2, "max": 4],
                ]
            ).decode(API.Event.self, expecting: .created).id
            try await TeamsTests.setLevel(api, player.token, 3)
            try await api.join(event, token: player.token)
            struct Person {
                var id: String
                var token: String
                var metres: Double
                var matches: Bool
            }
            var g = TeamsTests.SplitMix(state: 2026)
            var people: [Person] = []
            for n in 0..<56 {
                let person = try await api.register("Near\(n)")
                let metres = Double.random(in: 100...17_000, using: &g)
                let at = Self.point(metres, Double.random(in: 0..<360, using: &g))
                let discoverable = Double.random(in: 0..<1, using: &g) < 0.9
                let football = Double.random(in: 0..<1, using: &g) < 0.9
                let level: Double? = Double.random(in: 0..<1, using: &g) < 0.95 ? Double(Int.random(in: 3...9, using: &g)) / 2 : nil
                let blocks = Double.random(in: 0..<1, using: &g) < 0.05
                #expect(
                    try await api.patch(
                        "/v1/me", token: person.token,
                        json: [
                            "sports": football ? ["football"] : ["tennis"], "discoverable": discoverable,
                            "location": ["lat": at.lat, "lon": at.lon],
                        ]
                    ).status == .ok)
                if let level { try await TeamsTests.setLevel(api, person.token, level) }
                if blocks { #expect(try await api.post("/v1/users/\(player.id)/block", token: person.token).status == .noContent) }
                // A game for a level range finds people by their level in its sport (as people nearby does).
                let matches = discoverable && level.map { (2...4).contains($0) } == true && metres <= 15_000 && !blocks
                people.append(Person(id: person.id, token: person.token, metres: metres, matches: matches))
            }
            // One match is going already, so is not offered the place.
            let already = try #require(people.first { $0.matches })
            try await api.join(event, token: already.token)
            // The index has taken every profile (the change feed is asynchronous).
            let findable = Set(people.filter(\.matches).map(\.id))
            try await eventually("the index has everyone") {
                let seen = try await api.allPages(
                    API.PersonNearby.self,
                    "/v1/users/nearby?lat=\(Self.place.lat)&lon=\(Self.place.lon)&radius_km=15&sport=football&min_level=2&max_level=4",
                    token: organiser.token
                ).map(\.id)
                return findable.isSubset(of: Set(seen))
            }
            let expected = people.filter { $0.matches && $0.id != already.id }.sorted { $0.metres < $1.metres }.prefix(
                Substitutes.maxOffers)
            #expect(people.filter(\.matches).count > Substitutes.maxOffers, "more match than are offered: the cap is tested")

            let asked = try await api.post("/v1/events/\(event)/substitute", token: player.token).decode(Request.self, expecting: .created)
            #expect(asked.status == "open" && asked.offeredCount == expected.count)
            let offered = try await services.substitutes.store.offered(UUID(uuidString: asked.id)!)
            #expect(Set(offered.map(\.lowercased)) == Set(expected.map(\.id)))
            // Each offered person sees the offer; someone else does not.
            let first = expected[expected.startIndex]
            #expect(try await api.page(Offer.self, "/v1/me/substitute-offers", token: first.token).items.map(\.id) == [asked.id])
            let outsider = try #require(people.first { !$0.matches })
            #expect(try await api.page(Offer.self, "/v1/me/substitute-offers", token: outsider.token).items.isEmpty)
            #expect(try await api.post("/v1/substitutes/\(asked.id)/accept", token: outsider.token).status == .notFound)
            try await eventually("told") {
                try await api.told(first.token, .substituteOffer, about: event).first?.title == "A place for you: Evening football"
            }
        }
    }

    @Test(
        "of two who accept at once exactly one takes the place; the player is out with no late cancellation; a named person, the waitlist, limits and expiry",
        arguments: engines)
    func takenOnce(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let event = try await api.createEvent(organiser.token, startsIn: 3 * 3_600, duration: 3_600, capacity: 2, now: clock.now()).id
            try await api.join(event, token: player.token)
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            for person in [ann, bo] {
                #expect(
                    try await api.patch(
                        "/v1/me", token: person.token,
                        json: ["sports": ["football"], "discoverable": true, "location": ["lat": 48.8566, "lon": 2.3522]]
                    ).status == .ok)
            }
            try await eventually("both findable") {
                try await api.allPages(API.PersonNearby.self, "/v1/users/nearby?lat=48.8566&lon=2.3522&radius_km=5", token: organiser.token)
                    .count == 2
            }
            // Only a player going asks; the organiser cannot.
            #expect(try await api.post("/v1/events/\(event)/substitute", token: ann.token).status == .forbidden)
            #expect(try await api.post("/v1/events/\(event)/substitute", token: organiser.token).status == .conflict)
            // Teams are out, the player fixed to team 2: the substitute takes that over too.
            let teams = try await api.put(
                "/v1/events/\(event)/teams", token: organiser.token, json: ["publish": true, "fixed": [["user_id": player.id, "team": 2]]]
            ).decode(TeamsTests.Shown.self, expecting: .ok)
            let playersTeam = try #require(teams.teamOf[player.id])
            #expect(playersTeam == 2)
            let asked = try await api.post("/v1/events/\(event)/substitute", token: player.token).decode(Request.self, expecting: .created)
            #expect(asked.offeredCount == 2)
            let twice = try await api.post("/v1/events/\(event)/substitute", token: player.token)
            #expect(try twice.errorCode == "substitute_asked")
            // Ann and Bo accept at once: one place, one taker.
            async let a = api.post("/v1/substitutes/\(asked.id)/accept", token: ann.token)
            async let b = api.post("/v1/substitutes/\(asked.id)/accept", token: bo.token)
            let answers = [try await a, try await b]
            #expect(answers.map(\.status.code).sorted() == [200, 409], "\(answers.map(\.text))")
            let winner = answers[0].status == .ok ? ann : bo
            let filled = try answers.first { $0.status == .ok }!.decode(Request.self, expecting: .ok)
            #expect(filled.status == "filled" && filled.filledBy?.id == winner.id)
            #expect(try await api.event(event, token: winner.token).myStatus?.value1 == .going)
            #expect(try await api.event(event, token: player.token).myStatus == nil)
            let after = try await api.get("/v1/events/\(event)/teams", token: organiser.token).decode(TeamsTests.Shown.self, expecting: .ok)
            #expect(after.teamOf == [organiser.id: teams.teamOf[organiser.id]!, winner.id: playersTeam], "\(after.teamOf)")
            #expect(after.teams[1].players.first { $0.id == winner.id }?.fixed == true, "the keeper's place is handed on whole")
            let shown = try await api.event(event, token: organiser.token)
            #expect(shown.goingCount == 1)
            try await eventually("the player told") { try await !api.told(player.token, .substituteFound, about: event).isEmpty }
            // Two hours before the start (within the late-cancel time) and yet no late cancellation: the place was filled.
            clock.advance(by: 3 * 3_600 + 60)
            let sheet = try await api.get("/v1/events/\(event)/sheet", token: organiser.token).text
            #expect(!sheet.contains(player.id), "the player is not on the sheet: no late cancellation")

            // A game with a waitlist sends the player to leave: the first waiting takes the place.
            let full = try await api.createEvent(organiser.token, startsIn: 86_400, capacity: 1, now: clock.now()).id
            try await api.join(full, token: player.token)
            #expect(try await api.join(full, token: ann.token).status == .waitlisted)
            let waiting = try await api.post("/v1/events/\(full)/substitute", token: player.token)
            #expect(try waiting.errorCode == "waitlist_first")

            // A named person alone; it runs out 30 minutes before the start if nobody takes it.
            let other = try await api.createEvent(organiser.token, startsIn: 2 * 3_600, now: clock.now()).id
            try await api.join(other, token: player.token)
            let named = try await api.post("/v1/events/\(other)/substitute", token: player.token, json: ["user_id": bo.id]).decode(
                Request.self, expecting: .created)
            #expect(named.offeredCount == 1)
            #expect(try await api.page(Offer.self, "/v1/me/substitute-offers", token: ann.token).items.isEmpty)
            // A misspelt field is refused rather than taken for "anyone nearby".
            let misspelt = try await api.post("/v1/events/\(other)/substitute", token: player.token, json: ["user": bo.id])
            #expect(misspelt.status == .unprocessableContent || misspelt.status == .badRequest, "\(misspelt.text)")
            clock.advance(by: 90 * 60 + 60)
            try await services.runDueJobs()
            #expect(
                try await api.get("/v1/substitutes/\(named.id)", token: player.token).decode(Request.self, expecting: .ok).status
                    == "expired")
            let late = try await api.post("/v1/substitutes/\(named.id)/accept", token: bo.token)
            #expect(try late.errorCode == "offer_taken")
            #expect(
                try await api.get("/v1/substitutes/\(named.id)", token: bo.token).status == .notFound, "a request is its player's to see")

            // Naming someone the game cannot take answers as naming anyone does, and nobody is
            // told: Ann blocked the organiser of this game, so she is not offered it.
            let blockedGame = try await api.createEvent(organiser.token, title: "Blocked game", startsIn: 86_400, now: clock.now()).id
            try await api.join(blockedGame, token: player.token)
            #expect(try await api.post("/v1/users/\(organiser.id)/block", token: ann.token).status == .noContent)
            let quiet = try await api.post("/v1/events/\(blockedGame)/substitute", token: player.token, json: ["user_id": ann.id])
                .decode(Request.self, expecting: .created)
            #expect(quiet.offeredCount == 1)
            #expect(
                try await api.get("/v1/substitutes/\(quiet.id)", token: player.token).decode(Request.self, expecting: .ok).offeredCount == 1
            )
            #expect(try await api.page(Offer.self, "/v1/me/substitute-offers", token: ann.token).items.isEmpty)
            // Leaving the game withdraws the request.
            #expect(try await api.delete("/v1/events/\(blockedGame)/attendance", token: player.token).status == .noContent)
            #expect(
                try await api.get("/v1/substitutes/\(quiet.id)", token: player.token).decode(Request.self, expecting: .ok).status
                    == "withdrawn")

            // At most three requests a day (the quiet one counts).
            let fourth = try await api.createEvent(organiser.token, startsIn: 86_400, now: clock.now()).id
            try await api.join(fourth, token: player.token)
            let limited = try await api.post("/v1/events/\(fourth)/substitute", token: player.token)
            #expect(limited.status == .tooManyRequests)
        }
    }
}

import Foundation
import GeoGrid
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// A point `metres` east of `(lat, lon)`.
func east(of lat: Double, _ lon: Double, metres: Double) -> (Double, Double) {
    (lat, lon + metres / (GeoMath.metresPerDegree * cos(lat * .pi / 180)))
}

@Suite("People nearby, blocking and reports", .timeLimit(.minutes(10)))
struct PeopleTests {
    @Test("ranking and filters on a neighbourhood with known answers", arguments: engines)
    func neighbourhood(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let (lat, lon) = (48.8566, 2.3522)
            func person(_ name: String, sports: [String], metres: Double?, discoverable: Bool = true) async throws -> String {
                let (token, id) = try await api.register(name)
                var body: [String: Any] = ["sports": sports, "discoverable": discoverable]
                if let metres {
                    let (a, o) = east(of: lat, lon, metres: metres)
                    body["location"] = ["lat": a, "lon": o]
                }
                #expect(try await api.patch("/v1/me", token: token, json: body).status == .ok)
                _ = token
                return id
            }
            let (me, _) = try await api.register("Me")
            _ = try await api.patch(
                "/v1/me", token: me, json: ["sports": ["tennis", "running"], "discoverable": true, "location": ["lat": lat, "lon": lon]])
            let a = try await person("A", sports: ["tennis", "running"], metres: 1_000)
            let b = try await person("B", sports: ["tennis"], metres: 600)
            let c = try await person("C", sports: ["football"], metres: 300)
            let d = try await person("D", sports: ["running", "tennis", "golf"], metres: 3_000)
            _ = try await person("E", sports: ["tennis"], metres: 500, discoverable: false)
            _ = try await person("F", sports: ["tennis"], metres: nil)
            _ = try await person("G", sports: ["running"], metres: 20_000)
            let reply = try await api.get("/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=10", token: me)
            #expect(reply.status == .ok)
            let found = try reply.decode(API.Page<API.PersonNearby>.self).items
            #expect(found.map(\.id) == [a, d, b, c])
            let first = try #require(found.first)
            // 1 km away, seen through a ~500 m grid and half-kilometre steps.
            #expect([0.5, 1.0, 1.5].contains(first.distanceKm))
            #expect(first.sharedSports == ["tennis", "running"])
            // Absent, not merely null: read from the raw JSON.
            let firstAsSent = try #require(try reply.decode(JSONValue.self)["items"]?.array?.first?.object)
            #expect(firstAsSent["location"] == nil && firstAsSent["email"] == nil)
            #expect(found.last?.distanceKm == 0.5)
            let football = try await api.page(
                API.PersonNearby.self, "/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=10&sport=football", token: me)
            #expect(football.items.map(\.id) == [c])
            let paged = try await api.allPages(
                API.PersonNearby.self, "/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=50&limit=2", token: me)
            #expect(paged.count == 5)
            #expect(try await api.get("/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=51", token: me).status == .unprocessableContent)
            // Hiding again takes one out at once.
            #expect(
                try await api.page(API.PersonNearby.self, "/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=2", token: me).items.count == 3)
        }
    }

    @Test("random queries equal a brute-force ranking over snapped positions, by sport and level too", arguments: engines)
    func randomQueries(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            var rng = TestRandom(seed: 77)
            let catalogue = ["tennis", "running", "football", "padel", "yoga"]
            struct Person {
                var id: String
                var token: String
                var point: GeoPoint
                var sports: Set<String>
                var levels: [String: Int] = [:]
            }
            var people: [Person] = []
            let (me, meID) = try await api.register("Caller")
            let mySports: Set<String> = ["tennis", "padel"]
            _ = try await api.patch("/v1/me", token: me, json: ["sports": Array(mySports), "discoverable": false])
            for i in 0..<80 {
                let (token, id) = try await api.register("P\(i)")
                let lat = 40.4168 + Double.random(in: -0.15...0.15, using: &rng)
                let lon = -3.7038 + Double.random(in: -0.2...0.2, using: &rng)
                let sports = Set(catalogue.filter { _ in Bool.random(using: &rng) })
                let reply = try await api.patch(
                    "/v1/me", token: token, json: ["sports": Array(sports), "discoverable": true, "location": ["lat": lat, "lon": lon]])
                let stored = try #require(try reply.decode(API.PrivateProfile.self).location).value1
                people.append(Person(id: id, token: token, point: GeoPoint(latitude: stored.lat, longitude: stored.lon)!, sports: sports))
            }
            // Levels in padel and tennis for most, whatever their favourite sports; some
            // rate again later, or forget one.
            for round in 0..<2 {
                for i in people.indices where Int.random(in: 0..<4, using: &rng) != 0 {
                    var levels: [String: Any] = [:]
                    for sport in ["padel", "tennis"] where Bool.random(using: &rng) {
                        if round == 1 && people[i].levels[sport] != nil && Bool.random(using: &rng) {
                            levels[sport] = NSNull()
                            people[i].levels[sport] = nil
                        } else {
                            let halves = Int.random(in: 0...14, using: &rng)
                            levels[sport] = Double(halves) / 2
                            people[i].levels[sport] = halves
                        }
                    }
                    guard !levels.isEmpty else { continue }
                    #expect(try await api.patch("/v1/me/player", token: people[i].token, json: ["levels": levels]).status == .ok)
                }
            }
            var leveled = 0
            for q in 0..<40 {
                let center = GeoPoint(
                    latitude: 40.4168 + Double.random(in: -0.1...0.1, using: &rng),
                    longitude: -3.7038 + Double.random(in: -0.1...0.1, using: &rng))!
                let radius = [1.0, 3, 8, 20][q % 4]
                var sport: String? = q % 3 == 0 ? catalogue[q % catalogue.count] : nil
                var levels: ClosedRange<Int>?
                if q % 5 >= 3 {
                    sport = q % 2 == 0 ? "padel" : "tennis"
                    let low = Int.random(in: 0...10, using: &rng)
                    levels = low...Int.random(in: low...14, using: &rng)
                }
                var ranked: [(id: String, shared: Int, distance: Double, level: Int?)] = []
                for p in people where p.id != meID {
                    if let levels {
                        guard let level = p.levels[sport!], levels.contains(level) else { continue }
                    } else if let sport, !p.sports.contains(sport) {
                        continue
                    }
                    let d = GeoMath.distance(center, p.point)
                    if d <= radius * 1_000 {
                        ranked.append((p.id, p.sports.intersection(mySports).count, d, levels == nil ? nil : p.levels[sport!]))
                    }
                }
                ranked.sort { a, b in
                    if a.shared != b.shared { return a.shared > b.shared }
                    if a.distance != b.distance { return a.distance < b.distance }
                    return UUID(uuidString: a.id)!.geoKey < UUID(uuidString: b.id)!.geoKey
                }
                let want = ranked.map(\.id)
                var path = "/v1/users/nearby?lat=\(center.latitude)&lon=\(center.longitude)&radius_km=\(radius)&limit=7"
                if let sport { path += "&sport=\(sport)" }
                if let levels {
                    path += "&min_level=\(Double(levels.lowerBound) / 2)&max_level=\(Double(levels.upperBound) / 2)"
                    leveled += want.count
                }
                let got = try await api.allPages(API.PersonNearby.self, path, token: me)
                #expect(got.map(\.id) == want, "query \(q): \(path)")
                #expect(got.map { $0.level.map { Int($0 * 2) } } == ranked.map(\.level), "each shows the level asked about")
            }
            #expect(leveled > 10, "the level queries find people")
            // Someone who hides leaves the level search at once, as they leave the other.
            let everyPadel = "/v1/users/nearby?lat=40.4168&lon=-3.7038&radius_km=50&sport=padel&min_level=0&max_level=7"
            let rated = try #require(people.first { $0.levels["padel"] != nil && $0.id != meID })
            #expect(try await api.allPages(API.PersonNearby.self, everyPadel, token: me).contains { $0.id == rated.id })
            #expect(try await api.patch("/v1/me", token: rated.token, json: ["discoverable": false]).status == .ok)
            #expect(
                try await api.allPages(API.PersonNearby.self, everyPadel, token: me).map(\.id).sorted()
                    == people.filter { $0.levels["padel"] != nil && $0.id != rated.id }.map(\.id).sorted())
            // A level is a level in one sport, and a range runs upwards.
            for bad in [
                "min_level=3", "sport=padel&min_level=4&max_level=3", "sport=padel&max_level=7.5", "sport=padel&min_level=x",
                "sport=padel&min_level=1e300",
            ] {
                #expect(try await api.get("/v1/users/nearby?lat=40.4&lon=-3.7&\(bad)", token: me).status == .unprocessableContent, "\(bad)")
            }
        }
    }

    @Test("no answer ever holds another person's exact coordinates", arguments: engines)
    func exactCoordinatesNeverLeave(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let exact: [(Double, Double)] = [(51.5072178, -0.1275862), (51.5093731, -0.1251197), (51.5049112, -0.1313456)]
            var tokens: [String] = []
            for (i, (lat, lon)) in exact.enumerated() {
                let (token, _) = try await api.register("Secret\(i)")
                tokens.append(token)
                _ = try await api.patch(
                    "/v1/me", token: token, json: ["sports": ["tennis"], "discoverable": true, "location": ["lat": lat, "lon": lon]])
            }
            let event = try await api.createEvent(tokens[0], lat: 51.5072, lon: -0.1276, now: Date()).id
            for token in tokens {
                _ = try await api.get("/v1/me", token: token)
                _ = try await api.allPages(
                    API.PersonNearby.self, "/v1/users/nearby?lat=51.5072&lon=-0.1276&radius_km=5&limit=1", token: token)
                _ = try await api.post("/v1/events/\(event)/attendance", token: token)
                _ = try await api.get("/v1/events/\(event)/attendees", token: token)
            }
            let me = try await api.me(tokens[1])
            _ = try await api.get("/v1/users/\(me.id)", token: tokens[0])
            // Every JSON answer of the whole test run so far, this suite's included.
            let bodies = ResponseLog.all
            #expect(bodies.count > 20)
            for (lat, lon) in exact {
                for text in [String(lat), String(lon), String(format: "%.6f", lat), String(format: "%.6f", lon)] {
                    let leaks = bodies.filter { $0.body.contains(text) }
                    #expect(leaks.isEmpty, "\(text) appeared in \(leaks.first?.path ?? "")")
                }
            }
        }
    }

    @Test("blocks hide both ways in discovery, stop invitations, and hide chat messages", arguments: engines)
    func blocking(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (alice, aliceID) = try await api.register("Alice")
            let (bob, bobID) = try await api.register("Bob")
            for token in [alice, bob] {
                _ = try await api.patch(
                    "/v1/me", token: token, json: ["sports": ["tennis"], "discoverable": true, "location": ["lat": 45.76, "lon": 4.84]])
            }
            let nearby = "/v1/users/nearby?lat=45.76&lon=4.84&radius_km=5"
            #expect(try await api.page(API.PersonNearby.self, nearby, token: alice).items.count == 1)
            #expect(try await api.post("/v1/users/\(aliceID)/block", token: alice).status == .unprocessableContent)
            #expect(try await api.post("/v1/users/\(UUID())/block", token: alice).status == .notFound)
            #expect(try await api.post("/v1/users/\(bobID)/block", token: alice).status == .noContent)
            #expect(try await api.post("/v1/users/\(bobID)/block", token: alice).status == .noContent)
            #expect(try await api.page(API.PersonNearby.self, nearby, token: alice).items.isEmpty)
            #expect(try await api.page(API.PersonNearby.self, nearby, token: bob).items.isEmpty)
            #expect(try await api.get("/v1/users/\(aliceID)", token: bob).status == .notFound)
            #expect(try await api.blocks(alice).map(\.id) == [bobID])

            // Alice cannot invite Bob; Bob's invitation to Alice is dropped silently (he is not told).
            let event = try await api.createEvent(alice, now: clock.now()).id
            #expect(try await api.post("/v1/events/\(event)/invitations", token: alice, json: ["user_ids": [bobID]]).status == .forbidden)
            let bobs = try await api.createEvent(bob, now: clock.now()).id
            #expect(try await api.post("/v1/events/\(bobs)/invitations", token: bob, json: ["user_ids": [aliceID]]).status == .created)
            #expect(try await api.invitations(alice).isEmpty)

            // In a shared chat, Alice no longer sees Bob's messages, in history or live.
            _ = try await api.post("/v1/events/\(event)/attendance", token: bob)
            _ = try await api.post("/v1/events/\(event)/messages", token: bob, json: ["body": "hidden", "client_id": "b1"])
            _ = try await api.post("/v1/events/\(event)/messages", token: alice, json: ["body": "shown", "client_id": "a1"])
            let history = try await api.messages(event, token: alice)
            #expect(history.map(\.body) == ["shown"])
            #expect(try await api.messages(event, token: bob).count == 2)
            let socket = try await TestSocket.connect(try socketURL(api), token: alice)
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            _ = try await api.post("/v1/events/\(event)/messages", token: bob, json: ["body": "hidden too", "client_id": "b2"])
            _ = try await api.post("/v1/events/\(event)/messages", token: alice, json: ["body": "mine", "client_id": "a2"])
            try await socket.waitFor("own message") { _ in try socket.messageSeqs.contains(4) }
            #expect(try socket.messageSeqs == [2, 4])
            await socket.close()

            #expect(try await api.delete("/v1/users/\(bobID)/block", token: alice).status == .noContent)
            #expect(try await api.page(API.PersonNearby.self, nearby, token: alice).items.count == 1)
            #expect(try await api.blocks(alice).isEmpty)
        }
    }

    @Test("the caller and people blocked either way take no place on a page: every page but the last is full", arguments: engines)
    func blockedTakeNoPlace(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let (lat, lon) = (52.52, 13.405)
            let (me, meID) = try await api.register("Me")
            _ = try await api.patch(
                "/v1/me", token: me, json: ["sports": ["tennis", "running"], "discoverable": true, "location": ["lat": lat, "lon": lon]])
            // Twelve people, the nearer the more sports shared, so that the people blocked
            // would have led the first pages.
            var ids: [String] = []
            for i in 0..<12 {
                let (token, id) = try await api.register("P\(i)")
                let (a, o) = east(of: lat, lon, metres: 700 * Double(i + 1))
                let sports = i < 6 ? ["tennis", "running"] : ["tennis"]
                #expect(
                    try await api.patch(
                        "/v1/me", token: token, json: ["sports": sports, "discoverable": true, "location": ["lat": a, "lon": o]]
                    ).status == .ok)
                ids.append(id)
                if i == 1 { #expect(try await api.post("/v1/users/\(meID)/block", token: token).status == .noContent) }
            }
            for i in [0, 2, 3, 6] { #expect(try await api.post("/v1/users/\(ids[i])/block", token: me).status == .noContent) }
            let visible = ids.indices.filter { ![0, 1, 2, 3, 6].contains($0) }.map { ids[$0] }
            let path = "/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=20&limit=2"
            var got: [String] = []
            var cursor: String?
            repeat {
                let page = try await api.page(API.PersonNearby.self, path + (cursor.map { "&cursor=\($0)" } ?? ""), token: me)
                got += page.items.map(\.id)
                cursor = page.nextCursor
                if cursor != nil { #expect(page.items.count == 2, "a page followed by another is full") }
            } while cursor != nil && got.count <= ids.count
            #expect(got == visible)
        }
    }

    @Test("reports are stored once per reporter and target", arguments: engines)
    func reports(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let (token, _) = try await api.register("Reporter")
            let (_, badID) = try await api.register("Troll")
            let first = try await api.post(
                "/v1/reports", token: token,
                json: ["target_type": "user", "target_id": badID, "reason": "harassment", "details": "Rude in chat"])
            #expect(first.status == .created)
            let again = try await api.post(
                "/v1/reports", token: token, json: ["target_type": "user", "target_id": badID, "reason": "spam"])
            #expect(again.status == .ok)
            let firstID = try first.decode(API.Report.self).id
            #expect(try again.decode(API.Report.self).id == firstID)
            #expect(
                try await api.post("/v1/reports", token: token, json: ["target_type": "planet", "target_id": badID, "reason": "spam"])
                    .errorFields["target_type"] != nil)
            #expect(
                try await api.post("/v1/reports", token: token, json: ["target_type": "user", "target_id": badID, "reason": "meh"])
                    .errorFields["reason"] != nil)
            #expect(
                try await api.post(
                    "/v1/reports", token: token, json: ["target_type": "event", "target_id": UUID().uuidString, "reason": "spam"]
                ).status == .notFound)
            let open = try await AdminTool(
                database: services.database, resources: services.resources, logger: services.logger, configuration: services.configuration
            ).openReports(limit: 10)
            #expect(open.count == 1)
            #expect(open.first?.contains("harassment") == true)
        }
    }

    @Test("reports name only messages the reporter could read, and are limited to 20 an hour per person", arguments: engines)
    func reportBounds(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let troll = people[0]
            let reporter = try await api.register("Reporter")
            let message = try await api.say("rude words", in: event, token: troll.token)
            let talk = try await api.conversation(with: owner.id, token: troll.token).id
            let whispered = try await api.say("private rude words", in: talk, token: troll.token)
            // Outside the room, a message is not there to report (as if it did not exist).
            for id in [message.id, whispered.id, UUID().uuidString] {
                #expect(
                    try await api.post(
                        "/v1/reports", token: reporter.token, json: ["target_type": "message", "target_id": id, "reason": "harassment"]
                    ).status == .notFound)
            }
            #expect(try await api.join(event, token: reporter.token).status == .going)
            #expect(
                try await api.post(
                    "/v1/reports", token: reporter.token, json: ["target_type": "message", "target_id": message.id, "reason": "harassment"]
                ).status == .created)
            #expect(
                try await api.post(
                    "/v1/reports", token: owner.token, json: ["target_type": "message", "target_id": whispered.id, "reason": "harassment"]
                ).status == .created)

            // 20 an hour: the 21st is refused until the first is an hour old; the same report again is not a new one.
            for i in 1..<20 {
                let target = try await api.createEvent(owner.token, title: "Game \(i)", now: clock.now()).id
                #expect(
                    try await api.post(
                        "/v1/reports", token: reporter.token, json: ["target_type": "event", "target_id": target, "reason": "spam"]
                    ).status == .created)
                clock.advance(by: 60)
            }
            let one = try await api.createEvent(owner.token, title: "One too many", now: clock.now()).id
            let refused = try await api.post(
                "/v1/reports", token: reporter.token, json: ["target_type": "event", "target_id": one, "reason": "spam"])
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.errorCode == "too_many_reports")
            #expect(refused.headers[.retryAfter].flatMap(Int.init).map { (1...3_600).contains($0) } == true)
            #expect(
                try await api.post(
                    "/v1/reports", token: reporter.token, json: ["target_type": "message", "target_id": message.id, "reason": "spam"]
                ).status == .ok)
            clock.advance(by: 3_600 - 19 * 60 + 1)
            #expect(
                try await api.post(
                    "/v1/reports", token: reporter.token, json: ["target_type": "event", "target_id": one, "reason": "spam"]
                ).status == .created)
        }
    }

    @Test("a public profile shows the upcoming events someone goes to", arguments: engines)
    func publicProfile(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (host, hostID) = try await api.register("Host")
            let (viewer, _) = try await api.register("Viewer")
            _ = try await api.patch("/v1/me", token: host, json: ["bio": "Plays every Sunday", "sports": ["padel"]])
            let upcoming = try await api.createEvent(host, title: "Padel", sport: "padel", now: clock.now()).id
            let cancelled = try await api.createEvent(host, title: "Off", now: clock.now()).id
            _ = try await api.delete("/v1/events/\(cancelled)", token: host)
            let profile = try await api.get("/v1/users/\(hostID)", token: viewer)
            #expect(profile.status == .ok)
            let shown = try profile.decode(API.PublicProfile.self)
            #expect(shown.bio == "Plays every Sunday")
            #expect(shown.sports == ["padel"])
            // Absent, not merely null: read from the raw JSON.
            let profileAsSent = try #require(try profile.decode(JSONValue.self).object)
            #expect(profileAsSent["email"] == nil)
            #expect(shown.upcomingEvents.map(\.id) == [upcoming])
            #expect(try await api.get("/v1/users/\(UUID())", token: viewer).status == .notFound)
        }
    }
}

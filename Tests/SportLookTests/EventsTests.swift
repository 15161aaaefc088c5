import Foundation
import GeoGrid
import HTTPTypes
import Testing
@testable import SportLook

extension API {
    /// Creates an event; returns its JSON.
    @discardableResult
    func createEvent(_ token: String, title: String = "Five-a-side", sport: String = "football", lat: Double = 48.8566, lon: Double = 2.3522,
                     startsIn: TimeInterval = 86_400, duration: TimeInterval? = nil, capacity: Int? = nil, now: Date) async throws -> [String: Any] {
        var body: [String: Any] = ["title": title, "sport": sport, "starts_at": RFC3339.format(now.addingTimeInterval(startsIn)), "location": ["lat": lat, "lon": lon]]
        if let duration { body["ends_at"] = RFC3339.format(now.addingTimeInterval(startsIn + duration)) }
        if let capacity { body["capacity"] = capacity }
        let reply = try await post("/v1/events", token: token, json: body)
        guard reply.status == .created else { throw ClusterError("create event failed: \(reply.status) \(reply.text)") }
        return reply.object
    }
}

@Suite("Events and attendance", .timeLimit(.minutes(5)))
struct EventsTests {
    @Test("create, read, edit, cancel, with permissions", arguments: engines)
    func crud(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, ownerID) = try await api.register("Olga")
            let (other, _) = try await api.register("Pete")
            let created = try await api.createEvent(owner, capacity: 8, now: clock.now())
            let id = try #require(created["id"] as? String)
            #expect((created["organiser"] as? [String: Any])?["id"] as? String == ownerID)
            #expect(created["my_status"] as? String == "going")
            #expect(created["status"] as? String == "active")
            #expect(created["ends_at"] as? String == RFC3339.format(clock.now().addingTimeInterval(86_400 + 7_200)))
            #expect((created["sport"] as? [String: Any])?["name"] as? String == "Football")

            let read = try await api.get("/v1/events/\(id)", token: other)
            #expect(read.status == .ok)
            #expect(read["my_status"] is NSNull)
            #expect(read["title"] as? String == "Five-a-side")

            let forbidden = try await api.patch("/v1/events/\(id)", token: other, json: ["title": "Mine now"])
            #expect(forbidden.status == .forbidden)
            #expect(try await api.delete("/v1/events/\(id)", token: other).status == .forbidden)

            let edited = try await api.patch("/v1/events/\(id)", token: owner, json: ["title": "Seven-a-side", "capacity": 14, "address": "Parc des Princes"])
            #expect(edited.status == .ok)
            #expect(edited["title"] as? String == "Seven-a-side")
            #expect(edited["capacity"] as? Int == 14)
            #expect(edited["address"] as? String == "Parc des Princes")

            #expect(try await api.delete("/v1/events/\(id)", token: owner).status == .noContent)
            let cancelled = try await api.get("/v1/events/\(id)", token: other)
            #expect(cancelled["status"] as? String == "cancelled")
            #expect(try await api.delete("/v1/events/\(id)", token: owner).status == .noContent)
            #expect(try await api.patch("/v1/events/\(id)", token: owner, json: ["title": "Back"]).status == .conflict)
            #expect(try await api.get("/v1/events/\(UUID())", token: other).status == .notFound)
            #expect(try await api.get("/v1/events/nope", token: other).status == .notFound)
            #expect(try await api.get("/v1/events/\(id)").status == .unauthorized)
        }
    }

    @Test("every validation rule", arguments: engines)
    func validation(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (token, _) = try await api.register("Val")
            let now = clock.now()
            func attempt(_ overrides: [String: Any], without: [String] = []) async throws -> Reply {
                var body: [String: Any] = ["title": "Ok", "sport": "tennis", "starts_at": RFC3339.format(now.addingTimeInterval(3_600)), "location": ["lat": 10, "lon": 10]]
                for (k, v) in overrides { body[k] = v }
                for k in without { body[k] = nil }
                return try await api.post("/v1/events", token: token, json: body)
            }
            let cases: [([String: Any], [String], String)] = [
                (["title": ""], [], "title"),
                (["title": "   "], [], "title"),
                (["title": String(repeating: "t", count: 121)], [], "title"),
                (["description": String(repeating: "d", count: 4_001)], [], "description"),
                (["sport": "quidditch"], [], "sport"),
                ([:], ["sport"], "sport"),
                (["location": ["lat": -90.5, "lon": 0]], [], "location.lat"),
                (["location": ["lat": 0, "lon": 180.01]], [], "location.lon"),
                ([:], ["location"], "location"),
                (["starts_at": RFC3339.format(now.addingTimeInterval(-3_600))], [], "starts_at"),
                (["starts_at": "2030-13-01T00:00:00Z"], [], "starts_at"),
                (["starts_at": "tomorrow"], [], "starts_at"),
                ([:], ["starts_at"], "starts_at"),
                (["ends_at": RFC3339.format(now.addingTimeInterval(3_000))], [], "ends_at"),
                (["ends_at": RFC3339.format(now.addingTimeInterval(3_600))], [], "ends_at"),
                (["ends_at": RFC3339.format(now.addingTimeInterval(3_600 + 7 * 86_400 + 1))], [], "ends_at"),
                (["capacity": 0], [], "capacity"),
                (["capacity": 10_001], [], "capacity"),
                (["capacity": "ten"], [], "capacity"),
                (["image_url": "javascript:alert(1)"], [], "image_url"),
                (["address": String(repeating: "a", count: 301)], [], "address"),
            ]
            for (overrides, without, field) in cases {
                let reply = try await attempt(overrides, without: without)
                #expect(reply.status == .unprocessableContent, "\(field): \(reply.text)")
                #expect(reply.errorFields[field] != nil, "\(field): \(reply.text)")
            }
            let edge = try await attempt(["ends_at": RFC3339.format(now.addingTimeInterval(3_600 + 7 * 86_400)), "capacity": 10_000, "title": String(repeating: "t", count: 120)])
            #expect(edge.status == .created)
            let unlimited = try await attempt(["capacity": NSNull()])
            #expect(unlimited["capacity"] is NSNull)
            // A rejected event left nothing behind.
            #expect(try await api.get("/v1/me/events?role=organising", token: token).items.count == 2)
        }
    }

    @Test("50 concurrent joins on capacity 10: 10 going, 40 waitlisted 1–40; leaving promotes the first", arguments: engines)
    func concurrentJoins(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, _) = try await api.register("Host")
            let event = try await api.createEvent(owner, capacity: 10, now: clock.now())
            let id = try #require(event["id"] as? String)
            var people: [(token: String, id: String)] = []
            for i in 0..<50 { people.append(try await api.register("Joiner\(i)")) }
            let results = try await withThrowingTaskGroup(of: (Int, Reply).self) { group in
                for (i, person) in people.enumerated() {
                    group.addTask { (i, try await api.post("/v1/events/\(id)/attendance", token: person.token)) }
                }
                var out: [Int: Reply] = [:]
                for try await (i, reply) in group { out[i] = reply }
                return out
            }
            #expect(results.values.allSatisfy { $0.status == .ok })
            let going = results.filter { $0.value["status"] as? String == "going" }
            let waiting = results.filter { $0.value["status"] as? String == "waitlisted" }
            #expect(going.count == 10)
            #expect(waiting.count == 40)
            #expect(Set(waiting.compactMap { $0.value["position"] as? Int }) == Set(1...40))
            let state = try await api.get("/v1/events/\(id)", token: owner)
            #expect(state["going_count"] as? Int == 10)
            #expect(state["waitlist_count"] as? Int == 40)
            #expect(state["spots_left"] as? Int == 0)

            // Joining again changes nothing.
            let first = try #require(waiting.first { $0.value["position"] as? Int == 1 })
            let second = try #require(waiting.first { $0.value["position"] as? Int == 2 })
            let again = try await api.post("/v1/events/\(id)/attendance", token: people[first.key].token)
            #expect(again["status"] as? String == "waitlisted")
            #expect(again["position"] as? Int == 1)

            let leaver = try #require(going.first).key
            #expect(try await api.delete("/v1/events/\(id)/attendance", token: people[leaver].token).status == .noContent)
            #expect(try await api.delete("/v1/events/\(id)/attendance", token: people[leaver].token).status == .noContent)
            let promoted = try await api.get("/v1/events/\(id)", token: people[first.key].token)
            #expect(promoted["my_status"] as? String == "going")
            let next = try await api.get("/v1/events/\(id)", token: people[second.key].token)
            #expect(next["my_status"] as? String == "waitlisted")
            #expect(next["my_position"] as? Int == 1)
            let after = try await api.get("/v1/events/\(id)", token: owner)
            #expect(after["going_count"] as? Int == 10)
            #expect(after["waitlist_count"] as? Int == 39)

            // More places move the waitlist up.
            _ = try await api.patch("/v1/events/\(id)", token: owner, json: ["capacity": 12])
            #expect(try await api.get("/v1/events/\(id)", token: people[second.key].token)["my_status"] as? String == "going")
            #expect(try await api.patch("/v1/events/\(id)", token: owner, json: ["capacity": 3]).status == .unprocessableContent)

            // The attendee list pages through going, then the waitlist in order.
            var listed: [[String: Any]] = []
            var cursor: String?
            repeat {
                let page = try await api.get("/v1/events/\(id)/attendees?limit=7" + (cursor.map { "&cursor=\($0)" } ?? ""), token: owner)
                #expect(page.status == .ok)
                listed += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(listed.count == 50)
            #expect(listed.filter { $0["status"] as? String == "going" }.count == 13)
            #expect(listed.compactMap { $0["position"] as? Int } == Array(1...37))
            #expect(listed.filter { $0["is_organiser"] as? Bool == true }.count == 1)
        }
    }

    @Test("joining a cancelled or finished event is 409; the organiser cannot leave", arguments: engines)
    func closedEvents(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, _) = try await api.register("Host")
            let (guest, _) = try await api.register("Guest")
            let cancelled = try #require(try await api.createEvent(owner, now: clock.now())["id"] as? String)
            _ = try await api.delete("/v1/events/\(cancelled)", token: owner)
            let join = try await api.post("/v1/events/\(cancelled)/attendance", token: guest)
            #expect(join.status == .conflict)
            #expect(join.errorCode == "event_cancelled")

            let soon = try #require(try await api.createEvent(owner, startsIn: 600, duration: 3_600, now: clock.now())["id"] as? String)
            #expect(try await api.delete("/v1/events/\(soon)/attendance", token: owner).status == .conflict)
            clock.advance(by: 5_000)
            let late = try await api.post("/v1/events/\(soon)/attendance", token: guest)
            #expect(late.status == .conflict)
            #expect(late.errorCode == "event_finished")
            #expect(try await api.post("/v1/events/\(UUID())/attendance", token: guest).status == .notFound)
        }
    }

    @Test("the caller's events: attending or organising, upcoming or past", arguments: engines)
    func myEvents(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, _) = try await api.register("Host")
            let (guest, _) = try await api.register("Guest")
            var ids: [String] = []
            for i in 0..<9 {
                let id = try #require(try await api.createEvent(owner, title: "E\(i)", startsIn: Double(3_600 * (i + 1)), duration: 1_800, now: clock.now())["id"] as? String)
                ids.append(id)
                if i % 2 == 0 { _ = try await api.post("/v1/events/\(id)/attendance", token: guest) }
            }
            var titles: [String] = []
            var cursor: String?
            repeat {
                let page = try await api.get("/v1/me/events?role=organising&when=upcoming&limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""), token: owner)
                titles += page.items.compactMap { $0["title"] as? String }
                cursor = page.nextCursor
            } while cursor != nil
            #expect(titles == (0..<9).map { "E\($0)" })
            let attending = try await api.get("/v1/me/events?role=attending", token: guest)
            #expect(attending.items.compactMap { $0["title"] as? String } == ["E0", "E2", "E4", "E6", "E8"])
            #expect(attending.items.allSatisfy { $0["my_status"] as? String == "going" })
            clock.advance(by: 3_600 * 5)
            let past = try await api.get("/v1/me/events?role=attending&when=past", token: guest)
            #expect(past.items.compactMap { $0["title"] as? String } == ["E2", "E0"])
            #expect(try await api.get("/v1/me/events?role=everything", token: guest).status == .unprocessableContent)
            #expect(try await api.get("/v1/me/events?cursor=garbage", token: guest).status == .unprocessableContent)
        }
    }
}

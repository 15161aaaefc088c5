import Foundation
import GeoGrid
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Events and attendance", .timeLimit(.minutes(10)))
struct EventsTests {
    @Test("create, read, edit, cancel, with permissions", arguments: engines)
    func crud(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, ownerID) = try await api.register("Olga")
            let (other, _) = try await api.register("Pete")
            let created = try await api.createEvent(owner, capacity: 8, now: clock.now())
            let id = created.id
            #expect(created.organiser.id == ownerID)
            #expect(created.myStatus?.value1 == .going)
            #expect(created.status == .active)
            #expect(RFC3339.format(created.endsAt) == RFC3339.format(clock.now().addingTimeInterval(86_400 + 7_200)))
            #expect(created.sport.name == "Football")

            let read = try await api.get("/v1/events/\(id)", token: other)
            #expect(read.status == .ok)
            let seen = try read.decode(API.Event.self)
            // my_status is required: the decode fails if it is absent, so nil means null.
            #expect(seen.myStatus == nil)
            #expect(seen.title == "Five-a-side")

            let forbidden = try await api.patch("/v1/events/\(id)", token: other, json: ["title": "Mine now"])
            #expect(forbidden.status == .forbidden)
            #expect(try await api.delete("/v1/events/\(id)", token: other).status == .forbidden)

            let edited = try await api.patch(
                "/v1/events/\(id)", token: owner, json: ["title": "Seven-a-side", "capacity": 14, "address": "Parc des Princes"])
            #expect(edited.status == .ok)
            let changed = try edited.decode(API.Event.self)
            #expect(changed.title == "Seven-a-side")
            #expect(changed.capacity == 14)
            #expect(changed.address == "Parc des Princes")

            #expect(try await api.delete("/v1/events/\(id)", token: owner).status == .noContent)
            #expect(try await api.event(id, token: other).status == .cancelled)
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
                var body: [String: Any] = [
                    "title": "Ok", "sport": "tennis", "starts_at": RFC3339.format(now.addingTimeInterval(3_600)),
                    "location": ["lat": 10, "lon": 10],
                ]
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
                #expect(try reply.errorFields[field] != nil, "\(field): \(reply.text)")
            }
            let edge = try await attempt([
                "ends_at": RFC3339.format(now.addingTimeInterval(3_600 + 7 * 86_400)), "capacity": 10_000,
                "title": String(repeating: "t", count: 120),
            ])
            #expect(edge.status == .created)
            let unlimited = try await attempt(["capacity": NSNull()])
            // capacity is required: the decode fails if it is absent, so nil means null.
            #expect(try unlimited.decode(API.Event.self).capacity == nil)
            // A rejected event left nothing behind.
            #expect(try await api.page(API.Event.self, "/v1/me/events?role=organising", token: token).items.count == 2)
        }
    }

    @Test("50 concurrent joins on capacity 10: 10 going, 40 waitlisted 1–40; leaving promotes the first", arguments: engines)
    func concurrentJoins(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, _) = try await api.register("Host")
            let id = try await api.createEvent(owner, capacity: 10, now: clock.now()).id
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
            let places = try results.mapValues { try $0.decode(API.Joined.self) }
            let going = places.filter { $0.value.status == .going }
            let waiting = places.filter { $0.value.status == .waitlisted }
            #expect(going.count == 10)
            #expect(waiting.count == 40)
            #expect(Set(waiting.compactMap { $0.value.position }) == Set(1...40))
            let state = try await api.event(id, token: owner)
            #expect(state.goingCount == 10)
            #expect(state.waitlistCount == 40)
            #expect(state.spotsLeft == 0)

            // Joining again changes nothing.
            let first = try #require(waiting.first { $0.value.position == 1 })
            let second = try #require(waiting.first { $0.value.position == 2 })
            let again = try await api.join(id, token: people[first.key].token)
            #expect(again.status == .waitlisted)
            #expect(again.position == 1)

            let leaver = try #require(going.first).key
            #expect(try await api.delete("/v1/events/\(id)/attendance", token: people[leaver].token).status == .noContent)
            #expect(try await api.delete("/v1/events/\(id)/attendance", token: people[leaver].token).status == .noContent)
            let promoted = try await api.event(id, token: people[first.key].token)
            #expect(promoted.myStatus?.value1 == .going)
            let next = try await api.event(id, token: people[second.key].token)
            #expect(next.myStatus?.value1 == .waitlisted)
            #expect(next.myPosition == 1)
            let after = try await api.event(id, token: owner)
            #expect(after.goingCount == 10)
            #expect(after.waitlistCount == 39)

            // More places move the waitlist up.
            _ = try await api.patch("/v1/events/\(id)", token: owner, json: ["capacity": 12])
            #expect(try await api.event(id, token: people[second.key].token).myStatus?.value1 == .going)
            #expect(try await api.patch("/v1/events/\(id)", token: owner, json: ["capacity": 3]).status == .unprocessableContent)

            // The attendee list pages through going, then the waitlist in order (every page 200).
            let listed = try await api.allPages(API.Attendee.self, "/v1/events/\(id)/attendees?limit=7", token: owner)
            #expect(listed.count == 50)
            #expect(listed.filter { $0.status == .going }.count == 13)
            #expect(listed.compactMap(\.position) == Array(1...37))
            #expect(listed.filter(\.isOrganiser).count == 1)
        }
    }

    @Test("joining a cancelled or finished event is 409; the organiser cannot leave", arguments: engines)
    func closedEvents(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (owner, _) = try await api.register("Host")
            let (guest, _) = try await api.register("Guest")
            let cancelled = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.delete("/v1/events/\(cancelled)", token: owner)
            let join = try await api.post("/v1/events/\(cancelled)/attendance", token: guest)
            #expect(join.status == .conflict)
            #expect(try join.errorCode == "event_cancelled")

            let soon = try await api.createEvent(owner, startsIn: 600, duration: 3_600, now: clock.now()).id
            #expect(try await api.delete("/v1/events/\(soon)/attendance", token: owner).status == .conflict)
            clock.advance(by: 5_000)
            let late = try await api.post("/v1/events/\(soon)/attendance", token: guest)
            #expect(late.status == .conflict)
            #expect(try late.errorCode == "event_finished")
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
                let id = try await api.createEvent(
                    owner, title: "E\(i)", startsIn: Double(3_600 * (i + 1)), duration: 1_800, now: clock.now()
                ).id
                ids.append(id)
                if i % 2 == 0 { _ = try await api.post("/v1/events/\(id)/attendance", token: guest) }
            }
            let titles = try await api.allPages(API.Event.self, "/v1/me/events?role=organising&when=upcoming&limit=4", token: owner).map(
                \.title)
            #expect(titles == (0..<9).map { "E\($0)" })
            let attending = try await api.page(API.Event.self, "/v1/me/events?role=attending", token: guest).items
            #expect(attending.map(\.title) == ["E0", "E2", "E4", "E6", "E8"])
            #expect(attending.allSatisfy { $0.myStatus?.value1 == .going })
            clock.advance(by: 3_600 * 5)
            let past = try await api.page(API.Event.self, "/v1/me/events?role=attending&when=past", token: guest).items
            #expect(past.map(\.title) == ["E2", "E0"])
            #expect(try await api.get("/v1/me/events?role=everything", token: guest).status == .unprocessableContent)
            #expect(try await api.get("/v1/me/events?cursor=garbage", token: guest).status == .unprocessableContent)
        }
    }
}

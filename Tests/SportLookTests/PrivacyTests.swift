import SQLKit
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Synchronization
import Testing
@testable import SportLook

@Suite("Privacy between people: blocks, profiles, deleted accounts", .timeLimit(.minutes(5)))
struct PrivacyTests {
    @Test("blocking hides, both ways: attendee lists, profiles, invitations, chat", arguments: engines)
    func blockingHides(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let blocker = people[0], blocked = people[1]
            #expect(try await api.post("/v1/users/\(blocked.id)/block", token: blocker.token).status == .noContent)
            func attendeeIDs(_ token: String) async throws -> Set<String> {
                Set(try await api.page(API.Attendee.self, "/v1/events/\(event)/attendees", token: token).items.map(\.id))
            }
            #expect(try await !attendeeIDs(blocked.token).contains(blocker.id))
            #expect(try await !attendeeIDs(blocker.token).contains(blocked.id))
            #expect(try await attendeeIDs(owner.token).isSuperset(of: [blocker.id, blocked.id]))
            #expect(try await api.get("/v1/users/\(blocker.id)", token: blocked.token).status == .notFound)
            #expect(try await api.get("/v1/users/\(blocked.id)", token: blocker.token).status == .notFound)
            // The blocked person's invitation is dropped silently.
            let otherID = try await api.createEvent(blocked.token, title: "Blocked's game", now: clock.now()).id
            let invited = try await api.post("/v1/events/\(otherID)/invitations", token: blocked.token, json: ["user_ids": [blocker.id]])
            #expect(invited.status == .created)
            // Asked again, the same invitation comes back, as for anyone else.
            let again = try await api.post("/v1/events/\(otherID)/invitations", token: blocked.token, json: ["user_ids": [blocker.id]])
            let firstID = try invited.decode(API.Page<API.Invitation>.self).items.first?.id
            #expect(try again.decode(API.Page<API.Invitation>.self).items.first?.id == firstID)
            #expect(try await api.invitations(blocker.token).isEmpty)
            #expect(try await api.notifications(blocker.token).allSatisfy { $0.kind != "invitation" })
            // Chat: the blocker receives nothing of the blocked person, live or in history.
            let blockerSocket = try await TestSocket.connect(try socketURL(api), token: blocker.token)
            blockerSocket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await blockerSocket.waitFor("subscribed") { $0.type == "subscribed" }
            let blockedSocket = try await TestSocket.connect(try socketURL(api), token: blocked.token)
            blockedSocket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await blockedSocket.waitFor("subscribed") { $0.type == "subscribed" }
            blockedSocket.send(["type": "typing", "event_id": event])
            blockedSocket.send(["type": "message", "event_id": event, "body": "can you see me", "client_id": "b1"])
            try await blockedSocket.waitFor("sent") { $0.type == "sent" }
            blockedSocket.send(["type": "read", "event_id": event, "seq": 1])
            #expect(try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "from the owner", "client_id": "o1"]).status == .created)
            try await blockerSocket.waitFor("the owner's message") { _ in try blockerSocket.messageSeqs == [2] }
            #expect(try !blockerSocket.frames.contains { ["typing", "read"].contains($0.type) })
            #expect(try !blockerSocket.messageSeqs.contains(1))
            let history = try await api.messages(event, token: blocker.token)
            #expect(history.map(\.body) == ["from the owner"])
            // The blocked person is not told: the message was sent, and they see the blocker's messages as before.
            #expect(try await api.messages(event, token: blocked.token).count == 2)
            await blockerSocket.close()
            await blockedSocket.close()
        }
    }

    @Test("a profile lists the events the user organises, and those they attend only to fellow attendees", arguments: engines)
    func whereabouts(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (walker, walkerID) = try await api.register("Walker")
            let (organiser, _) = try await api.register("Org")
            let (fellow, _) = try await api.register("Fellow")
            let (stranger, _) = try await api.register("Stranger")
            let own = try await api.createEvent(walker, title: "Walker's own", now: clock.now()).id
            let attended = try await api.createEvent(organiser, title: "Someone else's", now: clock.now()).id
            _ = try await api.post("/v1/events/\(attended)/attendance", token: walker)
            _ = try await api.post("/v1/events/\(attended)/attendance", token: fellow)
            func listed(_ token: String) async throws -> Set<String> {
                Set(try await api.user(walkerID, token: token).upcomingEvents.map(\.id))
            }
            #expect(try await listed(stranger) == [own])
            #expect(try await listed(fellow) == [own, attended])
            #expect(try await listed(walker) == [own, attended])
        }
    }

    @Test("deleting an account cancels its events, keeps its messages as a deleted user's, and frees its email", arguments: engines)
    func accountDeletion(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let (host, _) = try await api.register("Host")
            let hosted = try await api.createEvent(host, title: "Hosted", capacity: 1, now: clock.now()).id
            let (waiting, _) = try await api.register("Waiting")
            _ = try await api.post("/v1/events/\(hosted)/attendance", token: owner.token)
            #expect(try await api.join(hosted, token: waiting).status == "waitlisted")
            _ = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "bye all", "client_id": "bye"])
            let ownerEmail = try await api.email(owner.token)
            #expect(try await api.delete("/v1/me", token: owner.token).status == .noContent)
            #expect(try await api.get("/v1/me", token: owner.token).status == .unauthorized)
            #expect(try await api.post("/v1/auth/login", json: ["email": ownerEmail, "password": "correct horse battery"]).status == .unauthorized)
            // Their upcoming event is cancelled, attendees told; their place went to the waitlist.
            #expect(try await api.event(event, token: people[0].token).status == "cancelled")
            try await eventually("event_cancelled") { try await api.notifications(people[0].token).contains { $0.kind == "event_cancelled" } }
            #expect(try await api.event(hosted, token: waiting).myStatus == "going")
            let messages = try await api.messages(event, token: people[0].token)
            #expect(messages.count == 1)
            #expect(messages.first?.sender.name == AccountStore.deletedName)
            #expect(try await api.get("/v1/users/\(owner.id)", token: people[0].token).status == .notFound)
            // The email can be used again.
            #expect(try await api.post("/v1/auth/register", json: ["name": "New", "email": ownerEmail, "password": "correct horse battery"]).status == .created)
        }
    }
}

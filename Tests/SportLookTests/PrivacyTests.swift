import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("Privacy between people: blocks, profiles, deleted accounts", .timeLimit(.minutes(10)))
struct PrivacyTests {
    @Test("blocking hides, both ways: attendee lists, profiles, invitations, chat", arguments: engines)
    func blockingHides(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let blocker = people[0]
            let blocked = people[1]
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
            #expect(try await api.notifications(blocker.token).allSatisfy { $0.kind != .invitation })
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
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "from the owner", "client_id": "o1"])
                    .status == .created)
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

    @Test(
        "a block hides the blocked person everywhere the blocker looks: chats list, quotes, reactions, mentions, inbox — over HTTP and the socket, live and on resume",
        arguments: engines)
    func blockHidesEverywhere(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 3)
            let blocker = people[0]
            let blocked = people[1]
            let third = people[2]
            // Before the block: the blocked person writes, reacts, is quoted and mentioned,
            // writes to the blocker in a conversation and invites them.
            try await api.say("from the blocker", in: event, token: blocker.token)
            try await api.say("from the blocked", in: event, token: blocked.token, extra: ["mentions": [blocker.id]])
            #expect(try await api.post("/v1/rooms/\(event)/messages/1/reactions", token: blocked.token, json: ["emoji": "👍"]).status == .ok)
            #expect(try await api.post("/v1/rooms/\(event)/messages/1/reactions", token: third.token, json: ["emoji": "👍"]).status == .ok)
            try await api.say("replying to the blocked", in: event, token: third.token, extra: ["reply_to": 2, "mentions": [blocked.id]])
            let talk = try await api.conversation(with: blocker.id, token: blocked.token).id
            try await api.say("psst", in: talk, token: blocked.token)
            let other = try await api.createEvent(blocked.token, title: "Blocked's game", now: clock.now()).id
            try await api.invite([blocker.id], to: other, token: blocked.token)
            try await eventually("the invitation in the inbox") {
                try await api.notifications(blocker.token).contains { $0.kind == .invitation }
            }
            #expect(try await api.invitations(blocker.token).count == 1)
            // Every notification of the messages before the block delivered first: one
            // reaching the watcher below before the block is not what this test is about.
            try await eventually("the messages' notifications delivered") {
                try await count(services, "jobs", where: "kind = 'chat_message' AND state IN ('queued', 'running')") == 0
            }

            // The blocker watches the chats list live while blocking.
            let watcher = try await TestSocket.connect(try socketURL(api), token: blocker.token)
            watcher.send(["type": "watch_rooms"])
            try await watcher.waitFor("watching") { $0.type == "watching_rooms" }
            #expect(try await api.post("/v1/users/\(blocked.id)/block", token: blocker.token).status == .noContent)
            try await watcher.waitFor("the conversation leaves the list") { $0.roomRemoved?.roomId == talk }
            // After it, the blocked person writes last in the room and reacts again.
            try await api.say("after the block", in: event, token: blocked.token)
            #expect(try await api.post("/v1/rooms/\(event)/messages/3/reactions", token: blocked.token, json: ["emoji": "🔥"]).status == .ok)

            // Everything the blocker is answered over HTTP.
            let rooms = try await api.get("/v1/me/rooms", token: blocker.token)
            let listed = try rooms.decode(API.Page<API.RoomEntry>.self).items
            #expect(listed.map(\.id) == [event], "the conversation with the blocked person is gone from the list")
            #expect(listed.first?.lastMessage?.value1.body == "replying to the blocked")
            let history = try await api.get("/v1/rooms/\(event)/messages", token: blocker.token)
            let messages = try history.decode(API.Page<API.ChatMessage>.self).items
            #expect(messages.map(\.seq) == [1, 3])
            #expect(messages.first?.reactions.flatMap(\.userIds) == [third.id])
            #expect(messages.last?.replyTo == nil && messages.last?.mentions == [])
            let reaction = try await api.post("/v1/rooms/\(event)/messages/1/reactions", token: blocker.token, json: ["emoji": "🎉"])
            // The same reaction again changes nothing, and its answer is still the blocker's view;
            // the blocked person's own message is not there to react to.
            let again = try await api.post("/v1/rooms/\(event)/messages/1/reactions", token: blocker.token, json: ["emoji": "🎉"])
            #expect(
                try await api.post("/v1/rooms/\(event)/messages/2/reactions", token: blocker.token, json: ["emoji": "🎉"]).status
                    == .notFound)
            let inbox = try await api.get("/v1/me/notifications", token: blocker.token)
            #expect(try await api.invitations(blocker.token).isEmpty)
            for answer in [rooms, history, reaction, again, inbox] {
                #expect(
                    !answer.text.contains(blocked.id) && !answer.text.contains("from the blocked")
                        && !answer.text.contains("after the block"), "\(answer.text)")
            }

            // Over the socket, resuming from the start, then live.
            let socket = try await TestSocket.subscribed(try socketURL(api), token: blocker.token, to: event)
            try await socket.waitFor("history") { _ in try socket.messageSeqs == [1, 3] }
            try await api.say(
                "quoting the blocked again", in: event, token: third.token, extra: ["reply_to": 4, "mentions": [blocked.id, blocker.id]])
            #expect(try await api.post("/v1/rooms/\(event)/messages/1/reactions", token: blocked.token, json: ["emoji": "❤️"]).status == .ok)
            try await api.say("last word", in: event, token: owner.token)
            try await socket.waitFor("the live messages") { _ in try socket.messageSeqs == [1, 3, 5, 6] }
            try await watcher.waitFor("the list's last message") { $0.roomUpdated?.room.lastMessage?.value1.body == "last word" }
            let live = try socket.frames.compactMap(\.message?.message).first { $0.seq == 5 }
            #expect(live?.replyTo == nil && live?.mentions == [blocker.id])
            for text in socket.texts + watcher.texts {
                #expect(!text.contains(blocked.id) && !text.contains("from the blocked") && !text.contains("after the block"), "\(text)")
            }
            // The blocked person is not told: they see the blocker's messages and their own as before.
            #expect(try await api.messages(event, token: blocked.token).count == 6)
            await socket.close()
            await watcher.close()
        }
    }

    @Test(
        "a notification queued before a block and delivered after it reaches neither the inbox nor a socket nor a device; others in the same batch are delivered",
        arguments: engines)
    func blockBeforeDelivery(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.jobWorkers = 0 }) { api, services in
            let blocker = try await api.register("Blocker")
            let blocked = try await api.register("Blocked")
            let friend = try await api.register("Friend")
            // Queued, not yet delivered: a message request from each, and an invitation from the blocked person.
            let fromBlocked = try await api.conversation(with: blocker.id, token: blocked.token).id
            try await api.say("psst", in: fromBlocked, token: blocked.token)
            let fromFriend = try await api.conversation(with: blocker.id, token: friend.token).id
            try await api.say("hello", in: fromFriend, token: friend.token)
            let game = try await api.createEvent(blocked.token, title: "Blocked's game", now: clock.now()).id
            try await api.invite([blocker.id], to: game, token: blocked.token)
            // Every job is queued before the block (the blocked person's would be refused after it).
            let socket = try await TestSocket.connect(try socketURL(api), token: blocker.token)
            socket.send(["type": "watch_rooms"])
            try await socket.waitFor("watching") { $0.type == "watching_rooms" }
            #expect(try await api.post("/v1/users/\(blocked.id)/block", token: blocker.token).status == .noContent)

            let worker = JobWorker(
                name: "test-worker", jobs: services.jobStore, inbox: services.inbox, safety: SafetyStore(database: services.database),
                access: services.eventAccess,
                scheduled: services.scheduledWork, channels: services.channels, mailer: nil, codes: nil, write: services.write,
                clock: services.clock, logger: services.logger,
                settings: .init(pollInterval: 1, lease: 60, maxAttempts: 5, retryBase: 1))
            // Chat notifications wait 2 s on the queue's wall clock (a client back at once reads the chat instead).
            try await eventually("every job settled") {
                _ = try await worker.runOnce()
                return try await services.database.read { sql in
                    try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE state <> 'done' AND kind <> 'reminder_due'").first()?.decode(
                        column: "n", as: Int.self)
                } == 0
            }
            let inbox = try await api.notifications(blocker.token)
            #expect(inbox.map(\.kind) == [.chatMessage], "only the friend's message")
            try await socket.waitFor("the friend's notification") { $0.type == "notification" }
            let everything = try await api.get("/v1/me/notifications", token: blocker.token).text + socket.texts.joined()
            #expect(!everything.contains(blocked.id) && everything.contains(friend.id))
            await socket.close()
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
            #expect(try await api.join(hosted, token: waiting).status == .waitlisted)
            _ = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "bye all", "client_id": "bye"])
            let ownerEmail = try await api.email(owner.token)
            #expect(try await api.delete("/v1/me", token: owner.token).status == .noContent)
            #expect(try await api.get("/v1/me", token: owner.token).status == .unauthorized)
            #expect(
                try await api.post("/v1/auth/login", json: ["email": ownerEmail, "password": "correct horse battery"]).status
                    == .unauthorized)
            // Their upcoming event is cancelled, attendees told; their place went to the waitlist.
            #expect(try await api.event(event, token: people[0].token).status == .cancelled)
            try await eventually("event_cancelled") {
                try await api.notifications(people[0].token).contains { $0.kind == .eventCancelled }
            }
            #expect(try await api.event(hosted, token: waiting).myStatus?.value1 == .going)
            let messages = try await api.messages(event, token: people[0].token)
            #expect(messages.count == 1)
            #expect(messages.first?.sender.name == AccountStore.deletedName)
            #expect(try await api.get("/v1/users/\(owner.id)", token: people[0].token).status == .notFound)
            // The email can be used again.
            #expect(
                try await api.post("/v1/auth/register", json: ["name": "New", "email": ownerEmail, "password": "correct horse battery"])
                    .status == .created)
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Rooms: edits, deletions, reactions, mentions, mute and resuming.
extension RoomsTests {
    @Test("edits within 15 minutes, deletions leave a tombstone without the text, the organiser deletes any message", arguments: engines)
    func editsAndDeletions(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let (ann, bo) = (people[0], people[1])
            let typo = try await api.say("See you at 7pn", in: event, token: ann.token)
            let quoted = try await api.say("Which pitch?", in: event, token: bo.token, extra: ["reply_to": typo.seq])
            #expect(
                quoted.replyTo?.seq == typo.seq && quoted.replyTo?.preview == "See you at 7pn" && quoted.replyTo?.sender.name == "Member0")
            #expect(
                try await api.post("/v1/rooms/\(event)/messages", token: bo.token, json: ["body": "x", "client_id": "r", "reply_to": 99])
                    .errorFields["reply_to"] != nil)

            let edited = try await api.patch("/v1/rooms/\(event)/messages/\(typo.seq)", token: ann.token, json: ["body": "See you at 7pm"])
                .decode(API.ChatMessage.self)
            #expect(edited.body == "See you at 7pm" && edited.editedAt != nil && edited.changeSeq == 1)
            #expect(
                try await api.patch("/v1/rooms/\(event)/messages/\(typo.seq)", token: bo.token, json: ["body": "mine now"]).status
                    == .forbidden)
            #expect(
                try await api.patch("/v1/rooms/\(event)/messages/\(typo.seq)", token: ann.token, json: ["body": ""]).errorFields["body"]
                    != nil)
            #expect(try await api.patch("/v1/rooms/\(event)/messages/99", token: ann.token, json: ["body": "x"]).status == .notFound)
            clock.advance(by: 15 * 60 + 1)
            let late = try await api.patch("/v1/rooms/\(event)/messages/\(typo.seq)", token: ann.token, json: ["body": "too late"])
            #expect(late.status == .conflict)
            #expect(try late.errorCode == "edit_window_closed")

            // Bo reports it: the moderators keep what it said, whatever happens to it next.
            #expect(
                try await api.post(
                    "/v1/reports", token: bo.token, json: ["target_type": "message", "target_id": typo.id, "reason": "spam"]
                ).status == .created)

            // Deleting: the author at any time; the row and its seq stay, the text goes.
            #expect(try await api.delete("/v1/rooms/\(event)/messages/\(typo.seq)", token: bo.token).status == .forbidden)
            let gone = try await api.delete("/v1/rooms/\(event)/messages/\(typo.seq)", token: ann.token).decode(API.ChatMessage.self)
            #expect(gone.deleted && gone.body == "" && gone.seq == typo.seq)
            #expect(
                try await api.delete("/v1/rooms/\(event)/messages/\(typo.seq)", token: ann.token).status == .ok,
                "deleting again changes nothing")
            let stored = try await count(services, "chat_messages", where: "body LIKE '%7p%'")
            #expect(stored == 0, "the deleted text is erased from the database")
            #expect(try await count(services, "jobs", where: "payload LIKE '%7p%'") == 0, "and from the pushes queued for it")
            #expect(try await count(services, "jobs", where: "payload LIKE '%Message deleted%'") > 0)
            let reports = try await AdminTool(
                database: services.database, resources: services.resources, logger: services.logger, configuration: services.configuration
            ).openReports(limit: 10)
            #expect(reports.count == 1 && reports[0].contains("See you at 7pm") && reports[0].contains("Member0"), "\(reports)")
            let history = try await api.messages(event, token: owner.token)
            #expect(history.map(\.seq) == [1, 2])
            #expect(history[0].deleted && history[0].body.isEmpty)
            #expect(history[1].replyTo?.deleted == true && history[1].replyTo?.preview == "")
            // The organiser deletes anyone's message in the event's room.
            #expect(
                try await api.delete("/v1/rooms/\(event)/messages/\(quoted.seq)", token: owner.token).decode(API.ChatMessage.self).deleted)
            #expect(
                try await api.patch("/v1/rooms/\(event)/messages/\(quoted.seq)", token: bo.token, json: ["body": "back"]).status
                    == .conflict)
        }
    }

    @Test("reactions: concurrent puts make one, each person once per emoji, taken off again; only the allowed set", arguments: engines)
    func reactions(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 6)
            let message = try await api.say("Who's in for Sunday?", in: event, token: owner.token)
            let path = "/v1/rooms/\(event)/messages/\(message.seq)/reactions"
            try await withThrowingTaskGroup(of: Void.self) { group in
                for person in people {
                    for _ in 0..<4 {
                        group.addTask {
                            let reply = try await api.post(path, token: person.token, json: ["emoji": "👍"])
                            #expect(reply.status == .ok, "\(reply.status): \(reply.text)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            var current = try await api.messages(event, token: owner.token)[0]
            #expect(current.reactions.map(\.emoji.rawValue) == ["👍"])
            #expect(current.reactions.first?.count == 6 && Set(current.reactions.first?.userIds ?? []) == Set(people.map(\.id)))
            _ = try await api.post(path, token: people[0].token, json: ["emoji": "🔥"])
            let off = try await api.delete(path + "?emoji=%F0%9F%91%8D", token: people[0].token)
            #expect(off.status == .ok)
            current = try off.decode(API.ChatMessage.self)
            #expect(
                current.reactions.map(\.emoji.rawValue) == ["👍", "🔥"] && current.reactions[0].count == 5
                    && current.reactions[1].userIds == [people[0].id])
            #expect(try await api.post(path, token: people[1].token, json: ["emoji": "🦄"]).errorFields["emoji"] != nil)
            let (outsider, _) = try await api.register("Outsider")
            #expect(try await api.post(path, token: outsider, json: ["emoji": "👍"]).status == .forbidden)
        }
    }

    @Test("a muted room sends no notification, except to those a message mentions", arguments: engines)
    func mentionsThroughMute(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let (ann, bo) = (people[0], people[1])
            for person in people {
                #expect(try await api.put("/v1/rooms/\(event)/mute", token: person.token, json: [:]).status == .noContent)
            }
            try await api.say("Quiet news", in: event, token: owner.token)
            #expect(try await count(services, "jobs", where: "kind = 'chat_message'") == 0, "a muted room queues no notification")
            #expect(
                try await api.post(
                    "/v1/rooms/\(event)/messages", token: owner.token,
                    json: ["body": "x", "client_id": "m", "mentions": [UUID().uuidString]]
                ).errorFields["mentions"] != nil)
            let said = try await api.say("@Member0 can you bring the cones?", in: event, token: owner.token, extra: ["mentions": [ann.id]])
            #expect(said.mentions == [ann.id])
            try await eventually("Ann's mention notification") {
                try await api.notifications(ann.token).contains { $0.kind == .chatMessage && $0.data.mentioned == true }
            }
            #expect(try await count(services, "jobs", where: "kind = 'chat_message' AND dedupe_key LIKE '%\(bo.id.lowercased())'") == 0)
            #expect(try await api.notifications(bo.token).isEmpty)
        }
    }

    @Test("a client resuming after a disconnect is sent missed messages, edits and deletions exactly once", arguments: engines)
    func resumeReplaysChanges(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let me = people[0]
            for n in 1...5 { try await api.say("m\(n)", in: event, token: owner.token) }
            let url = try socketURL(api)
            let first = try await TestSocket.connect(url, token: me.token)
            first.send(["type": "subscribe", "room_id": event, "after_seq": 0])
            try await first.waitFor("history") { _ in try first.messageSeqs == [1, 2, 3, 4, 5] }
            _ = try await api.patch("/v1/rooms/\(event)/messages/1", token: owner.token, json: ["body": "m1 edited live"])
            try await first.waitFor("the live edit") { $0.change?.message.body == "m1 edited live" }
            await first.close()
            let position = try #require(try first.frames.compactMap { $0.message?.afterChange ?? $0.change?.afterChange }.last)
            #expect(position == 1)

            // While away: new messages, an edit, a deletion, a reaction, and an edit of a new message.
            try await api.say("m6", in: event, token: owner.token)
            try await api.say("m7", in: event, token: owner.token)
            _ = try await api.patch("/v1/rooms/\(event)/messages/2", token: owner.token, json: ["body": "m2 edited"])
            _ = try await api.delete("/v1/rooms/\(event)/messages/3", token: owner.token)
            _ = try await api.post("/v1/rooms/\(event)/messages/4/reactions", token: owner.token, json: ["emoji": "🎉"])
            _ = try await api.patch("/v1/rooms/\(event)/messages/6", token: owner.token, json: ["body": "m6 edited"])

            let second = try await TestSocket.connect(url, token: me.token)
            second.send(["type": "subscribe", "room_id": event, "after_seq": 5, "after_change": position])
            try await second.waitFor("the missed messages and changes") { _ in
                try second.messageSeqs == [6, 7] && second.frames.filter { $0.change != nil }.count == 3
            }
            // A live change after the catch-up, then a quiet moment: nothing more arrives.
            _ = try await api.patch("/v1/rooms/\(event)/messages/7", token: owner.token, json: ["body": "m7 edited"])
            try await second.waitFor("the live edit of m7") { $0.change?.message.seq == 7 }
            try await Task.sleep(for: .milliseconds(300))
            let frames = try second.frames
            let messages = frames.compactMap(\.message?.message)
            #expect(messages.map(\.body) == ["m6 edited", "m7"], "a message changed while away comes once, as it is now")
            let changes = frames.compactMap { frame in frame.change.map { (frame.type, $0.message) } }
            #expect(
                changes.map { "\($0.0) \($0.1.seq)" } == ["message_edited 2", "message_deleted 3", "message_edited 4", "message_edited 7"])
            #expect(changes[0].1.body == "m2 edited" && changes[1].1.body.isEmpty && changes[2].1.reactions.first?.emoji.rawValue == "🎉")
            await second.close()
        }
    }

    @Test("live: room_updated keeps a chats list current without polling; a new conversation appears", arguments: engines)
    func liveRoomUpdates(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let me = people[0]
            let socket = try await TestSocket.connect(try socketURL(api), token: me.token)
            socket.send(["type": "watch_rooms"])
            try await socket.waitFor("watching") { $0.type == "watching_rooms" }
            try await api.say("Kick-off moved to 8", in: event, token: owner.token)
            let update = try await socket.waitFor("the event room's update") { $0.roomUpdated?.room.id == event }
            #expect(update.roomUpdated?.room.unreadCount == 1 && update.roomUpdated?.room.lastMessage?.value1.body == "Kick-off moved to 8")
            // Reading on another device updates the count here.
            _ = try await api.post("/v1/rooms/\(event)/read", token: me.token, json: ["seq": 1])
            try await socket.waitFor("the count after reading") {
                $0.roomUpdated?.room.id == event && $0.roomUpdated?.room.unreadCount == 0
            }
            // A stranger's request appears in the list.
            let stranger = try await api.register("Stranger")
            let talk = try await api.conversation(with: me.id, token: stranger.token)
            try await api.say("Hi! Saw you at the game", in: talk.id, token: stranger.token)
            let asked = try await socket.waitFor("the request") { $0.roomUpdated?.room.id == talk.id }
            #expect(asked.roomUpdated?.room.conversation?.value1.state == .requested)
            // Leaving the event removes its room.
            _ = try await api.delete("/v1/events/\(event)/attendance", token: me.token)
            try await socket.waitFor("the room removed") { $0.roomRemoved?.roomId == event }
            await socket.close()
        }
    }
}

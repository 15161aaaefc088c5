import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import Testing

@testable import SportLook

extension API {
    /// Starts (or finds) the conversation with `user`.
    func conversation(with user: String, token: String, expecting status: HTTPResponse.Status = .created) async throws -> Conversation {
        try await post("/v1/conversations", token: token, json: ["user_id": user]).decode(expecting: status)
    }

    /// Sends a message to a room; returns it as stored (201).
    @discardableResult
    func say(_ body: String, in room: String, token: String, clientID: String? = nil, extra: [String: Any] = [:]) async throws
        -> ChatMessage
    {
        var json: [String: Any] = ["body": body, "client_id": clientID ?? UUID().uuidString]
        json.merge(extra) { $1 }
        return try await post("/v1/rooms/\(room)/messages", token: token, json: json).decode(expecting: .created)
    }

    func rooms(_ token: String, query: String = "") async throws -> Page<RoomEntry> {
        try await page(RoomEntry.self, "/v1/me/rooms" + query, token: token)
    }
}

@Suite("Rooms: conversations, the chats list, edits, deletions, reactions, mentions, mute", .timeLimit(.minutes(10)))
struct RoomsTests {
    @Test("one conversation per pair; strangers send a request first; decline, accept; blocking ends it both ways", arguments: engines)
    func conversations(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let started = try await api.conversation(with: bo.id, token: ann.token)
            #expect(started.state == .new && started.with.name == "Bo" && started.canSend)
            // The same pair, from either side, is the same conversation.
            #expect(try await api.conversation(with: bo.id, token: ann.token, expecting: .ok).id == started.id)
            #expect(try await api.conversation(with: ann.id, token: bo.token, expecting: .ok).id == started.id)
            #expect(try await api.post("/v1/conversations", token: ann.token, json: ["user_id": ann.id]).errorFields["user_id"] != nil)
            #expect(try await api.post("/v1/conversations", token: ann.token, json: ["user_id": "nobody"]).errorFields["user_id"] != nil)
            #expect(try await api.post("/v1/conversations", token: ann.token, json: ["user_id": UUID().uuidString]).status == .notFound)
            let room = started.id

            // They share no event: Ann's first message is a request, and she waits. Sent eight
            // times at once, it is one request, each copy answered with it.
            let copies = try await api.postAtOnce(
                8, "/v1/rooms/\(room)/messages", token: ann.token, json: ["body": "Hi Bo, good game on Sunday?", "client_id": "first"])
            #expect(
                copies.map(\.status).sorted { $0.code < $1.code } == [.ok, .ok, .ok, .ok, .ok, .ok, .ok, .created], "\(copies.map(\.text))")
            let second = try await api.post("/v1/rooms/\(room)/messages", token: ann.token, json: ["body": "Hello?", "client_id": "again"])
            #expect(second.status == .forbidden)
            #expect(try second.errorCode == "request_pending")
            #expect(
                try await api.post("/v1/rooms/\(room)/messages/1/reactions", token: ann.token, json: ["emoji": "🙏"]).errorCode
                    == "request_pending",
                "no reactions either while the request waits")
            let asked = try await api.rooms(bo.token).items
            #expect(asked.map(\.id) == [room])
            #expect(asked.first?.conversation?.value1.state == .requested && asked.first?.conversation?.value1.requestedBy == ann.id)
            #expect(asked.first?.unreadCount == 1 && asked.first?.title == "Ann")
            // Bo declines: Ann still cannot write; only the one asked can answer.
            #expect(try await api.post("/v1/conversations/\(room)/accept", token: ann.token).status == .conflict)
            #expect(
                try await api.post("/v1/conversations/\(room)/decline", token: bo.token).decode(API.Conversation.self).state == .declined)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: ann.token, json: ["body": "Please?", "client_id": "p"]).errorCode
                    == "request_declined")
            #expect(try await api.get("/v1/conversations/\(room)", token: ann.token).decode(API.Conversation.self).canSend == false)
            // He changes his mind: both write freely.
            #expect(try await api.post("/v1/conversations/\(room)/accept", token: bo.token).decode(API.Conversation.self).state == .open)
            try await api.say("Sorry, yes!", in: room, token: bo.token)
            try await api.say("Great", in: room, token: ann.token)
            try await api.say("See you", in: room, token: ann.token)
            // Others cannot see or write to it.
            let cy = try await api.register("Cy")
            #expect(try await api.get("/v1/rooms/\(room)/messages", token: cy.token).status == .notFound)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: cy.token, json: ["body": "hi", "client_id": "c"]).status
                    == .notFound)
            #expect(try await api.get("/v1/conversations/\(room)", token: cy.token).status == .notFound)
            #expect(
                try await api.page(API.ChatMessage.self, "/v1/rooms/\(room)/messages", token: bo.token).items.map(\.body)
                    == ["Hi Bo, good game on Sunday?", "Sorry, yes!", "Great", "See you"])

            // Blocking ends it both ways, and no new conversation starts.
            #expect(try await api.post("/v1/users/\(ann.id)/block", token: bo.token).status == .noContent)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: ann.token, json: ["body": "?", "client_id": "b1"]).errorCode
                    == "blocked")
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: bo.token, json: ["body": "?", "client_id": "b2"]).errorCode
                    == "blocked")
            #expect(try await api.post("/v1/conversations", token: ann.token, json: ["user_id": bo.id]).status == .forbidden)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages/2/reactions", token: ann.token, json: ["emoji": "👍"]).errorCode == "blocked")
            #expect(try await api.patch("/v1/rooms/\(room)/messages/3", token: ann.token, json: ["body": "Great!"]).errorCode == "blocked")

            // People who share an event (here, one over for three days) write freely; the
            // other sees a request until they answer.
            let event = try await api.createEvent(cy.token, startsIn: 3_600, duration: 3_600, now: clock.now()).id
            let dee = try await api.register("Dee")
            #expect(try await api.post("/v1/events/\(event)/attendance", token: dee.token).status == .ok)
            clock.advance(by: 3 * 86_400)
            let teammates = try await api.conversation(with: cy.id, token: dee.token)
            try await api.say("Rematch?", in: teammates.id, token: dee.token)
            try await api.say("Yes, and again", in: teammates.id, token: dee.token)
            let seen = try await api.get("/v1/conversations/\(teammates.id)", token: cy.token).decode(API.Conversation.self)
            #expect(seen.state == .requested && seen.requestedBy == dee.id)
            #expect(try await api.get("/v1/conversations/\(teammates.id)", token: dee.token).decode(API.Conversation.self).canSend)
            // A week after the event ended it is no longer shared: Dee waits for an answer.
            clock.advance(by: 5 * 86_400)
            #expect(
                try await api.post("/v1/rooms/\(teammates.id)/messages", token: dee.token, json: ["body": "Hello?", "client_id": "late"])
                    .errorCode == "request_pending")
            #expect(try await api.get("/v1/conversations/\(teammates.id)", token: dee.token).decode(API.Conversation.self).canSend == false)
            try await api.say("Sorry, busy week. Yes!", in: teammates.id, token: cy.token)
            try await api.say("Great", in: teammates.id, token: dee.token)
        }
    }

    @Test(
        "no way around a message request: a waitlist place is not sharing, and leaving ends it unless the other wrote", arguments: engines)
    func requestBypass(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let ann = try await api.register("Ann")
            let host = try await api.register("Host")
            let mallory = try await api.register("Mallory")
            // Ann's game is full; Mallory gets only a waitlist place.
            let full = try await api.createEvent(host.token, capacity: 1, now: clock.now()).id
            #expect(try await api.join(full, token: ann.token).status == .going)
            #expect(try await api.join(full, token: mallory.token).status == .waitlisted)
            let room = try await api.conversation(with: ann.id, token: mallory.token).id
            try await api.say("Hi Ann", in: room, token: mallory.token)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: mallory.token, json: ["body": "Ann?", "client_id": "w2"]).errorCode
                    == "request_pending")
            let waiting = try await api.get("/v1/conversations/\(room)", token: mallory.token).decode(API.Conversation.self)
            #expect(!waiting.canSend && !waiting.sharesEvent)

            // Joining Ann's own open game shares it: Mallory writes while she is going.
            let open = try await api.createEvent(ann.token, now: clock.now()).id
            #expect(try await api.join(open, token: mallory.token).status == .going)
            let sharing = try await api.get("/v1/conversations/\(room)", token: mallory.token).decode(API.Conversation.self)
            #expect(sharing.canSend && sharing.sharesEvent)
            try await api.say("We play together on Sunday", in: room, token: mallory.token)
            #expect(try await api.post("/v1/rooms/\(room)/messages/1/reactions", token: mallory.token, json: ["emoji": "🙏"]).status == .ok)
            // Ann still sees a request: nothing opened it for good.
            let asked = try await api.rooms(ann.token).items.first { $0.id == room }
            #expect(asked?.conversation?.value1.state == .requested && asked?.conversation?.value1.requestedBy == mallory.id)
            // Leaving ends it: Mallory waits for Ann again, messages and reactions alike.
            #expect(try await api.delete("/v1/events/\(open)/attendance", token: mallory.token).status == .noContent)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: mallory.token, json: ["body": "Still there?", "client_id": "l1"])
                    .errorCode == "request_pending")
            #expect(
                try await api.post("/v1/rooms/\(room)/messages/1/reactions", token: mallory.token, json: ["emoji": "👍"]).errorCode
                    == "request_pending")
            #expect(try await api.rooms(mallory.token).items.first { $0.id == room }?.conversation?.value1.canSend == false)
            // A removed attendee is no longer sharing either; a cancelled event is not shared.
            #expect(try await api.join(open, token: mallory.token).status == .going)
            #expect(try await api.delete("/v1/events/\(open)/attendees/\(mallory.id)", token: ann.token).status == .noContent)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: mallory.token, json: ["body": "Hey", "client_id": "r1"]).errorCode
                    == "request_pending")
            let other = try await api.createEvent(ann.token, now: clock.now()).id
            #expect(try await api.join(other, token: mallory.token).status == .going)
            #expect(try await api.delete("/v1/events/\(other)", token: ann.token).status == .noContent)
            #expect(
                try await api.post("/v1/rooms/\(room)/messages", token: mallory.token, json: ["body": "Hey", "client_id": "c1"]).errorCode
                    == "request_pending")

            // Once Ann writes back, the conversation is open for good.
            try await api.say("Hi Mallory", in: room, token: ann.token)
            try await api.say("Great", in: room, token: mallory.token)
            #expect(try await api.get("/v1/conversations/\(room)", token: ann.token).decode(API.Conversation.self).state == .open)
        }
    }

    @Test("the chats list: most recent first, last message, unread counts, paging, mute", arguments: engines)
    func chatsList(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let me = people[0]
            clock.advance(by: 1)
            let talk = try await api.conversation(with: owner.id, token: me.token)
            clock.advance(by: 1)
            try await api.say("Are you bringing the ball?", in: talk.id, token: me.token)
            clock.advance(by: 1)
            try await api.say("Yes", in: talk.id, token: owner.token)
            try await api.say("And bibs", in: talk.id, token: owner.token)
            clock.advance(by: 1)
            var list = try await api.rooms(me.token).items
            #expect(list.map(\.id) == [talk.id, event])
            #expect(
                list[0].kind == .conversation && list[0].unreadCount == 2 && list[0].lastMessage?.value1.body == "And bibs"
                    && list[0].title == "Owner")
            #expect(list[1].kind == .event && list[1].unreadCount == 0 && list[1].lastMessage == nil && list[1].event?.id == event)
            // A message in the event's room moves it to the top.
            for n in 1...3 { try await api.say("event news \(n)", in: event, token: owner.token) }
            list = try await api.rooms(me.token).items
            #expect(list.map(\.id) == [event, talk.id])
            #expect(list[0].unreadCount == 3 && list[0].lastSeq == 3)
            // Reading moves the count; own messages never count.
            #expect(try await api.post("/v1/rooms/\(event)/read", token: me.token, json: ["seq": 2]).status == .noContent)
            try await api.say("mine", in: event, token: me.token)
            list = try await api.rooms(me.token).items
            #expect(list[0].unreadCount == 1 && list[0].lastReadSeq == 2)
            // Paging: one per page, no repeats, no gaps.
            let first = try await api.rooms(me.token, query: "?limit=1")
            let second = try await api.rooms(me.token, query: "?limit=1&cursor=\(try #require(first.nextCursor))")
            #expect(first.items.map(\.id) + second.items.map(\.id) == [event, talk.id])
            #expect(second.nextCursor == nil)
            // Muting, for a time or until unmuted.
            #expect(try await api.put("/v1/rooms/\(event)/mute", token: me.token, json: [:]).status == .noContent)
            let until = RFC3339.format(clock.now().addingTimeInterval(3_600))
            #expect(try await api.put("/v1/rooms/\(talk.id)/mute", token: me.token, json: ["until": until]).status == .noContent)
            #expect(
                try await api.put(
                    "/v1/rooms/\(talk.id)/mute", token: me.token, json: ["until": RFC3339.format(clock.now().addingTimeInterval(-1))]
                ).errorFields["until"] != nil)
            #expect(
                try await api.put("/v1/rooms/\(talk.id)/mute", token: me.token, json: ["until": "9999-12-31T23:59:59-23:59"]).errorFields[
                    "until"] != nil)
            list = try await api.rooms(me.token).items
            #expect(list.first { $0.id == event }?.muted == true && list.first { $0.id == event }?.mutedUntil == nil)
            #expect(
                list.first { $0.id == talk.id }?.muted == true && list.first { $0.id == talk.id }?.mutedUntil.map(RFC3339.format) == until)
            #expect(try await api.delete("/v1/rooms/\(event)/mute", token: me.token).status == .noContent)
            #expect(try await api.rooms(me.token).items.first { $0.id == event }?.muted == false)
            // Someone else's conversation cannot be muted; an event the caller left is not listed.
            let (stranger, _) = try await api.register("Stranger")
            #expect(try await api.put("/v1/rooms/\(talk.id)/mute", token: stranger, json: [:]).status == .notFound)
            _ = try await api.delete("/v1/events/\(event)/attendance", token: me.token)
            #expect(try await api.rooms(me.token).items.map(\.id) == [talk.id])
        }
    }

}

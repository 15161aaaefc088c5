import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// An event with an organiser and `members` people going.
func chatRoom(_ api: API, clock: ManualClock, members: Int) async throws -> (
    event: String, owner: (token: String, id: String), people: [(token: String, id: String)]
) {
    let owner = try await api.register("Owner")
    let event = try await api.createEvent(owner.token, now: clock.now()).id
    var people: [(token: String, id: String)] = []
    for i in 0..<members {
        let person = try await api.register("Member\(i)")
        _ = try await api.post("/v1/events/\(event)/attendance", token: person.token)
        people.append(person)
    }
    return (event, owner, people)
}

// Ten minutes a test: a hang still fails with its name, and the heaviest (a thousand messages
// from twenty senders) took over five beside every other test on a 2.1 GHz two-core Xeon.
@Suite("Event chat over HTTP", .timeLimit(.minutes(10)))
struct ChatTests {
    @Test("who may read and write; a cancelled event's chat is read-only", arguments: engines)
    func permissions(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let (outsider, _) = try await api.register("Outsider")
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "Hi all", "client_id": "o-1"]).status
                    == .created)
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: people[0].token, json: ["body": "Hello", "client_id": "m-1"])
                    .status == .created)
            let denied = try await api.post("/v1/events/\(event)/messages", token: outsider, json: ["body": "Let me in", "client_id": "x"])
            #expect(denied.status == .forbidden)
            #expect(try await api.get("/v1/events/\(event)/messages", token: outsider).status == .forbidden)
            #expect(try await api.get("/v1/events/\(UUID())/messages", token: outsider).status == .notFound)
            #expect(try await api.post("/v1/events/\(event)/read", token: outsider, json: ["seq": 1]).status == .forbidden)
            // Leaving ends access.
            _ = try await api.delete("/v1/events/\(event)/attendance", token: people[0].token)
            #expect(try await api.get("/v1/events/\(event)/messages", token: people[0].token).status == .forbidden)
            _ = try await api.delete("/v1/events/\(event)", token: owner.token)
            let closed = try await api.post(
                "/v1/events/\(event)/messages", token: owner.token, json: ["body": "Anyone?", "client_id": "o-2"])
            #expect(closed.status == .conflict)
            #expect(try await api.messages(event, token: owner.token).count == 2)
        }
    }

    @Test(
        "20 concurrent senders × 50 messages number 1–1000 with no gap; a retried client_id returns the original, also sent eight times at once",
        arguments: engines)
    func concurrentSenders(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, _, people) = try await chatRoom(api, clock: clock, members: 20)
            let seqs = try await withThrowingTaskGroup(of: [Int].self) { group in
                for (i, person) in people.enumerated() {
                    group.addTask {
                        var mine: [Int] = []
                        for n in 0..<50 {
                            mine.append(
                                try await api.sendMessage("m \(i)-\(n)", clientID: "c-\(i)-\(n)", to: event, token: person.token).seq)
                        }
                        return mine
                    }
                }
                var all: [Int] = []
                for try await mine in group {
                    #expect(mine == mine.sorted(), "one sender's messages keep their order")
                    all += mine
                }
                return all
            }
            #expect(seqs.sorted() == Array(1...1_000))
            // Retrying a send returns the stored message, not a new one.
            let retry = try await api.post(
                "/v1/events/\(event)/messages", token: people[3].token, json: ["body": "m 3-7 (again)", "client_id": "c-3-7"])
            #expect(retry.status == .ok)
            #expect(try retry.decode(API.ChatMessage.self).body == "m 3-7")
            // The same message sent eight times at once (a client retrying on a slow link):
            // stored once, each answer the one message, one of them "created".
            let copies = try await api.postAtOnce(
                8, "/v1/events/\(event)/messages", token: people[5].token, json: ["body": "once", "client_id": "once"]
            )
            .map { ($0.status, try $0.decode(API.ChatMessage.self)) }
            #expect(copies.filter { $0.0 == .created }.count == 1)
            #expect(copies.filter { $0.0 == .ok }.count == 7)
            #expect(Set(copies.map(\.1.seq)) == [1_001])
            let history = try await api.chatHistory(event, token: people[0].token)
            #expect(history.map(\.seq) == Array(1...1_001))
        }
    }

    @Test("validation, paging, read markers and the send rate limit", arguments: engines)
    func validationAndPaging(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.chatRateLimit = 25 }) { api, _ in
            let (event, owner, _) = try await chatRoom(api, clock: clock, members: 0)
            let path = "/v1/events/\(event)/messages"
            #expect(try await api.post(path, token: owner.token, json: ["body": "   ", "client_id": "a"]).errorFields["body"] != nil)
            #expect(
                try await api.post(path, token: owner.token, json: ["body": String(repeating: "b", count: 2_001), "client_id": "a"])
                    .errorFields["body"] != nil)
            #expect(try await api.post(path, token: owner.token, json: ["body": "ok"]).errorFields["client_id"] != nil)
            // At most 2,000 as sent (the contract's maxLength counts the spaces that are trimmed too).
            #expect(
                try await api.post(
                    path, token: owner.token, json: ["body": " " + String(repeating: "b", count: 2_000) + " ", "client_id": "over"]
                ).errorFields["body"] != nil)
            #expect(
                try await api.post(
                    path, token: owner.token, json: ["body": " " + String(repeating: "b", count: 1_998) + " ", "client_id": "edge"]
                ).status == .created)
            // A retried client_id answers the original and costs no place in the rate (on
            // PostgreSQL the one-statement send takes a place, finds the original, and gives it back).
            for _ in 0..<3 {
                #expect(try await api.post(path, token: owner.token, json: ["body": "edge again", "client_id": "edge"]).status == .ok)
            }
            for n in 1..<25 {
                #expect(try await api.post(path, token: owner.token, json: ["body": "n\(n)", "client_id": "n\(n)"]).status == .created)
            }
            let limited = try await api.post(path, token: owner.token, json: ["body": "too fast", "client_id": "late"])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)

            let latest = try await api.page(API.ChatMessage.self, path + "?limit=10", token: owner.token)
            #expect(latest.items.map(\.seq) == Array(16...25))
            let older = try await api.page(
                API.ChatMessage.self, path + "?limit=10&cursor=\(try #require(latest.nextCursor))", token: owner.token)
            #expect(older.items.map(\.seq) == Array(6...15))
            let after = try await api.page(API.ChatMessage.self, path + "?after_seq=20", token: owner.token)
            #expect(after.items.map(\.seq) == Array(21...25))
            #expect(after.nextCursor == nil)
            #expect(
                try await api.page(API.ChatMessage.self, path + "?after_seq=1&before_seq=5", token: owner.token).items.map(\.seq) == [
                    2, 3, 4,
                ])
            #expect(try await api.get(path + "?after_seq=-1", token: owner.token).status == .unprocessableContent)

            #expect(try await api.post("/v1/events/\(event)/read", token: owner.token, json: ["seq": 25]).status == .noContent)
            #expect(try await api.post("/v1/events/\(event)/read", token: owner.token, json: ["seq": 26]).status == .unprocessableContent)
            #expect(try await api.post("/v1/events/\(event)/read", token: owner.token, json: ["seq": "x"]).status == .unprocessableContent)
        }
    }

    // On PostgreSQL a text message to a room whose kind, heading and sender the instance's
    // last send found is stored in one statement, its jobs written by that statement; the
    // first send and any that finds a name changed go through the transaction. Each job
    // must hold what the transaction would have queued, with the names as they are now.
    @Test(
        "a chat notification's job holds the event's title, the group's name and the sender's name as they are when the message is sent",
        arguments: engines)
    func notificationJobs(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        let queue = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock, queueClock: queue, configure: { $0.jobWorkers = 0 }) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let eventID = try #require(UUID(uuidString: event))
            let ownerID = try #require(UUID(uuidString: owner.id))
            // Each chat job, by recipient: its payload, its kind and when it is due.
            func jobs() async throws -> [String: (payload: String, kind: String, runAt: Date)] {
                try await services.database.read { sql in
                    var found: [String: (payload: String, kind: String, runAt: Date)] = [:]
                    for row in try await sql.raw(
                        "SELECT dedupe_key, payload, kind, run_at FROM jobs WHERE dedupe_key LIKE 'chat_message:%' AND state = 'queued'"
                    ).all() {
                        found[try row.value("dedupe_key")] = (try row.value("payload"), try row.value("kind"), try row.value("run_at"))
                    }
                    return found
                }
            }
            // As if each had been pushed: the next message arms them again.
            func pushed() async throws {
                try await services.database.write { sql in
                    try await sql.raw("UPDATE jobs SET state = 'done' WHERE dedupe_key LIKE 'chat_message:%'").run()
                }
            }
            func expect(
                _ heading: ChatHeading, room: UUID, seq: Int, sender: String, said: String, told: [(token: String, id: String)],
                sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let found = try await jobs()
                #expect(found.count == told.count, sourceLocation: sourceLocation)
                for person in told {
                    let id = try #require(UUID(uuidString: person.id))
                    let (message, key) = Notifier.chatNotification(
                        heading, seq: Int64(seq), sender: UserSummary(id: ownerID, name: sender), preview: said,
                        to: id, mentioned: false, language: .en)
                    #expect(key == "chat_message:\(room.lowercased):\(person.id.lowercased())", sourceLocation: sourceLocation)
                    let job = try #require(found[key], sourceLocation: sourceLocation)
                    #expect(job.payload == message.encoded, sourceLocation: sourceLocation)
                    // Due two seconds after it was queued (PostgreSQL keeps microseconds).
                    #expect(job.kind == "chat_message", sourceLocation: sourceLocation)
                    #expect(abs(job.runAt.timeIntervalSince(queue.now()) - Notifier.chatDelay) < 0.001, sourceLocation: sourceLocation)
                }
            }
            // Sends, and checks whether the message was stored in one statement (on PostgreSQL).
            func send(_ path: String, _ body: String, oneStatement: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
                async throws -> API.ChatMessage
            {
                let before = services.chat.recent.storedInOneStatementCount
                let sent: API.ChatMessage = try await api.post(path, token: owner.token, json: ["body": body, "client_id": body]).decode(
                    expecting: .created)
                #expect(
                    services.chat.recent.storedInOneStatementCount - before == (oneStatement && engine == .postgres ? 1 : 0),
                    sourceLocation: sourceLocation)
                return sent
            }

            let messages = "/v1/events/\(event)/messages"
            _ = try await send(messages, "first")
            try await pushed()
            let second = try await send(messages, "second", oneStatement: true)
            #expect(second.sender.name == "Owner" && second.seq == 2 && second.eventId?.lowercased() == event.lowercased())
            try await expect(
                .event(id: eventID, title: "Five-a-side"), room: eventID, seq: 2, sender: "Owner", said: "second", told: people)
            // Renamed since the last send: the new title, the new name.
            #expect(try await api.patch("/v1/events/\(event)", token: owner.token, json: ["title": "Sunday football"]).status == .ok)
            try await pushed()
            _ = try await send(messages, "third")
            try await expect(
                .event(id: eventID, title: "Sunday football"), room: eventID, seq: 3, sender: "Owner", said: "third", told: people)
            #expect(try await api.patch("/v1/me", token: owner.token, json: ["name": "Olga"]).status == .ok)
            try await pushed()
            let fourth = try await send(messages, "fourth")
            #expect(fourth.sender.name == "Olga")
            try await expect(
                .event(id: eventID, title: "Sunday football"), room: eventID, seq: 4, sender: "Olga", said: "fourth", told: people)
            // The transaction that found the new names left them for the next send.
            _ = try await send(messages, "fifth", oneStatement: true)
            #expect(
                try await api.chatHistory(event, token: people[1].token).map(\.body) == ["first", "second", "third", "fourth", "fifth"])

            // A group's room, its name changed between two sends.
            let club: GroupsTests.GroupView = try await api.post(
                "/v1/groups", token: owner.token,
                json: [
                    "name": "Club", "location": ["lat": 48.8566, "lon": 2.3522], "policy": "public",
                ]
            ).decode(expecting: .created)
            let clubID = try #require(UUID(uuidString: club.id))
            for person in people { try await GroupsTests.join(api, club.id, person.token) }
            let room = "/v1/rooms/\(club.id)/messages"
            try await pushed()
            _ = try await send(room, "club 1")
            try await pushed()
            _ = try await send(room, "club 2", oneStatement: true)
            try await expect(.group(id: clubID, name: "Club"), room: clubID, seq: 2, sender: "Olga", said: "club 2", told: people)
            #expect(try await api.patch("/v1/groups/\(club.id)", token: owner.token, json: ["name": "Tuesday club"]).status == .ok)
            try await pushed()
            _ = try await send(room, "club 3")
            try await expect(.group(id: clubID, name: "Tuesday club"), room: clubID, seq: 3, sender: "Olga", said: "club 3", told: people)
        }
    }

    @Test("attendees who are not connected get one collapsed chat notification", arguments: engines)
    func chatNotifications(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            for n in 0..<3 {
                _ = try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "news \(n)", "client_id": "n\(n)"])
            }
            try await eventually("the chat notification") {
                try await api.notifications(people[0].token).contains { $0.kind == .chatMessage }
            }
            for n in 3..<5 {
                _ = try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "news \(n)", "client_id": "n\(n)"])
            }
            try await eventually("the collapsed job to run again") {
                try await count(services, "jobs", where: "kind = 'chat_message' AND state IN ('queued', 'running')") == 0
            }
            let unread = try await api.notifications(people[0].token, unread: true).filter { $0.kind == .chatMessage }
            #expect(unread.count == 1, "one unread chat notification per event")
            // The sender is not notified of their own messages.
            #expect(try await api.notifications(owner.token).isEmpty)
            // Reading the chat reads its notification.
            _ = try await api.post("/v1/events/\(event)/read", token: people[0].token, json: ["seq": 5])
            #expect(try await api.notifications(people[0].token, unread: true).isEmpty)
        }
    }
}

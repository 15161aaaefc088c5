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

/// An instant one task marks and others read.
final class Moment: Sendable {
    private let value = Mutex<ContinuousClock.Instant?>(nil)
    var instant: ContinuousClock.Instant? { value.withLock { $0 } }
    func mark() { value.withLock { $0 = .now } }
}

func socketURL(_ api: API) throws -> String {
    guard let port = api.client.port else { throw ClusterError("not a live test") }
    return "ws://127.0.0.1:\(port)/v1/ws"
}

// Ten minutes a test: a hang still fails with its name, and the heaviest (2,000 messages to ten
// resuming clients) took over five beside every other test on a 2.1 GHz two-core Xeon.
@Suite("Realtime chat over WebSocket", .timeLimit(.minutes(10)))
struct RealtimeTests {
    @Test("subscribe sends history then live messages; socket messages are stored first", arguments: engines)
    func subscribeAndLive(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            for n in 1...5 {
                _ = try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "old \(n)", "client_id": "old\(n)"])
            }
            let alice = try await TestSocket.connect(try socketURL(api), token: people[0].token)
            alice.send(["type": "subscribe", "event_id": event, "after_seq": 2])
            try await alice.waitFor("history") { _ in try alice.messageSeqs == [3, 4, 5] }
            let owners = try await TestSocket.connect(try socketURL(api) + "?access_token=\(owner.token)")
            owners.send(["type": "subscribe", "event_id": event, "after_seq": 5])
            try await owners.waitFor("subscribed") { $0.type == "subscribed" }
            owners.send(["type": "message", "event_id": event, "body": "over the socket", "client_id": "ws-1"])
            try await owners.waitFor("ack") { $0.sent?.seq == 6 }
            try await alice.waitFor("live message") { _ in try alice.messageSeqs == [3, 4, 5, 6] }
            let stored = try await api.page(API.ChatMessage.self, "/v1/events/\(event)/messages?after_seq=5", token: owner.token).items
            #expect(stored.first?.body == "over the socket")
            // Typing is relayed to the others, read markers too.
            owners.send(["type": "typing", "event_id": event])
            try await alice.waitFor("typing") { $0.type == "typing" }
            alice.send(["type": "read", "event_id": event, "seq": 6])
            try await owners.waitFor("read") { $0.read?.seq == 6 }
            // Leaving the event ends the subscription.
            _ = try await api.delete("/v1/events/\(event)/attendance", token: people[0].token)
            try await alice.waitFor("unsubscribed") { $0.type == "unsubscribed" }
            _ = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "after", "client_id": "after"])
            try await owners.waitFor("own message") { _ in try owners.messageSeqs.contains(7) }
            #expect(try !alice.messageSeqs.contains(7))
            // Bad frames get error frames, not a closed socket.
            owners.send(["type": "dance", "event_id": event])
            try await owners.waitFor("error") { $0.type == "error" }
            await alice.close()
            await owners.close()
        }
    }

    @Test("sockets need a token and an allowed origin", arguments: [DatabaseEngine.sqlite])
    func socketAuth(engine: DatabaseEngine) async throws {
        try await withApp(engine, setup: .live, configure: { $0.corsAllowedOrigins = ["https://app.example.com"] }) { api, _ in
            let (token, _) = try await api.register("Sock")
            await #expect(throws: (any Error).self) { try await TestSocket.connect(try socketURL(api)) }
            await #expect(throws: (any Error).self) { try await TestSocket.connect(try socketURL(api), token: "not-a-token") }
            let port = try #require(api.client.port)
            await #expect(throws: (any Error).self) {
                try await blocking { try RawSocket(port: port, token: token, origin: "https://evil.example.com") }
            }
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "https://app.example.com") }
            _ = try await blocking { try RawSocket(port: port, token: token) }
            await #expect(throws: (any Error).self) { try await blocking { try RawSocket(port: port, token: "bad") } }
            // A page of this server (its host and port) may; a page on another port of the same host may not.
            let host = "127.0.0.1:\(port)"
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "http://\(host)", host: host) }
            _ = try await blocking {
                try RawSocket(port: port, token: token, origin: "http://localhost:\(port)", host: "localhost:\(port)")
            }
            for origin in ["http://127.0.0.1:\(port + 1)", "http://127.0.0.1", "https://127.0.0.1", "ftp://\(host)", "null", "file://"] {
                await #expect(throws: (any Error).self, "\(origin)") {
                    try await blocking { try RawSocket(port: port, token: token, origin: origin, host: host) }
                }
            }
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "http://127.0.0.1", host: "127.0.0.1") }
            // A client library's own URL as its Origin is no browser page.
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "ws://127.0.0.1", host: host) }
            let ok = try await TestSocket.connect(try socketURL(api), token: token)
            await ok.close()
            #expect(
                try await api.request(.get, "/v1/ws", token: token, headers: [.origin: "https://evil.example.com"]).status == .forbidden)
            #expect(try await api.get("/v1/ws").status == .unauthorized)
            #expect(try await api.get("/v1/ws", token: token).status == .upgradeRequired)
        }
    }

    @Test("10 clients dropping and resuming while 2,000 messages arrive each end with seq 1–2,000 exactly once", arguments: engines)
    func resume(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.chatRateLimit = 1_000_000 }) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 10)
            let url = try socketURL(api)
            let total = 2_000
            // Senders: half over HTTP, half over a socket.
            let sender = try await TestSocket.connect(url, token: owner.token)
            sender.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await sender.waitFor("subscribed") { $0.type == "subscribed" }
            // When the last message was posted: a client waits for everything until a
            // minute after that, however long posting takes on a loaded machine.
            let postedAt = Moment()
            async let posting: Void = {
                defer { postedAt.mark() }
                /// Posts over HTTP as a client does: past capacity (503 `overloaded`) it sends
                /// the same message again a moment later.
                func post(_ body: String) async throws -> Reply {
                    var reply = try await api.post(
                        "/v1/events/\(event)/messages", token: owner.token, json: ["body": body, "client_id": body])
                    while reply.status == .serviceUnavailable, try reply.errorCode == "overloaded" {
                        try await Task.sleep(for: .milliseconds(100))
                        reply = try await api.post(
                            "/v1/events/\(event)/messages", token: owner.token, json: ["body": body, "client_id": body])
                    }
                    return reply
                }
                for n in 0..<(total / 2) {
                    let reply = try await post("h\(n)")
                    guard reply.status == .created else {
                        Issue.record("post \(n) answered \(reply.status): \(reply.text)")
                        throw ClusterError("post \(reply.status)")
                    }
                    if n % 50 == 0 {
                        for s in 0..<50 where (n / 50) * 50 + s < total / 2 {
                            sender.send([
                                "type": "message", "event_id": event, "body": "s\((n / 50) * 50 + s)", "client_id": "s\((n / 50) * 50 + s)",
                            ])
                        }
                    }
                }
                // The sender reads every message too; on a loaded machine the server may
                // close it as too slow a reader, and what it sent after that was never
                // taken; and past capacity a message is refused (`overloaded`). As a real
                // client does, it sends again what was not acknowledged, with the same
                // client ids: what was stored is answered with the original.
                try await eventually("every socket message answered, or the socket closed") {
                    let answered = try sender.frames.filter { $0.type == "sent" || $0.error?.clientId != nil }.count
                    return sender.isClosed || answered >= total / 2
                }
                let acknowledged = Set((try? sender.frames)?.compactMap { $0.sent?.clientId } ?? [])
                for k in 0..<(total / 2) where !acknowledged.contains("s\(k)") {
                    let reply = try await post("s\(k)")
                    guard reply.status == .created || reply.status == .ok else {
                        throw ClusterError("resend \(k) answered \(reply.status)")
                    }
                }
            }()
            // Each client: connect, subscribe after what it holds, read a while, drop; repeat.
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for (i, person) in people.enumerated() {
                    group.addTask {
                        var rng = TestRandom(seed: UInt64(i + 1))
                        var held: [Int] = []
                        var rounds = 0
                        while held.last ?? 0 < total {
                            rounds += 1
                            let socket = try await TestSocket.connect(url, token: person.token)
                            socket.send(["type": "subscribe", "event_id": event, "after_seq": held.last ?? 0])
                            try await Task.sleep(for: .milliseconds(Int.random(in: 20...300, using: &rng)))
                            if rounds > 40 {
                                // Late rounds stay until the end.
                                // Until everything is here, or the server closes the socket (a
                                // client reading too slowly on a loaded machine is closed: it then
                                // resumes, as a real one does).
                                try await eventually("everything", timeout: .seconds(3_600)) {
                                    if try (socket.messageSeqs.last ?? 0) >= total { return true }
                                    if socket.isClosed { return true }
                                    if let posted = postedAt.instant, ContinuousClock.now - posted > .seconds(60) {
                                        throw ClusterError(
                                            "a minute after the last message was posted, the client holds up to \(try socket.messageSeqs.last ?? 0) of \(total) (closed: \(String(describing: socket.closedWith)); the sender closed: \(String(describing: sender.closedWith)))"
                                        )
                                    }
                                    return false
                                }
                            }
                            await socket.close()
                            held += try socket.messageSeqs
                        }
                        return held
                    }
                }
                var out: [[Int]] = []
                for try await held in group { out.append(held) }
                return out
            }
            try await posting
            #expect(results.count == 10)
            for held in results { #expect(held == Array(1...total)) }
            await sender.close()
        }
    }

    @Test("a message stored while sockets subscribe reaches every one of them (live or in their history)", arguments: engines)
    func subscribeWhileSending(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.chatRateLimit = 1_000_000 }) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 4)
            let url = try socketURL(api)
            // Each round, every member opens a socket and subscribes after what it holds
            // while the owner posts a message: the message is stored before, during or
            // after the subscription is set up, and whichever it is, it must arrive. (A
            // reconnecting client and a sender whose message was waiting for the same
            // reconnection meet like this.)
            for round in 1...100 {
                let sockets = try await withThrowingTaskGroup(of: TestSocket.self) { group in
                    for person in people { group.addTask { try await TestSocket.connect(url, token: person.token) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for socket in sockets { socket.send(["type": "subscribe", "event_id": event, "after_seq": round - 1]) }
                let reply = try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "round \(round)", "client_id": "r\(round)"])
                #expect(reply.status == .created)
                for socket in sockets {
                    try await eventually("round \(round)'s message on every socket") { try socket.messageSeqs.contains(round) }
                    #expect(try socket.messageSeqs == [round], "each socket is sent the message once")
                    await socket.close()
                }
            }
        }
    }

    @Test(
        "presence counts while its instance's heartbeat is fresh: a stale instance's people are told, and a heartbeat sweeps a gone instance's rows",
        arguments: engines)
    func presenceFollowsInstanceHeartbeat(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let room = try #require(UUID(uuidString: event))
            for (n, person) in people.enumerated() {
                try await services.chat.present(try #require(UUID(uuidString: person.id)), in: room, instance: n == 0 ? "alive" : "stalled")
            }
            // A person told of the room's messages has one push queued (later messages collapse into it).
            func told(_ person: (token: String, id: String)) async throws -> Bool {
                try await count(services, "jobs", where: "dedupe_key = 'chat_message:\(event.lowercased()):\(person.id.lowercased())'") == 1
            }
            func send(_ id: String) async throws {
                #expect(
                    try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "here?", "client_id": id]).status
                        == .created)
            }
            try await send("fresh")
            #expect(try await count(services, "jobs", where: "kind = 'chat_message'") == 0, "both in the room on instances alive: no push")
            // The second instance stops beating: after the presence lifetime its people count as away.
            // Presence rows themselves are never refreshed: the living instance's count by its heartbeat alone.
            let stalled = Date().addingTimeInterval(-(ChatService.presenceLifetime + 5))
            try await services.database.transaction { sql in
                try await sql.raw("UPDATE chat_instances SET seen_at = \(bind: stalled) WHERE instance_id = 'stalled'").run()
                try await sql.raw("UPDATE chat_presence SET seen_at = \(bind: stalled)").run()
            }
            try await send("stale")
            #expect(try await told(people[1]), "the person on the stalled instance is told")
            #expect(try await !told(people[0]), "the one on the living instance is not")
            // Another instance's heartbeat, once the stalled one is gone five minutes: its rows go, the living stay.
            let gone = Date().addingTimeInterval(-301)
            try await services.database.transaction { sql in
                try await sql.raw("UPDATE chat_instances SET seen_at = \(bind: gone) WHERE instance_id = 'stalled'").run()
            }
            try await services.chat.heartbeat(instance: "alive")
            #expect(try await count(services, "chat_presence", where: "instance_id = 'stalled'") == 0)
            #expect(try await count(services, "chat_instances", where: "instance_id = 'stalled'") == 0)
            #expect(try await count(services, "chat_presence", where: "instance_id = 'alive'") == 1)
            try await send("after")
            #expect(try await !told(people[0]), "after the sweep, the one on the living instance is still not told")
        }
    }

    @Test(
        "presence written at once by many sockets shares transactions, and each socket's rows end as its last write left them",
        arguments: engines)
    func presenceWritesInBatches(engine: DatabaseEngine) async throws {
        try await withApp(engine) { _, services in
            let writes = services.chat.presenceWrites
            let rooms = (0..<3).map { _ in UUID() }
            let people = (0..<600).map { n in (user: UUID(), room: rooms[n % rooms.count]) }
            func rows(_ instance: String) async throws -> Set<String> {
                let found = try await services.database.read { sql in
                    try await sql.raw("SELECT user_id, room_id FROM chat_presence WHERE instance_id = \(bind: instance)").all()
                }
                return Set(
                    try found.map {
                        "\(try $0.decode(column: "user_id", as: UUID.self)) \(try $0.decode(column: "room_id", as: UUID.self))"
                    })
            }
            let before = writes.batchCount
            try await withThrowingTaskGroup(of: Void.self) { group in
                for person in people {
                    group.addTask { try await services.chat.present(person.user, in: person.room, instance: "storm") }
                }
                try await group.waitForAll()
            }
            #expect(try await rows("storm") == Set(people.map { "\($0.user) \($0.room)" }), "every write is committed when it returns")
            #expect(writes.batchCount - before < people.count / 2, "writes made at once share transactions")
            #expect(try await count(services, "chat_instances", where: "instance_id = 'storm'") == 1)
            // Half leave; a third of those come back right after leaving (each socket's
            // two writes one after the other, every socket at once).
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (n, person) in people.enumerated() where n % 2 == 0 {
                    group.addTask {
                        try await services.chat.absent(person.user, from: person.room, instance: "storm")
                        if n % 3 == 0 { try await services.chat.present(person.user, in: person.room, instance: "storm") }
                    }
                }
                try await group.waitForAll()
            }
            let staying = people.enumerated().filter { n, _ in n % 2 == 1 || n % 3 == 0 }.map { "\($0.element.user) \($0.element.room)" }
            #expect(try await rows("storm") == Set(staying))
            // Another instance's rows are its own: the same person and room there is another row.
            try await services.chat.present(people[0].user, in: people[0].room, instance: "other")
            try await services.chat.absent(people[0].user, from: people[0].room, instance: "storm")
            #expect(try await rows("other") == ["\(people[0].user) \(people[0].room)"])
            #expect(try await !rows("storm").contains("\(people[0].user) \(people[0].room)"))
        }
    }

    @Test("sockets opening and subscribing all at once each get in under their own name, and each is present", arguments: engines)
    func socketsOpeningAtOnce(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, _, people) = try await chatRoom(api, clock: clock, members: 40)
            let url = try socketURL(api)
            // Opened and subscribed at once: their names, session checks and presence
            // are read and written in shared batches, each answered with its own.
            let sockets = try await withThrowingTaskGroup(of: (Int, TestSocket).self) { group in
                for (n, person) in people.enumerated() {
                    group.addTask {
                        let socket = try await TestSocket.connect(url, token: person.token)
                        socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                        return (n, socket)
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            for socket in sockets.values { try await socket.waitFor("subscribed") { $0.type == "subscribed" } }
            let room = try #require(UUID(uuidString: event))
            try await eventually("every socket's presence") {
                let present = try await services.database.read { sql in
                    try await sql.raw("SELECT user_id FROM chat_presence WHERE room_id = \(bind: room)").all().map {
                        try $0.decode(column: "user_id", as: UUID.self)
                    }
                }
                return Set(present) == Set(try people.map { try #require(UUID(uuidString: $0.id)) })
            }
            for n in 1..<people.count { sockets[n]?.send(["type": "typing", "event_id": event]) }
            let watcher = try #require(sockets[0])
            try await eventually("everyone's typing on the first socket") {
                try watcher.frames.filter { $0.type == "typing" }.count == people.count - 1
            }
            let typing = try watcher.frames.compactMap(\.typing).map { "\($0.user.id) \($0.user.name)" }
            #expect(Set(typing) == Set((1..<people.count).map { "\(people[$0].id) Member\($0)" }))
            for socket in sockets.values { await socket.close() }
        }
    }

}

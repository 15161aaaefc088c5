import Foundation
import SQLKit
import HTTPTypes
import HummingbirdTesting
import Logging
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
            for n in 1...5 { _ = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "old \(n)", "client_id": "old\(n)"]) }
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
            await #expect(throws: (any Error).self) { try await blocking { try RawSocket(port: port, token: token, origin: "https://evil.example.com") } }
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "https://app.example.com") }
            _ = try await blocking { try RawSocket(port: port, token: token) }
            await #expect(throws: (any Error).self) { try await blocking { try RawSocket(port: port, token: "bad") } }
            // A page of this server (its host and port) may; a page on another port of the same host may not.
            let host = "127.0.0.1:\(port)"
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "http://\(host)", host: host) }
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "http://localhost:\(port)", host: "localhost:\(port)") }
            for origin in ["http://127.0.0.1:\(port + 1)", "http://127.0.0.1", "https://127.0.0.1", "ftp://\(host)", "null", "file://"] {
                await #expect(throws: (any Error).self, "\(origin)") { try await blocking { try RawSocket(port: port, token: token, origin: origin, host: host) } }
            }
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "http://127.0.0.1", host: "127.0.0.1") }
            // A client library's own URL as its Origin is no browser page.
            _ = try await blocking { try RawSocket(port: port, token: token, origin: "ws://127.0.0.1", host: host) }
            let ok = try await TestSocket.connect(try socketURL(api), token: token)
            await ok.close()
            #expect(try await api.request(.get, "/v1/ws", token: token, headers: [.origin: "https://evil.example.com"]).status == .forbidden)
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
                    var reply = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": body, "client_id": body])
                    while reply.status == .serviceUnavailable, try reply.errorCode == "overloaded" {
                        try await Task.sleep(for: .milliseconds(100))
                        reply = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": body, "client_id": body])
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
                            sender.send(["type": "message", "event_id": event, "body": "s\((n / 50) * 50 + s)", "client_id": "s\((n / 50) * 50 + s)"])
                        }
                    }
                }
                // The sender reads every message too; on a loaded machine the server may
                // close it as too slow a reader, and what it sent after that was never
                // taken; and past capacity a message is refused (`overloaded`). As a real
                // client does, it sends again what was not acknowledged, with the same
                // client ids: what was stored is answered with the original.
                try await eventually("every socket message answered, or the socket closed") {
                    let answered = try sender.frames.filter { $0.type == "sent" || $0.error?.clientID != nil }.count
                    return sender.isClosed || answered >= total / 2
                }
                let acknowledged = Set((try? sender.frames)?.compactMap { $0.sent?.clientID } ?? [])
                for k in 0..<(total / 2) where !acknowledged.contains("s\(k)") {
                    let reply = try await post("s\(k)")
                    guard reply.status == .created || reply.status == .ok else { throw ClusterError("resend \(k) answered \(reply.status)") }
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
                                try await eventually(timeout: .seconds(3_600), "everything") {
                                    if try (socket.messageSeqs.last ?? 0) >= total { return true }
                                    if socket.isClosed { return true }
                                    if let posted = postedAt.instant, ContinuousClock.now - posted > .seconds(60) {
                                        throw ClusterError("a minute after the last message was posted, the client holds up to \(try socket.messageSeqs.last ?? 0) of \(total) (closed: \(String(describing: socket.closedWith)); the sender closed: \(String(describing: sender.closedWith)))")
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
                let reply = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "round \(round)", "client_id": "r\(round)"])
                #expect(reply.status == .created)
                for socket in sockets {
                    try await eventually("round \(round)'s message on every socket") { try socket.messageSeqs.contains(round) }
                    #expect(try socket.messageSeqs == [round], "each socket is sent the message once")
                    await socket.close()
                }
            }
        }
    }

    @Test("presence counts while its instance's heartbeat is fresh: a stale instance's people are told, and a heartbeat sweeps a gone instance's rows", arguments: engines)
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
                #expect(try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "here?", "client_id": id]).status == .created)
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

    @Test("presence written at once by many sockets shares transactions, and each socket's rows end as its last write left them", arguments: engines)
    func presenceWritesInBatches(engine: DatabaseEngine) async throws {
        try await withApp(engine) { _, services in
            let writes = services.chat.presenceWrites
            let rooms = (0..<3).map { _ in UUID() }
            let people = (0..<600).map { n in (user: UUID(), room: rooms[n % rooms.count]) }
            func rows(_ instance: String) async throws -> Set<String> {
                let found = try await services.database.read { sql in
                    try await sql.raw("SELECT user_id, room_id FROM chat_presence WHERE instance_id = \(bind: instance)").all()
                }
                return Set(try found.map { "\(try $0.decode(column: "user_id", as: UUID.self)) \(try $0.decode(column: "room_id", as: UUID.self))" })
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
                    try await sql.raw("SELECT user_id FROM chat_presence WHERE room_id = \(bind: room)").all().map { try $0.decode(column: "user_id", as: UUID.self) }
                }
                return Set(present) == Set(try people.map { try #require(UUID(uuidString: $0.id)) })
            }
            for n in 1..<people.count { sockets[n]?.send(["type": "typing", "event_id": event]) }
            let watcher = try #require(sockets[0])
            try await eventually("everyone's typing on the first socket") { try watcher.frames.filter { $0.type == "typing" }.count == people.count - 1 }
            let typing = try watcher.frames.compactMap(\.typing).map { "\($0.user.id) \($0.user.name)" }
            #expect(Set(typing) == Set((1..<people.count).map { "\(people[$0].id) Member\($0)" }))
            for socket in sockets.values { await socket.close() }
        }
    }

    @Test("after a rename, a socket's catch-up shows the new name on the sender's earlier messages and their quotes, as the history does", arguments: engines)
    func renameReachesKeptMessages(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let url = try socketURL(api)
            // A socket in the room keeps its recent messages in the instance's memory.
            let watcher = try await TestSocket.connect(url, token: people[1].token)
            watcher.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await watcher.waitFor("subscribed") { $0.type == "subscribed" }
            _ = try await api.say("before the rename", in: event, token: people[0].token)
            _ = try await api.say("quoting it", in: event, token: owner.token, extra: ["reply_to": 1])
            try await eventually("both messages on the watching socket") { try watcher.messageSeqs == [1, 2] }
            let renamed = try await api.patch("/v1/me", token: people[0].token, json: ["name": "Renamed Player"])
            #expect(renamed.status == .ok)
            _ = try await api.say("after the rename", in: event, token: people[0].token)
            try await eventually("the third message") { try watcher.messageSeqs == [1, 2, 3] }
            // A socket that subscribes now catches up from what the instance kept.
            let late = try await TestSocket.connect(url, token: people[1].token)
            late.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await eventually("the three messages on the late socket") { try late.messageSeqs == [1, 2, 3] }
            let caughtUp = try late.frames.compactMap { $0.message?.message }
            #expect(caughtUp.map(\.sender.name) == ["Renamed Player", "Owner", "Renamed Player"])
            #expect(caughtUp[1].replyTo?.sender.name == "Renamed Player")
            let history = try await api.get("/v1/events/\(event)/messages", token: owner.token).decode(API.Page<API.ChatMessage>.self)
            #expect(Set(history.items.filter { $0.sender.id == people[0].id }.map(\.sender.name)) == ["Renamed Player"])
            #expect(history.items.first { $0.seq == 2 }?.replyTo?.sender.name == "Renamed Player")
            await watcher.close()
            await late.close()
        }
    }

    @Test("a message whose sender's name was read before a rename, and heard of after it, is kept under the new name; a resync forgets the names", arguments: engines)
    func renameHeardBeforeTheMessage(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, _, people) = try await chatRoom(api, clock: clock, members: 2)
            let url = try socketURL(api)
            let watcher = try await TestSocket.connect(url, token: people[1].token)
            watcher.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await watcher.waitFor("subscribed") { $0.type == "subscribed" }
            // The order a send racing a rename is heard in: the rename's change first, then
            // the message, stored with the name its statement read before the rename committed
            // (here the database keeps the old name: only the change is heard).
            let sender = try #require(UUID(uuidString: people[0].id))
            services.hub.renamed(sender, to: "Renamed Meanwhile")
            _ = try await api.say("sent across the rename", in: event, token: people[0].token)
            try await eventually("the message on the watching socket") { try watcher.messageSeqs == [1] }
            func caughtUp() async throws -> [String] {
                let late = try await TestSocket.connect(url, token: people[1].token)
                late.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                try await eventually("the message on a late socket") { try late.messageSeqs == [1] }
                await late.close()
                return try late.frames.compactMap { $0.message?.message.sender.name }
            }
            #expect(try await caughtUp() == ["Renamed Meanwhile"])
            // A resync (changes may have been missed) forgets what it heard: the kept
            // messages are read again, with the database's name.
            await services.hub.handle(.resync)
            #expect(try await caughtUp() == ["Member0"])
            await watcher.close()
        }
    }

    @Test("with everyone in the room, a message sent on eight sockets at once is stored once, reaches each socket once and queues no push; someone away is told", arguments: engines)
    func everyoneThere(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let url = try socketURL(api)
            // The owner, the second member, and eight sockets of the first member's (a client
            // retrying on a slow link through new connections).
            var sockets: [TestSocket] = []
            for person in [owner, people[1]] + Array(repeating: people[0], count: 8) {
                let socket = try await TestSocket.connect(url, token: person.token)
                socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                try await socket.waitFor("subscribed") { $0.type == "subscribed" }
                sockets.append(socket)
            }
            for socket in sockets[2...] { socket.send(["type": "message", "event_id": event, "body": "all here", "client_id": "here"]) }
            for socket in sockets[2...] { try await socket.waitFor("its answer") { $0.sent?.seq == 1 } }
            for socket in sockets {
                try await eventually("the message on every socket") { try socket.messageSeqs.contains(1) }
            }
            #expect(try await count(services, "jobs", where: "kind = 'chat_message'") == 0, "no one is away: no push")
            // The second member goes away: the next message is a push for them alone.
            await sockets[1].close()
            try await eventually("their presence gone") { try await count(services, "chat_presence") == 2 }
            #expect(try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "where are you", "client_id": "away"]).status == .created)
            try await eventually("the chat notification") {
                try await api.notifications(people[1].token).contains { $0.kind == "chat_message" }
            }
            #expect(try await api.notifications(people[0].token).isEmpty, "the one in the room is not told")
            for socket in [sockets[0]] + sockets[2...] {
                try await eventually("the second message") { try socket.messageSeqs.contains(2) }
                #expect(try socket.messageSeqs == [1, 2], "each message once")
                await socket.close()
            }
            #expect(try await api.chatHistory(event, token: owner.token).map(\.body) == ["all here", "where are you"])
        }
    }

    @Test("a message's frame is the same on every socket of its room, one hiding its sender gets none, and an edit is framed anew", arguments: engines)
    func oneFramePerVersion(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 3)
            // The third member blocked the owner: they hide each other's messages.
            #expect(try await api.post("/v1/users/\(try await api.me(owner.token).id)/block", token: people[2].token).status.code < 300)
            let url = try socketURL(api)
            var sockets: [TestSocket] = []
            for person in [owner] + people {
                let socket = try await TestSocket.connect(url, token: person.token)
                socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                try await socket.waitFor("subscribed") { $0.type == "subscribed" }
                sockets.append(socket)
            }
            #expect(try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "first", "client_id": "one"]).status == .created)
            #expect(try await api.post("/v1/events/\(event)/messages", token: people[0].token, json: ["body": "second", "client_id": "two"]).status == .created)
            for socket in sockets { try await eventually("both messages") { try socket.messageSeqs.contains(2) } }
            let firstFrames = try sockets[..<3].map { socket in
                try #require(socket.texts.first { $0.contains("\"type\":\"message\"") && $0.contains("\"seq\":1,") })
            }
            #expect(Set(firstFrames).count == 1, "every socket is sent the same frame")
            #expect(try sockets[3].messageSeqs == [2], "the owner's message does not reach the one who blocked them")
            _ = try await api.patch("/v1/rooms/\(event)/messages/1", token: owner.token, json: ["body": "first, edited"])
            let late = try await TestSocket.connect(url, token: people[1].token)
            late.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            let framed = try await late.waitFor("the first message as it is now") { $0.message?.message.seq == 1 }
            #expect(framed.message?.message.body == "first, edited")
            for socket in sockets + [late] { await socket.close() }
        }
    }

    @Test("a subscription set up while its member leaves the event ends with the attendance", arguments: engines)
    func subscribeWhileLeaving(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, _, people) = try await chatRoom(api, clock: clock, members: 4)
            let url = try socketURL(api)
            // Each round, every member subscribes while leaving the event: the leave lands
            // before, during or after the subscription is set up. Whichever it is, no
            // subscription may outlive the attendance: refused, or ended "not_attending".
            for round in 1...40 {
                let sockets = try await withThrowingTaskGroup(of: TestSocket.self) { group in
                    for person in people { group.addTask { try await TestSocket.connect(url, token: person.token) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (socket, person) in zip(sockets, people) {
                        group.addTask {
                            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                            let left = try await api.delete("/v1/events/\(event)/attendance", token: person.token)
                            #expect(left.status == .noContent)
                        }
                    }
                    try await group.waitForAll()
                }
                for socket in sockets {
                    let outcome = try await socket.waitFor("round \(round)'s answer to subscribe") { $0.type == "subscribed" || $0.type == "error" }
                    if outcome.type == "subscribed" {
                        try await socket.waitFor("round \(round)'s subscription ended with the attendance") { $0.unsubscribed?.reason == "not_attending" }
                    }
                    await socket.close()
                }
                for person in people {
                    let back = try await api.post("/v1/events/\(event)/attendance", token: person.token)
                    #expect(back.status == .created || back.status == .ok, "\(back.text)")
                }
            }
        }
    }

    /// An event room's owner with a raw socket subscribed to it from the start, and the
    /// room given `megabytes` of history (500 messages of 2 KB a megabyte), announced
    /// to the socket at once: the socket and the owner's token.
    private func subscribedToHistory(_ api: API, _ services: AppServices, clock: ManualClock, megabytes: Int) async throws -> (socket: RawSocket, ownerToken: String) {
        let (event, owner, _) = try await chatRoom(api, clock: clock, members: 0)
        let port = try #require(api.client.port)
        let socket = try await blocking { try RawSocket(port: port, token: owner.token) }
        try socket.send(#"{"type":"subscribe","event_id":"\#(event)","after_seq":0}"#)
        let body = String(repeating: "x", count: 2_000)
        let eventID = try #require(UUID(uuidString: event))
        let sender = UserSummary(id: try #require(UUID(uuidString: owner.id)), name: "Owner")
        for chunk in 0..<megabytes {
            try await services.database.transaction { sql in
                for n in 0..<500 {
                    _ = try await services.chatStore.insert(room: eventID, .init(sender: sender, clientID: "m\(chunk)-\(n)", body: body, attachment: nil, replyTo: nil, mentions: []),
                                                            at: clock.now(), on: sql)
                }
            }
        }
        services.changes.received(.chat(room: eventID, seq: Int64(megabytes * 500)))
        return (socket, owner.token)
    }

    @Test("a client that stops reading is closed, and the server holds a bounded queue for it")
    func slowConsumer() async throws {
        let clock = ManualClock()
        try await withApp(.sqlite, clock: clock, setup: .live, configure: { c in
            c.chatRateLimit = 1_000_000
            c.webSocketMaxQueue = 100
            c.webSocketStallTimeout = 1
            c.webSocketPingInterval = 600
        }) { api, services in
            // 10 MB of history, far more than socket buffers hold.
            let (slow, _) = try await subscribedToHistory(api, services, clock: clock, megabytes: 10)
            var peak = 0
            let deadline = ContinuousClock.now + .seconds(20)
            while services.hub.connectionCount > 0 && ContinuousClock.now < deadline {
                peak = max(peak, services.hub.largestQueue)
                try await Task.sleep(for: .milliseconds(20))
            }
            try await eventually("the slow client to be closed") { services.hub.connectionCount == 0 }
            #expect(peak <= 100, "the queue never held more than its capacity")
            // The client finds its connection closed (the close frame with the reason
            // goes out only if the full socket takes it within a second).
            #expect(try await blocking { try slow.drainUntilClosed() }, "the server closed the connection")
        }
    }

    @Test("a client that takes no more frames is cut once its session ends, though it has not stalled for the stall timeout")
    func cutAfterEnding() async throws {
        let clock = ManualClock()
        try await withApp(.sqlite, clock: clock, setup: .live, configure: { c in
            c.chatRateLimit = 1_000_000
            c.webSocketMaxQueue = 100
            c.webSocketStallTimeout = 3_600
            c.webSocketPingInterval = 600
        }) { api, services in
            // 40 MB of history, far more than loopback socket buffers hold (up to about 10 MB):
            // the writer ends up waiting on a full socket.
            let (slow, ownerToken) = try await subscribedToHistory(api, services, clock: clock, megabytes: 40)
            try await eventually("the socket's queue to fill") { services.hub.largestQueue >= 50 }
            // The close frame cannot get out through the full socket: the connection is cut instead.
            #expect(try await api.post("/v1/auth/logout", token: ownerToken).status == .noContent)
            try await eventually("the client to be cut") { services.hub.connectionCount == 0 }
            #expect(try await blocking { try slow.drainUntilClosed() }, "the server closed the connection")
        }
    }

    @Test("each socket is pinged at its own moment; one that answers stays open, one silent for an interval after a ping is closed (1001 ping_timeout)")
    func pings() async throws {
        // The instance's timer runs on real time; with a 600 s interval it sends no ping
        // within the test (unless this socket's phase is in its first moments: then its
        // first ping is the one read below). The test ticks the timer at later instants;
        // the stall timeout lies beyond them, so that those instants close nothing as stalled.
        try await withApp(.sqlite, setup: .live, configure: { $0.webSocketPingInterval = 600; $0.webSocketStallTimeout = 3_600 }) { api, services in
            let (token, _) = try await api.register("Pinged")
            let port = try #require(api.client.port)
            let socket = try await blocking { try RawSocket(port: port, token: token) }
            try await eventually("the socket watched") { services.hub.sockets.count == 1 }
            let start = ContinuousClock.now
            services.hub.sockets.tick(now: start + .seconds(600))
            #expect(try await blocking { try socket.readFrame() }?.opcode == 0x9, "a ping within the first interval")
            // The client answers, then pings the server: the server's pong shows it read the answer.
            try socket.sendFrame(opcode: 0xA, [])
            try socket.sendFrame(opcode: 0x9, [7])
            // (The instance's own timer may have pinged too, in this socket's first moments.)
            let pong = try await blocking { () -> (opcode: UInt8, payload: [UInt8])? in
                var frame = try socket.readFrame()
                while frame?.opcode == 0x9 { frame = try socket.readFrame() }
                return frame
            }
            #expect(pong?.opcode == 0xA && pong?.payload == [7])
            services.hub.sockets.tick(now: start + .seconds(1_200))
            #expect(try await blocking { try socket.readFrame() }?.opcode == 0x9, "still open: pinged again an interval on")
            #expect(services.hub.connectionCount == 1)
            // Nothing from the client in the interval after that ping: it is gone.
            services.hub.sockets.tick(now: start + .seconds(1_800))
            let close = try await blocking { try socket.readFrame() }
            #expect(close?.opcode == 0x8)
            #expect(close.map { Array($0.payload.prefix(2)) } == [0x03, 0xE9], "1001: going away")
            #expect(close.map { String(decoding: $0.payload.dropFirst(2), as: UTF8.self) } == "ping_timeout")
            try await eventually("the socket closed") { services.hub.connectionCount == 0 }
        }
    }

    @Test("a message posted to one instance reaches a socket on another")
    func twoInstances() async throws {
        try await withTwoInstances { a, b, _, _ in
            let clock = ManualClock(Date())
            let (event, owner, people) = try await chatRoom(b, clock: clock, members: 1)
            let socket = try await TestSocket.connect(try socketURL(a), token: people[0].token)
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await socket.waitFor("subscribed") { $0.type == "subscribed" }
            _ = try await b.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "from B", "client_id": "b1"])
            let frame = try await socket.waitFor("the message from the other instance") { $0.type == "message" }
            #expect(frame.message?.message.body == "from B")
            await socket.close()
        }
    }
}

/// A WebSocket client that can stop reading: a plain TCP socket with a small
/// receive buffer, speaking just enough of the protocol. Its calls block: make
/// them through `blocking`.
final class RawSocket: Sendable {
    let fd: Int32

    /// Opens the socket with `token` as a bearer token, or as the web client's session cookie (`cookie`).
    init(port: Int, token: String, origin: String? = nil, host: String = "127.0.0.1", cookie: Bool = false) throws {
        fd = try connectLoopback(port: port, receiveBuffer: 4_096)
        let credential = cookie ? "Cookie: theme=dark; \(SessionCookie.name)=\(token)" : "Authorization: Bearer \(token)"
        let request = "GET /v1/ws HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(credential)\r\n\(origin.map { "Origin: \($0)\r\n" } ?? "")\r\n"
        _ = request.withCString { Glibc.send(fd, $0, strlen($0), 0) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw ClusterError("no upgrade answer") }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw ClusterError("upgrade refused") }
    }

    deinit { close(fd) }

    /// Sends one masked text frame.
    func send(_ text: String) throws {
        try sendFrame(opcode: 0x1, Array(text.utf8))
    }

    /// Sends one masked frame (0x1 text, 0x9 ping, 0xA pong).
    func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 { frame.append(0x80 | UInt8(payload.count)) } else { frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        guard Glibc.send(fd, frame, frame.count, 0) == frame.count else { throw ClusterError("send failed") }
    }

    /// Reads the next frame from the server (unmasked), waiting up to 10 s; `nil` once it closed.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8])? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func read(_ count: Int) throws -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                if n == 0 { return nil }
                guard n > 0 else { throw ClusterError("no frame within 10 s (errno \(errno))") }
                got += n
            }
            return bytes
        }
        guard let head = try read(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = try read(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        }
        guard let payload = try read(length) else { return nil }
        return (head[0] & 0x0F, payload)
    }

    /// Reads everything until the server closes; `true` if it did (rather than the read timing out).
    func drainUntilClosed() throws -> Bool {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var all = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 {
                let code = errno
                return code == ECONNRESET
            }
            all += buffer[0..<min(n, 16)]
        }
    }
}

@Suite("The instance's one socket timer")
struct SocketWatchTests {
    @Test("a socket's pings fall at its phase of the interval, one an interval; it is gone when nothing came in the interval after one while the server waited to read")
    func pingSchedule() {
        let opened = ContinuousClock.now
        func near(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Bool { abs((a - b) / .milliseconds(1)) < 1 }
        var schedule = PingSchedule(interval: .seconds(30), opened: opened, phase: 0.25)
        #expect(near(schedule.due, opened + .milliseconds(7_500)))
        #expect(schedule.look(now: opened + .seconds(7), reads: 0, waiting: true) == .wait)
        #expect(schedule.look(now: opened + .milliseconds(7_600), reads: 0, waiting: true) == .ping)
        #expect(near(schedule.due, opened + .milliseconds(37_500)), "the phase holds")
        #expect(schedule.look(now: opened + .seconds(37), reads: 0, waiting: true) == .wait)
        #expect(schedule.look(now: opened + .milliseconds(37_600), reads: 2, waiting: true) == .ping, "the client sent something: pinged again")
        // The timer stalled past the next due time: the one after is an interval on.
        #expect(schedule.look(now: opened + .seconds(100), reads: 3, waiting: false) == .ping)
        #expect(near(schedule.due, opened + .seconds(130)))
        #expect(schedule.look(now: opened + .seconds(129), reads: 3, waiting: true) == .wait)
        // The server was not reading at that ping (the application behind on the socket's
        // frames): the answer may be waiting unread, so it is pinged again, not closed.
        #expect(schedule.look(now: opened + .seconds(130), reads: 3, waiting: true) == .ping)
        #expect(schedule.look(now: opened + .seconds(160), reads: 3, waiting: true) == .gone, "nothing came in an interval the server waited to read")
        // Sockets opened at once ping at their own phases, spread over the interval.
        let dues = (0..<10).map { PingSchedule(interval: .seconds(30), opened: opened, phase: Double($0) / 10).due }
        #expect(Set(dues).count == 10)
        #expect(dues.allSatisfy { $0 >= opened && $0 < opened + .seconds(30) })
    }

    @Test("the sockets are looked at four times within the shorter of the stall timeout and the ping interval, at least once a second and at most every 50 ms")
    func lookPeriod() {
        #expect(SocketWatch.period(stallTimeout: .seconds(10), pingInterval: .seconds(30)) == .seconds(1), "the defaults: once a second")
        #expect(SocketWatch.period(stallTimeout: .seconds(2), pingInterval: .seconds(1)) == .milliseconds(250))
        #expect(SocketWatch.period(stallTimeout: .milliseconds(400), pingInterval: .seconds(30)) == .milliseconds(100))
        #expect(SocketWatch.period(stallTimeout: .milliseconds(100), pingInterval: .seconds(30)) == .milliseconds(50), "never more often than every 50 ms")
    }

    @Test("each tick runs every check once; a check that is done, or a forgotten one, runs no more")
    func ticks() {
        let watch = SocketWatch()
        let runs = Mutex<[String: Int]>([:])
        func count(_ name: String) -> Int { runs.withLock { $0[name] ?? 0 } }
        _ = watch.watch { _ in
            runs.withLock { $0["steady", default: 0] += 1 }
            return .again
        }
        _ = watch.watch { _ in
            runs.withLock { $0["once", default: 0] += 1 }
            return .done
        }
        let forgotten = watch.watch { _ in
            runs.withLock { $0["forgotten", default: 0] += 1 }
            return .again
        }
        #expect(watch.count == 3)
        watch.tick()
        #expect(count("steady") == 1 && count("once") == 1 && count("forgotten") == 1)
        #expect(watch.count == 2, "a check that said done is dropped")
        watch.forget(forgotten)
        watch.tick()
        watch.tick()
        #expect(count("steady") == 3)
        #expect(count("once") == 1)
        #expect(count("forgotten") == 1)
        #expect(watch.count == 1)
    }

    @Test("a check is given the tick's instant and may watch or forget sockets while it runs")
    func reentrant() throws {
        let watch = SocketWatch()
        let seen = Mutex<[ContinuousClock.Instant]>([])
        let added = Mutex<Int?>(nil)
        _ = watch.watch { now in
            seen.withLock { $0.append(now) }
            if added.withLock({ $0 }) == nil {
                let id = watch.watch { _ in .again }
                added.withLock { $0 = id }
            }
            return .again
        }
        let start = ContinuousClock.now
        watch.tick(now: start)
        watch.tick(now: start + .seconds(3))
        #expect(seen.withLock { $0 } == [start, start + .seconds(3)])
        #expect(watch.count == 2, "the check added a socket without a deadlock")
        watch.forget(try #require(added.withLock { $0 }))
        #expect(watch.count == 1)
    }
}

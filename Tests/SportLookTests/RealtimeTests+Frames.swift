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

/// Realtime chat: names after a rename, one frame for all, subscriptions racing membership, slow and silent clients, and two instances.
extension RealtimeTests {
    @Test(
        "after a rename, a socket's catch-up shows the new name on the sender's earlier messages and their quotes, as the history does",
        arguments: engines)
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

    @Test(
        "a message whose sender's name was read before a rename, and heard of after it, is kept under the new name; a resync forgets the names",
        arguments: engines)
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

    @Test(
        "with everyone in the room, a message sent on eight sockets at once is stored once, reaches each socket once and queues no push; someone away is told",
        arguments: engines)
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
            #expect(
                try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "where are you", "client_id": "away"]
                ).status == .created)
            try await eventually("the chat notification") {
                try await api.notifications(people[1].token).contains { $0.kind == .chatMessage }
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

    @Test(
        "a message's frame is the same on every socket of its room, one hiding its sender gets none, and an edit is framed anew",
        arguments: engines)
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
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "first", "client_id": "one"]).status
                    == .created)
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: people[0].token, json: ["body": "second", "client_id": "two"])
                    .status == .created)
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
                    let outcome = try await socket.waitFor("round \(round)'s answer to subscribe") {
                        $0.type == "subscribed" || $0.type == "error"
                    }
                    if outcome.type == "subscribed" {
                        try await socket.waitFor("round \(round)'s subscription ended with the attendance") {
                            $0.unsubscribed?.reason == .notAttending
                        }
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
    private func subscribedToHistory(_ api: API, _ services: AppServices, clock: ManualClock, megabytes: Int) async throws -> (
        socket: RawSocket, ownerToken: String
    ) {
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
                    _ = try await services.chatStore.insert(
                        room: eventID,
                        .init(sender: sender, clientID: "m\(chunk)-\(n)", body: body, attachment: nil, replyTo: nil, mentions: []),
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
        try await withApp(
            .sqlite, clock: clock, setup: .live,
            configure: { c in
                c.chatRateLimit = 1_000_000
                c.webSocketMaxQueue = 100
                c.webSocketStallTimeout = 1
                c.webSocketPingInterval = 600
            }
        ) { api, services in
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
        try await withApp(
            .sqlite, clock: clock, setup: .live,
            configure: { c in
                c.chatRateLimit = 1_000_000
                c.webSocketMaxQueue = 100
                c.webSocketStallTimeout = 3_600
                c.webSocketPingInterval = 600
            }
        ) { api, services in
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

    @Test(
        "each socket is pinged at its own moment; one that answers stays open, one silent for an interval after a ping is closed (1001 ping_timeout)"
    )
    func pings() async throws {
        // The instance's timer runs on real time; with a 600 s interval it sends no ping
        // within the test (unless this socket's phase is in its first moments: then its
        // first ping is the one read below). The test ticks the timer at later instants;
        // the stall timeout lies beyond them, so that those instants close nothing as stalled.
        try await withApp(
            .sqlite, setup: .live,
            configure: {
                $0.webSocketPingInterval = 600
                $0.webSocketStallTimeout = 3_600
            }
        ) { api, services in
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

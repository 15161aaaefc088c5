import Foundation
import SportLookKit
import SportLookTestSupport
import Testing

/// `ChatSession` against a real server: two people chatting, and the chaos run. Each test
/// starts a server of its own, so they run side by side (the chaos run waits on its cuts
/// and reconnections far more than it works).
@Suite("ChatSession against a real server")
struct ChatSessionTests {
    /// Quick retries: the tests drop sockets on purpose.
    static let backoff = ChatSession.Backoff(first: 0.02, longest: 0.2, connectTimeout: 2)
    /// As fast as the test server takes them (its frame limits are off).
    static let unpaced = ChatSession.Pacing(framesPerSecond: 100_000, burst: 100_000)

    @Test("two sessions chat: messages in order once, sent confirmations, edits, deletions, typing, reads, the chats list")
    func twoSessionsChat() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let game = try await newGame(by: ada)
            let room = game.id.description
            try await ben.events.join(game.id)
            let benID = try await ben.me.profile().id.description

            let adaChat = ada.chatSession(backoff: Self.backoff, pacing: Self.unpaced)
            let benChat = ben.chatSession(backoff: Self.backoff, pacing: Self.unpaced)
            let adaRoom = Transcript(await adaChat.join(room))
            let benRoom = Transcript(await benChat.join(room))
            let benList = RoomList(await benChat.watchRooms())
            await adaChat.start()
            await benChat.start()
            try await eventually("both online") {
                let adaOnline = await adaChat.isOnline
                let benOnline = await benChat.isOnline
                return adaOnline && benOnline
            }

            let hello = try await adaChat.send("Hello, who brings the ball?", to: room)
            try await eventually("Ben has Ada's message") { await benRoom.messages.count == 1 }
            let ballAnswer = try await benChat.send("I do", to: room.uppercased())
            try await eventually("both have both") {
                let a = await adaRoom.messages.count
                let b = await benRoom.messages.count
                return a == 2 && b == 2
            }
            for room in [adaRoom, benRoom] {
                let messages = await room.messages
                #expect(messages.map(\.seq) == [1, 2])
                #expect(messages.map(\.clientID) == [hello, ballAnswer])
                #expect(messages.map(\.sender.name) == ["Ada", "Ben"])
            }
            // Each sender's confirmation (`sent`) follows its message on the socket: wait for it too.
            try await eventually("each send confirmed with its seq") {
                let ada = await adaRoom.sent
                let ben = await benRoom.sent
                return ada == [hello: 1] && ben == [ballAnswer: 2]
            }
            #expect(await adaChat.unsent.isEmpty)

            // Edits and deletions made anywhere (here through the REST API) arrive as changes.
            try await ada.chat.edit(room, seq: 1, body: "Hello! Who brings the ball?")
            try await ben.chat.delete(room, seq: 2)
            try await eventually("Ada sees the edit and the deletion") {
                let current = await adaRoom.current
                return current.count == 2 && current[2]?.isDeleted == true && current[1]?.editedAt != nil
            }
            try await eventually("Ben too") {
                let current = await benRoom.current
                return current[2]?.isDeleted == true && current[1]?.body == "Hello! Who brings the ball?"
            }
            #expect(await adaRoom.current[1]?.body == "Hello! Who brings the ball?")

            // A reaction is a change too.
            try await ben.chat.react(.thumbsUp, to: 1, in: room)
            try await eventually("Ada sees Ben's reaction") { await adaRoom.current[1]?.reactions.first?.count == 1 }

            // Typing and read markers reach the other side.
            await benChat.typing(in: room)
            try await eventually("Ada sees Ben typing") { await adaRoom.typing.contains(benID) }
            await benChat.markRead(room, upTo: 2)
            try await eventually("Ada sees Ben's read marker") { await adaRoom.reads[benID] == 2 }

            // Ben's chats list is live: the room with its last message.
            try await eventually("Ben's chats list shows the room") { await benList.entries[room] != nil }
            #expect(await benList.entries[room]?.title == game.title)

            // Where each side stands, to resume from next time.
            #expect(await adaChat.position(of: room)?.seq == 2)

            // Following the room again from the start (a view that appears again): the
            // new stream gets every message once, as it is now; the old one ends.
            let again = Transcript(await benChat.join(room))
            try await eventually("Ben's second stream has the room") { await again.messages.count == 2 }
            #expect(await again.messages.map(\.seq) == [1, 2])
            #expect(await again.messages.map(\.isDeleted) == [false, true])
            #expect(await again.messages.first?.body == "Hello! Who brings the ball?")
            try await eventually("the first stream ended") { await benRoom.finished }
            _ = try await adaChat.send("See you there", to: room)
            try await eventually("the new stream goes on live") { await again.messages.count == 3 }
            #expect(await benRoom.messages.count == 2)

            // Not followed, or not a message the server would take: refused at once.
            await #expect(throws: ChatSessionError.notFollowed) { try await adaChat.send("hello?", to: UUID().uuidString) }
            await #expect(throws: ChatSessionError.self) { try await adaChat.send("   ", to: room) }
            await #expect(throws: ChatSessionError.self) { try await adaChat.send(String(repeating: "x", count: 2001), to: room) }

            // Leaving: the stream ends, and nothing more comes.
            await benChat.leave(room)
            try await eventually("the stream ended") { await again.finished }
            await adaChat.stop()
            await benChat.stop()
            #expect(await adaChat.currentState == .stopped)
            try await eventually("Ada's stream ended with the session") { await adaRoom.finished }
        }
    }

    @Test(
        "with the server's frame limits and a chat rate limit: seventy rooms followed at once, and messages past the limit sent again after retry_after, in order, once"
    )
    func pacedAndRateLimited() async throws {
        try await withServer(["WS_FRAME_RATE": "20", "WS_FRAME_BURST": "60", "CHAT_RATE_LIMIT": "60", "CHAT_RATE_WINDOW": "10s"]) {
            server in
            let ada = try await signedUp(server, "Ada")
            var games: [String] = []
            for i in 0..<70 { games.append(try await newGame(by: ada, title: "Game \(i)").id.description) }
            let chat = ada.chatSession(backoff: Self.backoff)
            let connections = Counter()
            let states = await chat.states()
            Task { for await state in states where state == .online { connections.add() } }
            var transcripts: [Transcript] = []
            for game in games { transcripts.append(Transcript(await chat.join(game))) }
            await chat.start()
            // 66 messages where 60 in ten seconds are taken (the client paces its frames: the 61st goes out about four seconds after the first): the last ones are refused
            // (rate_limited, with retry_after) and sent again once it has passed.
            let room = games[0]
            for i in 0..<66 { try await chat.send("message \(i)", to: room, clientID: "m-\(i)") }
            try await eventually("all 66 stored", timeout: .seconds(120)) { await transcripts[0].messages.count == 66 }
            let messages = await transcripts[0].messages
            #expect(messages.map(\.seq) == Array(1...66))
            #expect(messages.map(\.clientID) == (0..<66).map { "m-\($0)" }, "stored in the order sent")
            // The server writes a message to the room's sockets before its `sent` to the sender:
            // the last one leaves the outbox a frame after the stream has it.
            try await eventually("the outbox empties") { await chat.unsent.isEmpty }
            #expect(await transcripts[0].refused.isEmpty)
            // Seventy subscriptions and the messages never tripped the frame limit: one connection all along.
            #expect(connections.value == 1)
            await chat.stop()
        }
    }

    @Test(
        "a chat whose sockets are killed at random while both sides send 500 messages ends with every message once, in order, with every edit and deletion"
    )
    func chaos() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let game = try await newGame(by: ada)
            let room = game.id.description
            try await ben.events.join(game.id)
            // The sessions reach the server through a proxy that cuts their connections.
            let proxy = try CuttingProxy(to: server.port)
            defer { proxy.stop() }
            let people = [ada, ben].enumerated().map { i, client in
                (
                    i == 0 ? "Ada" : "Ben", client,
                    ChatSession(server: proxy.url, token: { await client.credentials.token }, backoff: Self.backoff, pacing: Self.unpaced)
                )
            }
            var transcripts: [Transcript] = []
            let connections = Counter()
            for (_, _, chat) in people {
                transcripts.append(Transcript(await chat.join(room)))
                let states = await chat.states()
                Task { for await state in states where state == .online { connections.add() } }
                await chat.start()
            }
            let perSide = 500

            // The sockets are killed at random, all along: mostly cut in the network
            // (frames in flight lost, mid-frame or not), sometimes closed by the app.
            let chaos = Task {
                var generator = SystemRandomNumberGenerator()
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 5...120, using: &generator)))
                    if Int.random(in: 0..<4, using: &generator) == 0 {
                        await people[Int.random(in: 0...1, using: &generator)].2.dropConnection()
                    } else {
                        proxy.cutAll()
                    }
                }
            }
            defer { chaos.cancel() }

            // Each side sends its 500, sometimes right after its own socket died (so offline),
            // and edits and deletes some of its own once they are stored.
            let offlineSends = Counter()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (side, (name, client, chat)) in people.enumerated() {
                    let transcript = transcripts[side]
                    group.addTask {
                        for i in 0..<perSide {
                            if i % 37 == 0 { await chat.dropConnection() }
                            if await !chat.isOnline { offlineSends.add() }
                            try await chat.send("\(name) \(i)", to: room, clientID: "\(name)-\(i)")
                            if i % 20 == 0 { try await Task.sleep(for: .milliseconds(2)) }
                        }
                    }
                    group.addTask {
                        // Every 10th stored message of this side edited, every 25th deleted.
                        var done = Set<String>()
                        // A bound that catches a hang, not a speed: a loaded two-core machine has taken over 120 s.
                        let deadline = ContinuousClock.now + .seconds(300)
                        while done.count < perSide / 10 + perSide / 25 {
                            guard ContinuousClock.now < deadline else {
                                throw SupportError(
                                    "\(name)'s messages were not all stored: \(await chat.currentState), \(await chat.unsent.count) unsent, \(await transcript.messages.count) delivered, \(connections.value) connections"
                                )
                            }
                            for (clientID, seq) in await transcript.sent where !done.contains(clientID) {
                                let i = Int(clientID.split(separator: "-")[1])!
                                if i % 25 == 7 {
                                    _ = try await client.retrying(20) { try await client.chat.delete(room, seq: seq) }
                                    done.insert(clientID)
                                } else if i % 10 == 3 {
                                    _ = try await client.retrying(20) {
                                        try await client.chat.edit(room, seq: seq, body: "\(name) \(i) (edited)")
                                    }
                                    done.insert(clientID)
                                }
                            }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
                try await group.waitForAll()
            }
            chaos.cancel()
            #expect(offlineSends.value > 0, "some messages were sent while offline")
            #expect(connections.value > 20, "the sockets were killed and opened again, many times")
            #expect(proxy.cuts > 10, "connections were cut in the network")
            print(
                "chaos: \(connections.value) connections, \(proxy.cuts) cut in the network, \(offlineSends.value) messages sent while offline"
            )

            // The server's history, every page: what both sides must hold.
            let total = 2 * perSide
            try await eventually("every message stored", timeout: .seconds(300)) {
                try await ada.chat.history(of: room, after: total - 1).all().count == 1
            }
            let history = try await ada.chat.history(of: room).all()
            #expect(history.map(\.seq) == Array(1...total), "stored once each, no gaps")
            #expect(Set(history.map(\.clientID)).count == total, "each client_id stored once")
            #expect(history.filter(\.isDeleted).count == 2 * 20)
            #expect(history.filter { $0.body.hasSuffix("(edited)") }.count == 2 * 50)
            // Each side's messages in the order it sent them.
            for name in ["Ada", "Ben"] {
                let own = history.filter { $0.clientID.hasPrefix(name + "-") }.map { Int($0.clientID.split(separator: "-")[1])! }
                #expect(own == Array(0..<perSide), "\(name)'s messages in the order sent")
            }

            for (side, (name, _, chat)) in people.enumerated() {
                let transcript = transcripts[side]
                do {
                    try await eventually("\(name) holds every message and change", timeout: .seconds(300)) {
                        let current = await transcript.current
                        return current.count == total
                            && history.allSatisfy { current[$0.seq]?.body == $0.body && current[$0.seq]?.isDeleted == $0.isDeleted }
                    }
                } catch {
                    let current = await transcript.current
                    let wrong = history.filter { current[$0.seq]?.body != $0.body || current[$0.seq]?.isDeleted != $0.isDeleted }
                    print(
                        "\(name): \(current.count) held, \(await chat.currentState), position \(String(describing: await chat.position(of: room))), wrong: \(wrong.prefix(5).map { ($0.seq, $0.body, $0.changeSeq, current[$0.seq]?.body ?? "-", current[$0.seq]?.changeSeq ?? -1) })"
                    )
                    throw error
                }
                let delivered = await transcript.messages.map(\.seq)
                #expect(delivered == Array(1...total), "\(name): every message once, in order")
                let changes = await transcript.changes
                #expect(Set(changes).count == changes.count, "\(name): every change once")
                #expect(changes.map(\.change) == changes.map(\.change).sorted(), "\(name): changes in the order they happened")
                // The last `sent` follows its message on the socket (or comes after a reconnection).
                try await eventually("\(name)'s outbox empties") { await chat.unsent.isEmpty }
                #expect(await transcript.refused.isEmpty)
                await chat.stop()
            }
        }
    }
}

/// What a room's stream delivered, kept as it arrives.
actor Transcript {
    private(set) var messages: [Message] = []
    /// Every message as it is now, by seq (edits and deletions applied).
    private(set) var current: [Int: Message] = [:]
    /// Every change delivered: which message, at which change number.
    private(set) var changes: [ChangeSeen] = []
    private(set) var sent: [String: Int] = [:]
    private(set) var refused: [String] = []
    private(set) var typing: Set<String> = []
    private(set) var reads: [String: Int] = [:]
    /// The stream ended.
    private(set) var finished = false

    init(_ stream: AsyncStream<ChatEvent>) {
        Task { await self.read(stream) }
    }

    private func read(_ stream: AsyncStream<ChatEvent>) async {
        for await event in stream {
            switch event {
            case .message(let message):
                messages.append(message)
                current[message.seq] = message
            case .edited(let message), .deleted(let message):
                current[message.seq] = message
                changes.append(ChangeSeen(seq: message.seq, change: message.changeSeq))
            case .pollVotes(let votes):
                changes.append(ChangeSeen(seq: votes.seq, change: votes.changeSeq))
            case .sent(let clientID, let seq): sent[clientID] = seq
            case .refused(let clientID, _, _): refused.append(clientID)
            case .typing(let user, _): typing.insert(user)
            case .read(let user, let seq): reads[user] = seq
            case .ended: break
            }
        }
        finished = true
    }
}

struct ChangeSeen: Hashable, Sendable {
    var seq: Int
    var change: Int
}

/// The chats list as `watchRooms` keeps it.
actor RoomList {
    private(set) var entries: [String: ChatRoom] = [:]

    init(_ stream: AsyncStream<RoomListEvent>) {
        Task { await self.read(stream) }
    }

    private func read(_ stream: AsyncStream<RoomListEvent>) async {
        for await event in stream {
            switch event {
            case .updated(let entry): entries[entry.id] = entry
            case .removed(let id): entries[id] = nil
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    @discardableResult
    func add() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
    var value: Int { lock.withLock { count } }
}

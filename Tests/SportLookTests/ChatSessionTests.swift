import Foundation
import Testing

@testable import SportLook

/// The chat protocol's state machine, driven directly: no socket, no database, no
/// clock. A "room" here is an array of messages in their current state; reads are
/// answered from it as the hub would, and the queue is a list that may refuse.
@Suite("The chat session's state machine")
struct ChatSessionTests {
    static let room = UUID()
    static let ann = UserSummary(id: UUID(), name: "Ann")

    static func message(_ seq: Int64, change: Int64 = 0, body: String? = nil, deleted: Bool = false) -> ChatMessage {
        ChatMessage(
            id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", seq))!, roomID: room, seq: seq, sender: ann,
            clientID: "c\(seq)", body: deleted ? "" : (body ?? "m\(seq)"), createdAt: Date(timeIntervalSince1970: 1_000),
            changeSeq: change, deletedAt: deleted ? Date(timeIntervalSince1970: 2_000) : nil)
    }

    /// A room as the database holds it, and a client's view of what it was sent.
    struct Room {
        var messages: [ChatMessage]
        var lastChange: Int64 { messages.map(\.changeSeq).max() ?? 0 }

        func after(_ seq: Int64, limit: Int = 200) -> [ChatMessage] { Array(messages.filter { $0.seq > seq }.prefix(limit)) }
        func changes(after change: Int64, limit: Int = 200) -> [ChatMessage] {
            Array(messages.filter { $0.changeSeq > change }.sorted { $0.changeSeq < $1.changeSeq }.prefix(limit))
        }
        mutating func edit(_ seq: Int64, body: String? = nil, deleted: Bool = false) {
            let change = lastChange + 1
            messages[Int(seq - 1)] = ChatSessionTests.message(seq, change: change, body: body, deleted: deleted)
        }
    }

    /// What a client holds: each message in the state it was last sent, and the
    /// frames in order.
    struct Client {
        var frames: [ChatSession.Outgoing] = []
        var held: [Int64: ChatMessage] = [:]
        var afterChange: Int64 = 0
        /// How many more frames the queue takes (nil: any number).
        var room: Int?

        mutating func take(_ frame: ChatSession.Outgoing) -> Bool {
            if let left = room {
                guard left > 0 else { return false }
                room = left - 1
            }
            frames.append(frame)
            switch frame {
            case .message(let m, let afterChange):
                #expect(held[m.seq] == nil, "message \(m.seq) sent twice")
                #expect(afterChange >= m.changeSeq, "a message is sent only once the position covers its state")
                held[m.seq] = m
                self.afterChange = max(self.afterChange, afterChange)
            case .change(let m):
                #expect(held[m.seq] != nil, "a change only for a message already delivered")
                #expect(m.changeSeq > (held[m.seq]?.changeSeq ?? 0), "each change once")
                held[m.seq] = m
                self.afterChange = max(self.afterChange, m.changeSeq)
            }
            return true
        }
    }

    /// Runs the catch-up of `room`'s subscription to the end, as the connection
    /// does, reading from `db`; returns the number of reads.
    @discardableResult
    static func catchUp(_ session: inout ChatSession, _ db: Room, _ client: inout Client, maxReads: Int = 100) -> Int {
        guard let epoch = session.epoch(of: Self.room) else { return 0 }
        var reads = 0
        while session.isBehind(Self.room, epoch: epoch), reads < maxReads {
            var moved = false
            if let after = session.changesWanted(Self.room, epoch: epoch) {
                moved = session.changesRead(Self.room, epoch: epoch, db.changes(after: after)) { client.take($0) } || moved
                reads += 1
            }
            if let after = session.messagesWanted(Self.room, epoch: epoch) {
                moved = session.messagesRead(Self.room, epoch: epoch, db.after(after)) { client.take($0) } || moved
                reads += 1
            }
            if !moved { break }
        }
        session.catchUpEnded(Self.room, epoch: epoch)
        return reads
    }

    static func subscribe(_ session: inout ChatSession, _ db: Room, after: Int64, afterChange: Int64?) -> Bool {
        session.beginSubscribe(room)
        let pump = session.subscribed(
            room, after: after, afterChange: afterChange, lastSeq: Int64(db.messages.count), lastChange: db.lastChange)
        let r1 = session.endSubscribe(room)
        #expect(!r1, "a subscription that was set keeps the room's traffic")
        return pump
    }

    @Test("a fresh subscription is sent every message once, in its current state, and nothing to replay")
    func fresh() {
        var db = Room(messages: (1...5).map { Self.message($0) })
        db.edit(2, body: "edited")
        db.edit(4, deleted: true)
        var session = ChatSession()
        var client = Client()
        #expect(Self.subscribe(&session, db, after: 0, afterChange: nil))
        Self.catchUp(&session, db, &client)
        #expect(client.frames.count == 5)
        #expect(client.held[2]?.body == "edited" && client.held[4]?.deletedAt != nil)
        #expect(client.afterChange == 2)
        #expect(!session.isBehind(Self.room, epoch: session.epoch(of: Self.room)!))
    }

    @Test("resume with edits and deletions in flight: each change of what the client holds once, later messages in their newest state")
    func resumeWithChanges() {
        var db = Room(messages: (1...3).map { Self.message($0) })
        var session = ChatSession()
        var client = Client()
        _ = Self.subscribe(&session, db, after: 0, afterChange: nil)
        Self.catchUp(&session, db, &client)
        // The client drops; meanwhile 3 is edited, 4 and 5 arrive, 5 is deleted and 1 edited twice.
        for seq in 4...5 { db.messages.append(Self.message(Int64(seq))) }
        db.edit(3, body: "three")
        db.edit(5, deleted: true)
        db.edit(1, body: "one")
        db.edit(1, body: "one again")
        var resumed = ChatSession()
        var again = Client(held: client.held, afterChange: client.afterChange)
        _ = Self.subscribe(&resumed, db, after: 3, afterChange: client.afterChange)
        // An edit arrives while the catch-up runs: offered, it is read in the same catch-up.
        db.edit(4, body: "four")
        let r2 = resumed.offer(Self.room, change: db.lastChange)
        #expect(!r2, "a catch-up is already running")
        Self.catchUp(&resumed, db, &again)
        #expect(again.held.keys.sorted() == [1, 2, 3, 4, 5])
        #expect(again.held[1]?.body == "one again" && again.held[3]?.body == "three" && again.held[4]?.body == "four")
        #expect(again.held[5]?.deletedAt != nil)
        #expect(again.afterChange == db.lastChange)
        // 1 and 3 as changes (1 once, in its last state); 4 and 5 as messages.
        #expect(again.frames.filter { if case .change = $0 { true } else { false } }.count == 2)
    }

    @Test("an unsubscribe and subscribe racing a read: the old read is thrown away, the new subscription starts where it says")
    func raceWithRead() {
        let db = Room(messages: (1...10).map { Self.message($0) })
        var session = ChatSession()
        var client = Client()
        _ = Self.subscribe(&session, db, after: 0, afterChange: nil)
        let first = session.epoch(of: Self.room)!
        let after = session.messagesWanted(Self.room, epoch: first)!
        // The read is in flight; the client unsubscribes and subscribes again from 8.
        let r3 = session.unsubscribe(Self.room)
        #expect(r3 == (true, true))
        _ = Self.subscribe(&session, db, after: 8, afterChange: nil)
        let r4 = session.messagesRead(Self.room, epoch: first, db.after(after)) { client.take($0) }
        #expect(!r4, "the earlier subscription's read")
        #expect(client.frames.isEmpty)
        session.catchUpEnded(Self.room, epoch: first)
        #expect(session.isBehind(Self.room, epoch: session.epoch(of: Self.room)!), "the old catch-up's end leaves the new one alone")
        Self.catchUp(&session, db, &client)
        #expect(client.held.keys.sorted() == [9, 10])
    }

    @Test("a subscribe whose room was read while a member left reads the membership again; an offer while it is set up counts")
    func setUp() {
        var session = ChatSession()
        session.beginSubscribe(Self.room)
        let r5 = session.attendanceChanged()
        #expect(r5.isEmpty, "nothing subscribed yet")
        let r6 = session.takeRecheck(Self.room)
        #expect(r6)
        let r7 = session.takeRecheck(Self.room)
        #expect(!r7, "once per attendance change")
        // A message stored between reading the room (last seq 3) and joining its traffic.
        let r8 = session.offer(Self.room, seq: 4)
        #expect(!r8)
        let r9 = session.subscribed(Self.room, after: 0, afterChange: nil, lastSeq: 3, lastChange: 0)
        #expect(r9)
        #expect(session.messagesWanted(Self.room, epoch: session.epoch(of: Self.room)!) == 0)
        #expect(session.subscriptions[Self.room]?.target == 4)
        // Refused (not a member): the socket leaves the room's traffic.
        var refused = ChatSession()
        refused.beginSubscribe(Self.room)
        let r10 = refused.endSubscribe(Self.room)
        #expect(r10)
        let r11 = refused.unsubscribe(Self.room)
        #expect(r11 == (false, false))
    }

    @Test("a refused push stops the batch there: nothing skipped, nothing sent twice")
    func refusedPush() {
        var db = Room(messages: (1...6).map { Self.message($0) })
        db.edit(2, body: "two")
        var session = ChatSession()
        var client = Client(room: 2)
        _ = Self.subscribe(&session, db, after: 0, afterChange: 0)
        let epoch = session.epoch(of: Self.room)!
        // Changes first: message 2's change is kept for its turn (not delivered yet).
        let r12 = session.changesRead(Self.room, epoch: epoch, db.changes(after: 0)) { client.take($0) }
        #expect(r12)
        let r13 = session.messagesRead(Self.room, epoch: epoch, db.after(0)) { client.take($0) }
        #expect(r13)
        #expect(client.held.keys.sorted() == [1, 2] && client.held[2]?.body == "two")
        #expect(session.messagesWanted(Self.room, epoch: epoch) == 2)
        let r14 = session.messagesRead(Self.room, epoch: epoch, db.after(2)) { client.take($0) }
        #expect(!r14, "a full queue takes nothing")
        client.room = nil
        Self.catchUp(&session, db, &client)
        #expect(client.held.keys.sorted() == [1, 2, 3, 4, 5, 6])
        #expect(client.frames.count == 6)
    }

    @Test("a cached message older than a change another instance made is not sent until the change is read")
    func staleCache() {
        var db = Room(messages: (1...3).map { Self.message($0) })
        var session = ChatSession()
        var client = Client()
        _ = Self.subscribe(&session, db, after: 0, afterChange: nil)
        let epoch = session.epoch(of: Self.room)!
        // Before anything is sent, another instance edits 2; this instance's cache
        // still holds the old 2, and the change's offer has not arrived yet.
        let stale = db.messages
        db.edit(2, body: "edited elsewhere")
        // A read that mixes states (1 as cached, 2 as edited): 2 carries a change the position has not reached.
        var mixed = stale
        mixed[1] = db.messages[1]
        let r15 = session.messagesRead(Self.room, epoch: epoch, mixed) { client.take($0) }
        #expect(r15)
        #expect(client.held.keys.sorted() == [1], "2 waits for its change")
        #expect(session.changesWanted(Self.room, epoch: epoch) == 0)
        let r16 = session.changesRead(Self.room, epoch: epoch, db.changes(after: 0)) { client.take($0) }
        #expect(r16)
        // The stale cache answers again: the kept newer state is what is sent.
        let r17 = session.messagesRead(Self.room, epoch: epoch, Array(stale.dropFirst())) { client.take($0) }
        #expect(r17)
        #expect(client.held[2]?.body == "edited elsewhere" && client.held[3] != nil)
        #expect(!session.isBehind(Self.room, epoch: epoch))
    }

    @Test("the live chats list: news of rooms the user is in, one flush for several, rooms left and joined")
    func liveRooms() {
        var list = LiveRoomsList()
        let a = UUID()
        let b = UUID()
        let c = UUID()
        let r18 = list.activity(a)
        #expect(!r18, "not watching")
        let r19 = list.watch()
        #expect(r19 && !list.watch())
        let r20 = list.roomsRead([a, b])
        #expect(r20 == ([], []), "the first read announces nothing")
        let r21 = list.activity(a)
        #expect(r21)
        let r22 = list.activity(b)
        #expect(!r22, "one flush for several rooms")
        let r23 = list.activity(c)
        #expect(!r23, "not the user's room")
        let r24 = list.flush()
        #expect(r24 == [a, b])
        let r25 = list.flush()
        #expect(r25.isEmpty)
        let (left, joined) = list.roomsRead([b, c])
        #expect(left == [a] && joined == [c])
    }
}

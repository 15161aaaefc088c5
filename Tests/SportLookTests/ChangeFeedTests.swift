import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// What a feed's handlers were handed: each change with the rows it came with.
final class ChangeLog: Sendable {
    private let entries = Mutex<[(change: Change, rows: ChangeRows)]>([])

    /// Records everything `feed` dispatches from now on.
    init(_ feed: ChangeFeed) {
        feed.apply(Change.Kind.allCases) { [self] change, rows in record(change, rows) }
    }

    private func record(_ change: Change, _ rows: ChangeRows) {
        entries.withLock { $0.append((change, rows)) }
    }

    var changes: Set<Change> { entries.withLock { Set($0.map(\.change)) } }
    var kinds: Set<Change.Kind> { Set(changes.map(\.kind)) }

    /// The last row each event and profile change came with.
    var lastRows: (events: [UUID: Event], profiles: [UUID: User]) {
        entries.withLock { entries in
            var events: [UUID: Event] = [:]
            var profiles: [UUID: User] = [:]
            for (change, rows) in entries {
                if case .event(let id) = change, let row = rows.events[id] { events[id] = row }
                if case .user(let id) = change, let row = rows.profiles[id] { profiles[id] = row }
            }
            return (events, profiles)
        }
    }
}

@Suite("The change feed", .timeLimit(.minutes(10)))
struct ChangeFeedTests {
    /// One of each kind, with the payloads at their edges.
    static let everyKind: [Change] = [
        .event(id: UUID()), .user(id: UUID()), .group(id: UUID()), .membership(user: UUID(), group: UUID()), .session(id: UUID()),
        .attendance(user: UUID()),
        .chat(room: UUID(), seq: Int64(Int32.max) * 4), .chatChange(room: UUID(), change: 1), .roomState(user: UUID(), room: UUID()),
        .notification(user: UUID(), id: UUID()), .jobs, .block(blocker: UUID(), blocked: UUID()),
        .typing(room: UUID(), user: UUID(), name: "Zoë \"Z\" | 🏐 \\ /"), .read(room: UUID(), user: UUID(), seq: 0), .resync,
    ]

    @Test("every kind of change reads back from its wire form; another version or an unknown kind does not")
    func wireForm() throws {
        #expect(Set(Self.everyKind.map(\.kind)) == Set(Change.Kind.allCases), "the list covers every kind")
        for change in Self.everyKind {
            let wire = change.wire
            #expect(wire.hasPrefix("\(Change.wireVersion)|"))
            #expect(Change(wire: Substring(wire)) == change, "\(wire)")
            // The bus's channel carries at most 8,000 bytes: every change is far below.
            #expect(wire.utf8.count < 300, "\(wire)")
        }
        let chat = Change.chat(room: UUID(), seq: 7).wire
        #expect(Change(wire: Substring("\(Change.wireVersion + 1)" + chat.drop(while: { $0 != "|" }))) == nil, "a newer version")
        #expect(Change(wire: "1|{\"groupMember\":{\"group\":\"x\"}}") == nil, "a kind from a newer instance")
        #expect(Change(wire: "1|{\"chat\":{\"room\":\"not a uuid\",\"seq\":1}}") == nil)
        #expect(Change(wire: "1|") == nil && Change(wire: "") == nil && Change(wire: "e|abc") == nil, "the old form and junk")
        // A typing name is carried at most 80 characters long.
        let long = Change.typing(room: UUID(), user: UUID(), name: String(repeating: "é", count: 200))
        guard case .typing(_, _, let name)? = Change(wire: Substring(long.wire)) else {
            Issue.record("typing did not read back")
            return
        }
        #expect(name.count == 80)
    }

    @Test("a chat message's notification and a message change's, written out around the number, are the encoder's wire form to the byte")
    func chatWire() {
        for seq: Int64 in [0, 1, 7, 255, 1_000_000, Int64(Int32.max) * 4, Int64.max, Int64.min, -1] {
            let room = UUID()
            let wire = Change.chatWire(room: room)
            #expect(wire.head + String(seq) + wire.tail == Change.chat(room: room, seq: seq).wire)
            #expect(Change(wire: Substring(wire.head + String(seq) + wire.tail)) == .chat(room: room, seq: seq))
            let change = Change.chatChangeWire(room: room)
            #expect(change.head + String(seq) + change.tail == Change.chatChange(room: room, change: seq).wire)
            #expect(Change(wire: Substring(change.head + String(seq) + change.tail)) == .chatChange(room: room, change: seq))
        }
    }

    @Test("each prepared statement keeps its own name, the type's full name, however often it is asked")
    func statementNames() {
        let names = [
            ChatStatements.Sending.name, ChatStatements.StoreInEvent.name, ChatStatements.StoreInGroup.name, ChatStatements.Sending.name,
        ]
        #expect(
            names == [
                String(reflecting: ChatStatements.Sending.self), String(reflecting: ChatStatements.StoreInEvent.self),
                String(reflecting: ChatStatements.StoreInGroup.self), String(reflecting: ChatStatements.Sending.self),
            ])
        #expect(Set(names).count == 3)
    }

    @Test("a change set keeps each change once, in the order first recorded, with the newest row")
    func changeSet() {
        var set = ChangeSet()
        let a = UUID()
        let b = UUID()
        set.record(.attendance(user: a))
        set.record(.jobs)
        set.attendance(of: [b, a])
        set.record(.jobs)
        #expect(set.changes == [.attendance(user: a), .jobs, .attendance(user: b)])
    }

    @Test("every kind of change has a handler", arguments: engines)
    func everyKindHandled(engine: DatabaseEngine) async throws {
        try await withApp(engine) { _, services in
            #expect(services.changes.unhandledKinds.isEmpty, "no handler for \(services.changes.unhandledKinds)")
        }
    }

    /// Every kind of change, made through the API of the first instance: its handlers
    /// are handed it after the local commit, the second instance's once its bus hears
    /// it, with the same rows; and what both then show is the same.
    @Test("every change kind reaches both instances' handlers, with the same rows, and leaves the same state")
    func bothWays() async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withTwoInstances(clock: clock) { one, two, first, second in
            let here = ChangeLog(first.changes)
            let there = ChangeLog(second.changes)
            let ann = try await one.register("Ann")
            let bo = try await one.register("Bo")
            let cy = try await one.register("Cy")
            let event = try await one.createEvent(ann.token, now: clock.now())  // event, attendance
            _ = try await one.join(event.id, token: bo.token)  // attendance, event
            #expect(
                try await one.patch("/v1/me", token: bo.token, json: ["discoverable": true, "location": ["lat": 48.8566, "lon": 2.3522]])
                    .status == .ok)  // user
            let socket = try await TestSocket.connect(try socketURL(one), token: bo.token)
            socket.send(["type": "subscribe", "event_id": event.id, "after_seq": 0])
            _ = try await socket.waitFor("subscribed") { $0.type == "subscribed" }
            let sent = try await one.sendMessage("Who brings the ball?", clientID: "a1", to: event.id, token: ann.token)  // chat
            #expect(
                try await one.post("/v1/rooms/\(event.id)/messages/\(sent.seq)/reactions", token: bo.token, json: ["emoji": "👍"]).status
                    .code < 300)  // chatChange
            socket.send(["type": "typing", "event_id": event.id])  // typing
            #expect(try await one.post("/v1/events/\(event.id)/read", token: bo.token, json: ["seq": sent.seq]).status.code < 300)  // read
            #expect(try await one.post("/v1/conversations", token: ann.token, json: ["user_id": bo.id]).status == .created)  // roomState
            // group
            let club = try await one.post(
                "/v1/groups", token: bo.token, json: ["name": "Club", "location": ["lat": 48.8566, "lon": 2.3522], "policy": "public"])
            #expect(club.status == .created)
            struct Made: Decodable { var id: String }
            let clubID = try club.decode(Made.self).id
            // membership
            #expect(try await one.post("/v1/groups/\(clubID)/membership", token: cy.token, json: [String: Any]()).status == .ok)
            _ = try await one.invite([cy.id], to: event.id, token: ann.token)  // jobs, then notification
            // Delivered before Cy blocks Ann: a notification naming someone the recipient
            // blocked is not delivered (the worker reads blocks under the recipient's lock),
            // so under load the block below could otherwise come first and leave no
            // notification change at all.
            try await eventually("the invitation's notification") { here.kinds.contains(.notification) }
            #expect(try await one.post("/v1/users/\(ann.id)/block", token: cy.token).status.code < 300)  // block
            #expect(try await one.post("/v1/auth/logout", token: ann.token).status == .noContent)  // session
            // A change in a form neither instance knows: both resynchronise.
            try await first.database.transaction { sql in try await sql.raw("SELECT pg_notify('sportlook', 'newer|999|{}')").run() }

            do {
                try await eventually("every kind on both instances") {
                    here.kinds == Set(Change.Kind.allCases) && there.kinds == Set(Change.Kind.allCases) && here.changes == there.changes
                }
            } catch {
                let all = Set(Change.Kind.allCases)
                Issue.record(
                    "missing on the first: \(all.subtracting(here.kinds)); on the second: \(all.subtracting(there.kinds)); on one only: \(here.changes.symmetricDifference(there.changes))"
                )
                throw error
            }
            // The rows the second instance read are those the first instance's writes left.
            let (mine, theirs) = (here.lastRows, there.lastRows)
            #expect(!mine.events.isEmpty && !mine.profiles.isEmpty)
            #expect(theirs.events == mine.events)
            #expect(theirs.profiles == mine.profiles)

            // And both instances show the same.
            let nearby = "/v1/events/nearby?lat=48.8566&lon=2.3522&radius_km=5"
            let people = "/v1/users/nearby?lat=48.8566&lon=2.3522&radius_km=5"
            let groups = "/v1/groups/nearby?lat=48.8566&lon=2.3522&radius_km=5"
            try await eventually("the same answers") {
                let (a, b) = (try await one.get(nearby, token: bo.token), try await two.get(nearby, token: bo.token))
                let (c, d) = (try await one.get(people, token: cy.token), try await two.get(people, token: cy.token))
                let (e, f) = (try await one.get(groups, token: cy.token), try await two.get(groups, token: cy.token))
                return a.status == .ok && a.text == b.text && a.text.contains(event.id) && c.status == .ok && c.text == d.text
                    && c.text.contains(bo.id)
                    && e.status == .ok && e.text == f.text && e.text.contains("\"name\":\"Club\"")
            }
            #expect(try await one.get("/v1/me", token: ann.token).status == .unauthorized)
            #expect(try await two.get("/v1/me", token: ann.token).status == .unauthorized)
            _ = try await socket.waitFor("the reaction on Bo's socket") { $0.type == "message_edited" }
            await socket.close()
        }
    }

    /// A group's members-only game on two instances: who is in the group is seen by
    /// the other instance — its search, its routes and its sockets. How long it took
    /// is printed (`membership seen on the other instance after … ms`; issue 38 asks
    /// for 2 s), not asserted: a loaded machine must not fail the behaviour.
    @Test("a membership change is seen on the other instance: search, the game's routes, its room and sockets")
    func membershipAcrossInstances() async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withTwoInstances(clock: clock) { one, two, _, _ in
            let owner = try await two.register("Olga")
            let member = try await two.register("Mia")
            let club: GroupsTests.GroupView = try await two.post(
                "/v1/groups", token: owner.token,
                json: [
                    "name": "Club", "location": ["lat": 48.8566, "lon": 2.3522], "policy": "public",
                ]
            ).decode(expecting: .created)
            #expect(try await two.post("/v1/groups/\(club.id)/membership", token: member.token, json: [String: Any]()).status == .ok)
            let game: API.Event = try await two.post(
                "/v1/events", token: owner.token,
                json: [
                    "title": "Members' game", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                    "location": ["lat": 48.8566, "lon": 2.3522], "group_id": club.id,
                ]
            ).decode(expecting: .created)
            let nearby = "/v1/events/nearby?lat=48.8566&lon=2.3522&radius_km=5"
            try await eventually("the game on the first instance", timeout: .seconds(2)) {
                try await one.get(nearby, token: member.token).text.contains(game.id)
            }
            try await one.join(game.id, token: member.token)
            let socket = try await TestSocket.subscribed(try socketURL(one), token: member.token, to: game.id)

            // Removed on the second instance: the first soon shows nothing of the game.
            let removedAt = ContinuousClock.now
            #expect(try await two.delete("/v1/groups/\(club.id)/members/\(member.id)", token: owner.token).status == .noContent)
            let ended = try await socket.waitFor("the room ended on the first instance's socket") { $0.type == "unsubscribed" }
            #expect(ended.unsubscribed?.reason == .notAttending)
            try await eventually("hidden on the first instance") {
                let found = try await one.get(nearby, token: member.token)
                let page = try await one.get("/v1/events/\(game.id)", token: member.token)
                let room = try await one.get("/v1/rooms/\(game.id)/messages", token: member.token)
                return found.status == .ok && !found.text.contains(game.id) && page.status == .notFound && room.status == .notFound
            }
            print("membership seen on the other instance after \(Self.milliseconds(since: removedAt)) ms (removal: socket, search, routes)")
            socket.send(["type": "subscribe", "room_id": game.id, "after_seq": 0])
            #expect(try await socket.waitFor("refused") { $0.type == "error" }.error?.code == "not_found")

            // Back in, through the first instance: the second finds the game again.
            let joinedAt = ContinuousClock.now
            #expect(try await one.post("/v1/groups/\(club.id)/membership", token: member.token, json: [String: Any]()).status == .ok)
            try await eventually("shown again on the second instance") {
                let found = try await two.get(nearby, token: member.token)
                let page = try await two.get("/v1/events/\(game.id)", token: member.token)
                return found.text.contains(game.id) && page.status == .ok
            }
            print("membership seen on the other instance after \(Self.milliseconds(since: joinedAt)) ms (joining: search, routes)")
            await socket.close()
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = (ContinuousClock.now - start).components
        return elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000
    }

    /// A feed of its own (no application), running until the test ends.
    static func withFeed(_ engine: DatabaseEngine, register: (ChangeFeed) -> Void, _ test: (ChangeFeed) async throws -> Void) async throws {
        try await withEmptyDatabase(engine) { database in
            let feed = ChangeFeed(database: database, logger: database.logger)
            register(feed)
            let running = Task { try await feed.run() }
            defer { running.cancel() }
            try await test(feed)
        }
    }

    @Test("another instance's changes that need no read are never held up behind one that does", arguments: engines)
    func readsDoNotHoldUpOthers(engine: DatabaseEngine) async throws {
        let gate = Gate()
        let applied = Mutex<[Change]>([])
        try await Self.withFeed(
            engine,
            register: { feed in
                feed.read(.event) { _ in
                    await gate.pass()
                    return ChangeRows()
                }
                feed.apply(.event, .session, .chat) { change, _ in applied.withLock { $0.append(change) } }
            }
        ) { feed in
            let event = Change.event(id: UUID())
            let session = Change.session(id: UUID())
            let chat = Change.chat(room: UUID(), seq: 1)
            feed.received(event)
            feed.received(session)
            feed.received(chat)
            // The event's read may reach its gate after the others are applied (a loaded
            // machine): it is waited for, and the gate stays shut until both are in.
            try await eventually("the event's read to be under way") { gate.arrivals == 1 }
            try await eventually("the session and the message, while the event's read waits") {
                applied.withLock { $0 } == [session, chat]
            }
            gate.open()
            try await eventually("the event, once read") { applied.withLock { $0 } == [session, chat, event] }
        }
    }

    @Test("resyncs that pile up while a follower is busy reach it once more, not once each", arguments: engines)
    func resyncsCoalesce(engine: DatabaseEngine) async throws {
        let gate = Gate()
        let handled = Mutex(0)
        try await Self.withFeed(
            engine,
            register: { feed in
                feed.follow(.resync) { _ in
                    let count = handled.withLock {
                        $0 += 1
                        return $0
                    }
                    if count == 1 { await gate.pass() }
                }
            }
        ) { feed in
            feed.received(.resync)
            try await eventually("the first resync to be under way") { gate.arrivals == 1 }
            for _ in 0..<5 { feed.received(.resync) }
            // One is queued behind the one under way; the other four are folded into it.
            try await eventually("the feed to take them") { feed.coalescedResyncs == 4 }
            gate.open()
            try await eventually("the queued resync") { handled.withLock { $0 } == 2 }
            feed.received(.resync)
            try await eventually("a later one, on its own") { handled.withLock { $0 } == 3 }
            #expect(handled.withLock { $0 } == 3)
        }
    }
}

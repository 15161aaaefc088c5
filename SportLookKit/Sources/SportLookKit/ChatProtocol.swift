import Foundation

/// The chat protocol's rules as a value: the rooms followed and where each stands, the
/// outbox, the pacing of frames, the pauses after a drop. It owns no socket, clock or
/// task: each call is given the time, and what it makes happen is left in ``effects``
/// for ``ChatSession`` to carry out (send a frame, give a stream an event, end one). So
/// every rule is tested with a made-up clock and made-up frames, in milliseconds.
struct ChatProtocol: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// What the session must do.
    enum Effect: Sendable, Hashable {
        /// Send the frame on the current socket after those before it, not before `at` (pacing).
        case send(SocketCommand, at: Instant)
        /// Give stream `stream` the event.
        case deliver(ChatEvent, stream: Int)
        /// End stream `stream`.
        case finish(stream: Int)
        /// Tell the chats-list watcher.
        case roomList(RoomListEvent)
        /// The socket's state changed.
        case state(ChatSession.State)
    }

    struct Room: Sendable {
        var lastSeq: Int
        var lastChange: Int
        /// Which stream this is (a stream ended by the app leaves only if it is still the room's).
        var stream: Int
        /// Subscribed (or to be, once online); false once the server ended it or the app left.
        var active = true
        /// A `subscribe` went out on this connection and neither `subscribed` nor a
        /// refusal has come back (an error naming the room then refuses it).
        var awaitingSubscribed = false
        /// Followed again on the same connection: until the server confirms the earlier
        /// subscription's end (`unsubscribed`, `requested`), the room's frames are that
        /// subscription's, and are ignored.
        var staleUntilUnsubscribed = false
        /// The read marker to send when the socket is back.
        var pendingRead: Int?
        /// Subscribe again at this time, on this connection (after `unavailable` or a passing refusal).
        var resubscribe: (at: Instant, connection: Int)?
    }

    struct Outgoing: Sendable, Hashable {
        var room: String
        var clientID: String
        var body: String
        var replyTo: Int?
        /// Not sent again before this (a `retry_after`).
        var notBefore: Instant?
        /// The connection it was last sent on, and when: once per connection, again
        /// after a drop or when unanswered for the answer timeout.
        var sentOn: Int?
        var sentAt: Instant?
    }

    let backoff: ChatSession.Backoff
    let pacing: ChatSession.Pacing
    var rooms: [String: Room] = [:]
    var outbox: [Outgoing] = []
    var state: ChatSession.State = .stopped
    /// Counts connections.
    var connection = 0
    /// Counts streams.
    private var streams = 0
    /// Failed tries since the last good connection.
    var attempt = 0
    /// When the current try began.
    var opened: Instant?
    /// The connection answered (a `subscribed` or `sent`): the pause before the next try starts small again.
    var healthy = false
    /// The app follows the chats list.
    var watching = false
    private var lastTyping: [String: Instant] = [:]
    var bucket: TokenBucket
    /// What the calls so far made happen, in order (``takeEffects()`` hands them over).
    var effects: [Effect] = []

    /// Typing is sent at most this often per room.
    static let typingInterval: Duration = .seconds(3)
    /// The longest message body the server takes, in characters and in bytes of UTF-8.
    static let maxBody = (characters: 2000, bytes: 8000)
    /// How long to wait before subscribing again after `unavailable`, when the server names no time.
    static let unavailablePause: Double = 5

    init(backoff: ChatSession.Backoff, pacing: ChatSession.Pacing, now: Instant) {
        self.backoff = backoff
        self.pacing = pacing
        bucket = TokenBucket(rate: pacing.framesPerSecond, burst: Double(pacing.burst), now: now)
    }

    /// Hands over what the calls since the last time made happen.
    mutating func takeEffects() -> [Effect] {
        defer { effects = [] }
        return effects
    }

    var isOnline: Bool { state == .online }

    // MARK: Rooms

    /// Follows a room from a position; the number of its new stream. An earlier stream of
    /// the room ends.
    mutating func join(_ room: String, afterSeq: Int, afterChange: Int, now: Instant) -> Int {
        let room = Self.canonical(room)
        streams += 1
        let wasFollowed = rooms[room]?.active == true
        if let earlier = rooms[room] { effects.append(.finish(stream: earlier.stream)) }
        rooms[room] = Room(lastSeq: afterSeq, lastChange: afterChange, stream: streams)
        if isOnline {
            // The earlier subscription's frames still on their way are not this stream's.
            if wasFollowed {
                transmit(.unsubscribe(room: room), now: now)
                rooms[room]?.staleUntilUnsubscribed = true
            }
            subscribe(room, now: now)
        }
        return streams
    }

    /// The app ended stream `stream`: the room is left if it is still the room's.
    mutating func streamEnded(_ room: String, stream: Int, now: Instant) {
        guard rooms[room]?.stream == stream else { return }
        leave(room, now: now)
    }

    /// Stops following a room (its stream ends).
    mutating func leave(_ room: String, now: Instant) {
        let room = Self.canonical(room)
        guard let found = rooms.removeValue(forKey: room) else { return }
        effects.append(.finish(stream: found.stream))
        if isOnline, found.active { transmit(.unsubscribe(room: room), now: now) }
    }

    func position(of room: String) -> (seq: Int, change: Int)? {
        rooms[Self.canonical(room)].map { ($0.lastSeq, $0.lastChange) }
    }

    /// Follows the chats list.
    mutating func watchRooms(now: Instant) {
        watching = true
        if isOnline { transmit(.watchRooms, now: now) }
    }

    // MARK: Sending

    /// Puts a message in the outbox (sent now, or once online); its `client_id`.
    mutating func send(_ body: String, to room: String, clientID: String, replyTo: Int?, now: Instant) throws -> String {
        let room = Self.canonical(room)
        guard rooms[room]?.active == true else { throw ChatSessionError.notFollowed }
        // As the server stores them: trimmed, NFC (so its `sent` names the same id).
        let text = body.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = clientID.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ChatSessionError.invalidMessage("the body is empty") }
        guard text.count <= Self.maxBody.characters, text.utf8.count <= Self.maxBody.bytes else {
            throw ChatSessionError.invalidMessage(
                "the body is longer than \(Self.maxBody.characters) characters or \(Self.maxBody.bytes) bytes")
        }
        guard (1...100).contains(id.count), id.utf8.count <= 400 else {
            throw ChatSessionError.invalidMessage("a client_id has 1 to 100 characters")
        }
        outbox.append(Outgoing(room: room, clientID: id, body: text, replyTo: replyTo))
        flush(now: now)
        return id
    }

    /// Says the user is typing (at most once every ``typingInterval`` per room; nothing while offline).
    mutating func typing(in room: String, now: Instant) {
        let room = Self.canonical(room)
        guard isOnline, rooms[room]?.active == true else { return }
        if let last = lastTyping[room], now - last < Self.typingInterval { return }
        lastTyping[room] = now
        transmit(.typing(room: room), now: now)
    }

    /// Moves the read marker (sent now, or once online).
    mutating func markRead(_ room: String, upTo seq: Int, now: Instant) {
        let room = Self.canonical(room)
        guard rooms[room] != nil else { return }
        if isOnline {
            transmit(.read(room: room, seq: seq), now: now)
        } else {
            let held = rooms[room]?.pendingRead ?? 0
            rooms[room]?.pendingRead = max(held, seq)
        }
    }

    /// Sends the oldest unconfirmed message of each room when it may go now (one in flight
    /// per room, so a room stores them in the order they were sent, whatever is refused for
    /// a while), and again one left unanswered for the answer timeout.
    mutating func flush(now: Instant) {
        guard isOnline else { return }
        var heads = Set<String>()
        for i in outbox.indices where heads.insert(outbox[i].room).inserted {
            let item = outbox[i]
            if let due = due(item), due > now { continue }
            transmit(.message(room: item.room, clientID: item.clientID, body: item.body, replyTo: item.replyTo), now: now)
            outbox[i].sentOn = connection
            outbox[i].sentAt = now
        }
    }

    /// When a room's oldest unconfirmed message may go (again): after its `retry_after`,
    /// and, once sent on this connection, when the answer timeout has passed; nil: now.
    private func due(_ item: Outgoing) -> Instant? {
        var due = item.notBefore
        if item.sentOn == connection, let sentAt = item.sentAt {
            due = max(due ?? sentAt, sentAt + .seconds(pacing.answerTimeout))
        }
        return due
    }

    // MARK: Time

    /// When something is due next (a message to send again, a room to subscribe again), if anything.
    var nextWake: Instant? {
        guard isOnline else { return nil }
        var next: Instant?
        var heads = Set<String>()
        for item in outbox where heads.insert(item.room).inserted {
            if let due = due(item) { next = min(next ?? due, due) }
        }
        for room in rooms.values {
            if let again = room.resubscribe, again.connection == connection { next = min(next ?? again.at, again.at) }
        }
        return next
    }

    /// The time is `now`: what was due is done.
    mutating func tick(now: Instant) {
        guard isOnline else { return }
        for id in rooms.keys.sorted() {
            guard let again = rooms[id]?.resubscribe, again.at <= now else { continue }
            rooms[id]?.resubscribe = nil
            if again.connection == connection, rooms[id]?.active == true { subscribe(id, now: now) }
        }
        flush(now: now)
    }

    // MARK: Frames out

    mutating func subscribe(_ room: String, now: Instant) {
        guard let position = rooms[room] else { return }
        // From the start, every message comes in its current state: no change to replay.
        let afterChange = position.lastSeq > 0 || position.lastChange > 0 ? position.lastChange : nil
        rooms[room]?.awaitingSubscribed = true
        transmit(.subscribe(room: room, afterSeq: position.lastSeq, afterChange: afterChange, pollVotes: true), now: now)
    }

    /// Queues a frame on the current socket, paced: at most ``ChatSession/Pacing/burst`` at
    /// once, then ``ChatSession/Pacing/framesPerSecond``.
    mutating func transmit(_ frame: SocketCommand, now: Instant) {
        effects.append(.send(frame, at: bucket.take(now: now)))
    }

    /// Room ids as the server writes them (lowercase), whatever case the app used.
    static func canonical(_ room: String) -> String { room.lowercased() }
}

/// Frames a second on average, `burst` at once: when each may go.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(rate: Double, burst: Double, now: ContinuousClock.Instant) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = now
    }

    /// Takes one token at `now`: when the frame may go (`now`, or later when there was none).
    mutating func take(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let elapsed = max(.zero, now - last)
        last = max(last, now)
        tokens = min(burst, tokens + elapsed.seconds * rate)
        tokens -= 1
        return tokens >= 0 ? now : now + .seconds(-tokens / rate)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

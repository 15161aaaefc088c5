import Foundation

/// One socket per app to a SportLook server's chat (`GET /v1/ws`): rooms followed
/// and resumed after any drop without losing or repeating a message, messages sent
/// while offline kept and sent once the socket is back, the chats list kept live.
///
/// - Every room's stream delivers each message once, in `seq` order, then every
///   edit, reaction and deletion of the messages it delivered, once each. After a
///   drop the session reconnects (with a growing, jittered pause) and subscribes
///   again from the last `seq` and change it delivered: the server sends what was
///   missed, and nothing twice.
/// - ``send(_:to:clientID:replyTo:)`` puts a message in the outbox and returns its
///   `client_id`. The outbox is sent whenever the socket is up, and again after a
///   drop (or when the server has not answered it for ``Pacing/answerTimeout``),
///   until the server says `sent`: a message the server stored already is not stored
///   again (the same `client_id`). `overloaded`, `rate_limited` and `unavailable` are
///   answered by sending again after their `retry_after`. A room's messages go one at
///   a time, each once the one before is stored, so the room holds them in the order
///   they were sent, whatever was refused for a while.
/// - Frames go out at most as fast as the server takes them (``Pacing``), so
///   following many rooms at once never trips its frame limit.
/// - Keep ``position(of:)`` with what you show, and pass it to ``join(_:afterSeq:afterChange:)``
///   when the app starts again: the history between is sent first. (It is the
///   position of what the stream has been given; an event still in the stream's
///   buffer when the app is killed comes again only if the position saved was older.)
/// - The outbox lives in memory: what is in ``unsent`` when the app is killed is not
///   sent. ``stop()`` empties it (a session belongs to one signed-in user).
public actor ChatSession {
    /// Where the socket stands.
    public enum State: Sendable, Hashable {
        /// Opening the socket.
        case connecting
        /// The socket is up: frames go out now.
        case online
        /// Down; the next try is after this many seconds.
        case offline(retryIn: Double)
        /// Not started, or stopped.
        case stopped
    }

    /// The pause before each new try: doubling from `first` up to `longest`, each a
    /// random time between half of it and all of it (so a crowd of apps that lost the
    /// server together does not come back together).
    public struct Backoff: Sendable {
        /// The longest pause after the first failed try, in seconds.
        public var first: Double
        /// The longest pause of all, in seconds.
        public var longest: Double
        /// A connection not open after this many seconds is given up, and tried again.
        public var connectTimeout: Double

        public init(first: Double = 0.5, longest: Double = 30, connectTimeout: Double = 15) {
            self.first = first
            self.longest = longest
            self.connectTimeout = connectTimeout
        }

        func delay(attempt: Int) -> Double {
            let cap = min(longest, first * pow(2, Double(min(attempt, 30))))
            return cap / 2 + Double.random(in: 0...(cap / 2))
        }
    }

    /// How fast frames go out, and how long an unanswered message waits before it is
    /// sent again. The defaults stay inside the server's defaults (`WS_FRAME_RATE` 20
    /// a second, `WS_FRAME_BURST` 60).
    public struct Pacing: Sendable {
        /// Frames a second, on average.
        public var framesPerSecond: Double
        /// Frames at once after a quiet while.
        public var burst: Int
        /// A message the server has not answered (`sent` or an error) within this many
        /// seconds is sent again (the server stores it once whatever happens).
        public var answerTimeout: Double

        public init(framesPerSecond: Double = 15, burst: Int = 40, answerTimeout: Double = 10) {
            self.framesPerSecond = framesPerSecond
            self.burst = burst
            self.answerTimeout = answerTimeout
        }
    }

    struct Room {
        var lastSeq: Int
        var lastChange: Int
        var continuation: AsyncStream<ChatEvent>.Continuation
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
    }

    struct Outgoing {
        var room: String
        var clientID: String
        var body: String
        var replyTo: Int?
        /// Not sent again before this (a `retry_after`).
        var notBefore: ContinuousClock.Instant?
        /// The connection it was last sent on, and when: once per connection, again
        /// after a drop or when unanswered for the answer timeout.
        var sentOn: Int?
        var sentAt: ContinuousClock.Instant?
    }

    let url: URL
    let token: @Sendable () async -> String?
    let connector: any ChatSocketConnector
    let backoff: Backoff
    let pacing: Pacing
    var rooms: [String: Room] = [:]
    private var streams = 0
    var outbox: [Outgoing] = []
    var socket: (any ChatSocket)?
    /// Frames to send, in order, on the current socket (one sender drains it).
    var outgoing: AsyncStream<String>.Continuation?
    /// Counts connections.
    var connection = 0
    /// Counts runs (start after stop): a run that was stopped touches nothing of the next.
    var runID = 0
    private var runner: Task<Void, Never>?
    var stopped = false
    /// The connection answered (a `subscribed` or `sent`): the pause before the next try starts small again.
    var healthy = false
    var watching: AsyncStream<RoomListEvent>.Continuation?
    private var lastTyping: [String: ContinuousClock.Instant] = [:]
    private var stateContinuations: [UUID: AsyncStream<State>.Continuation] = [:]
    var state: State = .stopped {
        didSet { for continuation in stateContinuations.values { continuation.yield(state) } }
    }
    /// The pending wake-up of the outbox, and when it is due.
    var timer: (task: Task<Void, Never>, due: ContinuousClock.Instant)?
    var pendingTasks: [Task<Void, Never>] = []

    /// Typing is sent at most this often per room.
    public static let typingInterval: Duration = .seconds(3)
    /// The longest message body the server takes, in characters and in bytes of UTF-8.
    public static let maxBody = (characters: 2000, bytes: 8000)

    /// - Parameters:
    ///   - server: The server's base URL (`https://sportlook.example`); the socket is its `/v1/ws`.
    ///   - token: The access token to connect with, asked again at every connection.
    ///   - connector: How a socket is opened (``ChatSocketConnector/standard``: URLSession on
    ///     Apple platforms, SwiftNIO on Linux).
    ///   - backoff: The pauses between tries after a drop.
    ///   - pacing: How fast frames go out.
    public init(
        server: URL, token: @escaping @Sendable () async -> String?, connector: any ChatSocketConnector = .standard,
        backoff: Backoff = Backoff(), pacing: Pacing = Pacing()
    ) {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme == "https" ? "wss" : components.scheme == "http" ? "ws" : components.scheme
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/v1/ws"
        self.url = components.url ?? server
        self.token = token
        self.connector = connector
        self.backoff = backoff
        self.pacing = pacing
    }

    // MARK: Life

    /// Connects, and keeps connecting after every drop until ``stop()``.
    public func start() {
        guard runner == nil else { return }
        stopped = false
        runID += 1
        let run = runID
        runner = Task { await self.run(run) }
    }

    /// Closes the socket for good, ends every stream and empties the outbox.
    public func stop() async {
        stopped = true
        runID += 1
        runner?.cancel()
        runner = nil
        timer?.task.cancel()
        timer = nil
        for task in pendingTasks { task.cancel() }
        pendingTasks = []
        outgoing?.finish()
        outgoing = nil
        let socket = socket
        self.socket = nil
        await socket?.close()
        state = .stopped
        for room in rooms.values { room.continuation.finish() }
        rooms = [:]
        outbox = []
        watching?.finish()
        watching = nil
        for continuation in stateContinuations.values { continuation.finish() }
        stateContinuations = [:]
    }

    /// Drops the socket now, as a lost network would: the session connects again and
    /// resumes. (For an app going to the background, and for tests.)
    public func dropConnection() async {
        await socket?.close()
    }

    /// Where the socket stands now.
    public var currentState: State { state }

    /// Whether the socket is up (frames go out now rather than when it is back).
    public var isOnline: Bool { state == .online }

    /// Where the socket stands, now and at every change. After every return to
    /// ``State/online``, read the chats list again (`GET /v1/me/rooms`): `watch_rooms`
    /// tells changes from then on, not what changed while offline.
    public func states() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self)
        let id = UUID()
        stateContinuations[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.forgetStateStream(id) } }
        return stream
    }

    private func forgetStateStream(_ id: UUID) { stateContinuations[id] = nil }

    // MARK: Rooms

    /// Follows a room: its messages after `afterSeq`, then live ones, and the changes
    /// after `afterChange` to the messages it delivers. Following a room again ends
    /// the earlier stream and starts from the given position; so does ending the
    /// stream (a SwiftUI `.task` that goes away): the room is left.
    public func join(_ room: String, afterSeq: Int = 0, afterChange: Int = 0) -> AsyncStream<ChatEvent> {
        let room = Self.canonical(room)
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        streams += 1
        let id = streams
        let wasFollowed = rooms[room]?.active == true
        rooms[room]?.continuation.finish()
        rooms[room] = Room(lastSeq: afterSeq, lastChange: afterChange, continuation: continuation, stream: id)
        continuation.onTermination = { _ in Task { await self.streamEnded(room, stream: id) } }
        if state == .online {
            // The earlier subscription's frames still on their way are not this stream's.
            if wasFollowed {
                transmit(["type": "unsubscribe", "room_id": room])
                rooms[room]?.staleUntilUnsubscribed = true
            }
            sendSubscribe(room)
        }
        return stream
    }

    private func streamEnded(_ room: String, stream: Int) {
        guard rooms[room]?.stream == stream else { return }
        leave(room)
    }

    /// Stops following a room (its stream ends).
    public func leave(_ room: String) {
        let room = Self.canonical(room)
        guard let found = rooms.removeValue(forKey: room) else { return }
        found.continuation.finish()
        if state == .online, found.active { transmit(["type": "unsubscribe", "room_id": room]) }
    }

    /// The last `seq` and change a room's stream was given: keep them with what you
    /// show, to ``join(_:afterSeq:afterChange:)`` from there next time.
    public func position(of room: String) -> (seq: Int, change: Int)? {
        let room = Self.canonical(room)
        return rooms[room].map { ($0.lastSeq, $0.lastChange) }
    }

    /// Messages not yet confirmed stored (`sent`), oldest first.
    public var unsent: [(room: String, clientID: String, body: String, replyTo: Int?)] {
        outbox.map { ($0.room, $0.clientID, $0.body, $0.replyTo) }
    }

    // MARK: Sending

    /// Sends a message to a room the session follows (now, or when the socket is back);
    /// returns its `client_id`. Its ``ChatEvent/sent(clientID:seq:)`` event, and its
    /// ``ChatEvent/message(_:)`` in the room's stream, say it is stored; a refusal for
    /// good comes as ``ChatEvent/refused(clientID:code:message:)``.
    /// - Throws: ``ChatSessionError/notFollowed`` for a room not joined;
    ///   ``ChatSessionError/invalidMessage(_:)`` for a body or `client_id` the server
    ///   would refuse (empty, or longer than ``maxBody``; a `client_id` of 1 to 100
    ///   characters).
    @discardableResult
    public func send(_ body: String, to room: String, clientID: String = UUID().uuidString.lowercased(), replyTo: Int? = nil) throws
        -> String
    {
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
        flush()
        return id
    }

    /// Says the user is typing (at most once every ``typingInterval`` per room; nothing while offline).
    public func typing(in room: String) {
        let room = Self.canonical(room)
        let now = ContinuousClock.now
        guard state == .online, rooms[room]?.active == true else { return }
        if let last = lastTyping[room], now - last < Self.typingInterval { return }
        lastTyping[room] = now
        transmit(["type": "typing", "room_id": room])
    }

    /// Moves the user's read marker in a room (sent when the socket is up).
    public func markRead(_ room: String, upTo seq: Int) {
        let room = Self.canonical(room)
        guard rooms[room] != nil else { return }
        if state == .online {
            transmit(["type": "read", "room_id": room, "seq": seq])
        } else {
            rooms[room]?.pendingRead = max(rooms[room]?.pendingRead ?? 0, seq)
        }
    }

    /// The chats list's changes, live (one watcher; asking again replaces it).
    public func watchRooms() -> AsyncStream<RoomListEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RoomListEvent.self)
        watching?.finish()
        watching = continuation
        if state == .online { transmit(["type": "watch_rooms"]) }
        return stream
    }

}

/// Why a session could not connect or send.
public enum ChatSessionError: Error, Sendable, Equatable {
    /// The token closure gave none (signed out).
    case noToken
    /// The socket did not open within the connect timeout.
    case connectTimedOut
    /// A message to a room the session does not follow (``ChatSession/join(_:afterSeq:afterChange:)`` it first).
    case notFollowed
    /// A message the server would refuse; the reason.
    case invalidMessage(String)
}

/// Frames a second on average, `burst` at once: how long to wait before the next.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last = ContinuousClock.now

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes one token; the seconds to wait first when there was none.
    mutating func take() -> Double? {
        let now = ContinuousClock.now
        let elapsed = now - last
        last = now
        tokens = min(burst, tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * rate)
        tokens -= 1
        return tokens >= 0 ? nil : -tokens / rate
    }
}

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

        /// Pauses between connection attempts (seconds): the first, the longest, and how long an attempt may take.
        public init(first: Double = 0.5, longest: Double = 30, connectTimeout: Double = 15) {
            self.first = first
            self.longest = longest
            self.connectTimeout = connectTimeout
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

        /// Frames a second and in one burst (keep them within the server's `WS_FRAME_RATE` and `WS_FRAME_BURST`), and how long a sent message waits for its answer before it is sent again (seconds).
        public init(framesPerSecond: Double = 15, burst: Int = 40, answerTimeout: Double = 10) {
            self.framesPerSecond = framesPerSecond
            self.burst = burst
            self.answerTimeout = answerTimeout
        }
    }

    let url: URL
    let token: @Sendable () async -> String?
    let connector: any ChatSocketConnector
    /// The rules: rooms, positions, the outbox, pacing and pauses (the session carries out what they say).
    var rules: ChatProtocol
    /// Each room's stream, by its number.
    var streams: [Int: AsyncStream<ChatEvent>.Continuation] = [:]
    var socket: (any ChatSocket)?
    /// Frames to send, in order, on the current socket, each not before its time (one sender drains it).
    var outgoing: AsyncStream<(SocketCommand, ContinuousClock.Instant)>.Continuation?
    /// Counts runs (start after stop): a run that was stopped touches nothing of the next.
    var runID = 0
    private var runner: Task<Void, Never>?
    var stopped = false
    var watching: AsyncStream<RoomListEvent>.Continuation?
    private var eventContinuations: [UUID: AsyncStream<SocketEvent>.Continuation] = [:]
    private var stateContinuations: [UUID: AsyncStream<State>.Continuation] = [:]
    var state: State = .stopped {
        didSet { for continuation in stateContinuations.values { continuation.yield(state) } }
    }
    /// The pending wake-up of the rules, and when it is due.
    var timer: (task: Task<Void, Never>, due: ContinuousClock.Instant)?

    /// Typing is sent at most this often per room.
    public static let typingInterval = ChatProtocol.typingInterval
    /// The longest message body the server takes, in characters and in bytes of UTF-8.
    public static let maxBody = ChatProtocol.maxBody

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
        rules = ChatProtocol(backoff: backoff, pacing: pacing, now: .now)
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
        outgoing?.finish()
        outgoing = nil
        let socket = socket
        self.socket = nil
        await socket?.close()
        rules.stop()
        apply()
        watching?.finish()
        watching = nil
        for continuation in eventContinuations.values { continuation.finish() }
        eventContinuations = [:]
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

    /// Every frame the server sends, decoded, as it arrives: notifications, the
    /// database's state, and the rest (what the rooms' streams tell comes in them too).
    public func socketEvents() -> AsyncStream<SocketEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SocketEvent.self)
        let id = UUID()
        eventContinuations[id] = continuation
        continuation.onTermination = { _ in Task { await self.forgetEventStream(id) } }
        return stream
    }

    private func forgetEventStream(_ id: UUID) { eventContinuations[id] = nil }

    /// A frame arrived: the rules act on it, and the app's listeners hear it.
    func received(_ text: String) {
        let event = SocketEvent(decoding: text)
        for continuation in eventContinuations.values { continuation.yield(event) }
        rules.received(event, now: .now)
        apply()
    }

    // MARK: Rooms

    /// Follows a room: its messages after `afterSeq`, then live ones, and the changes
    /// after `afterChange` to the messages it delivers. Following a room again ends
    /// the earlier stream and starts from the given position; so does ending the
    /// stream (a SwiftUI `.task` that goes away): the room is left.
    public func join(_ room: String, afterSeq: Int = 0, afterChange: Int = 0) -> AsyncStream<ChatEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        let room = ChatProtocol.canonical(room)
        let id = rules.join(room, afterSeq: afterSeq, afterChange: afterChange, now: .now)
        streams[id] = continuation
        continuation.onTermination = { _ in Task { await self.streamEnded(room, stream: id) } }
        apply()
        return stream
    }

    private func streamEnded(_ room: String, stream: Int) {
        rules.streamEnded(room, stream: stream, now: .now)
        apply()
    }

    /// Stops following a room (its stream ends).
    public func leave(_ room: String) {
        rules.leave(room, now: .now)
        apply()
    }

    /// The last `seq` and change a room's stream was given: keep them with what you
    /// show, to ``join(_:afterSeq:afterChange:)`` from there next time.
    public func position(of room: String) -> RoomPosition? { rules.position(of: room).map { RoomPosition(seq: $0.seq, change: $0.change) } }

    /// Messages not yet confirmed stored (`sent`), oldest first.
    public var unsent: [UnsentMessage] {
        rules.outbox.map { UnsentMessage(room: $0.room, clientID: $0.clientID, body: $0.body, replyTo: $0.replyTo) }
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
        let id = try rules.send(body, to: room, clientID: clientID, replyTo: replyTo, now: .now)
        apply()
        return id
    }

    /// Says the user is typing (at most once every ``typingInterval`` per room; nothing while offline).
    public func typing(in room: String) {
        rules.typing(in: room, now: .now)
        apply()
    }

    /// Moves the user's read marker in a room (sent when the socket is up).
    public func markRead(_ room: String, upTo seq: Int) {
        rules.markRead(room, upTo: seq, now: .now)
        apply()
    }

    /// The chats list's changes, live (one watcher; asking again replaces it).
    public func watchRooms() -> AsyncStream<RoomListEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RoomListEvent.self)
        watching?.finish()
        watching = continuation
        rules.watchRooms(now: .now)
        apply()
        return stream
    }

    // MARK: Carrying out the rules

    /// Does what the rules said, and wakes them when something is next due.
    func apply() {
        for effect in rules.takeEffects() {
            switch effect {
            case .send(let frame, let at): outgoing?.yield((frame, at))
            case .deliver(let event, let stream): streams[stream]?.yield(event)
            case .finish(let stream): streams.removeValue(forKey: stream)?.finish()
            case .roomList(let event): watching?.yield(event)
            case .state(let new): state = new
            }
        }
        guard let next = rules.nextWake else { return }
        // One wake-up, at the earliest time something is due.
        if let timer, timer.due <= next { return }
        timer?.task.cancel()
        timer = (
            Task { [weak self] in
                do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
                await self?.wake()
            }, next
        )
    }

    private func wake() {
        timer = nil
        rules.tick(now: .now)
        apply()
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

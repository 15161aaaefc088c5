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

    private struct Room {
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

    private struct Outgoing {
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

    private let url: URL
    private let token: @Sendable () async -> String?
    private let connector: any ChatSocketConnector
    private let backoff: Backoff
    private let pacing: Pacing
    private var rooms: [String: Room] = [:]
    private var streams = 0
    private var outbox: [Outgoing] = []
    private var socket: (any ChatSocket)?
    /// Frames to send, in order, on the current socket (one sender drains it).
    private var outgoing: AsyncStream<String>.Continuation?
    /// Counts connections.
    private var connection = 0
    /// Counts runs (start after stop): a run that was stopped touches nothing of the next.
    private var runID = 0
    private var runner: Task<Void, Never>?
    private var stopped = false
    /// The connection answered (a `subscribed` or `sent`): the pause before the next try starts small again.
    private var healthy = false
    private var watching: AsyncStream<RoomListEvent>.Continuation?
    private var lastTyping: [String: ContinuousClock.Instant] = [:]
    private var stateContinuations: [UUID: AsyncStream<State>.Continuation] = [:]
    private var state: State = .stopped {
        didSet { for continuation in stateContinuations.values { continuation.yield(state) } }
    }
    /// The pending wake-up of the outbox, and when it is due.
    private var timer: (task: Task<Void, Never>, due: ContinuousClock.Instant)?
    private var pendingTasks: [Task<Void, Never>] = []

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

    // MARK: The connection

    private func run(_ run: Int) async {
        var attempt = 0
        while !stopped && !Task.isCancelled && run == self.runID {
            state = .connecting
            healthy = false
            let opened = ContinuousClock.now
            do {
                guard let token = await token() else { throw ChatSessionError.noToken }
                let socket = try await open(token: token)
                // Stopped (or stopped and started again) while it opened: not this run's any more.
                guard !stopped, !Task.isCancelled, run == self.runID else {
                    await socket.close()
                    break
                }
                self.socket = socket
                connection += 1
                let (frames, continuation) = AsyncStream.makeStream(of: String.self)
                outgoing = continuation
                let pacing = pacing
                let sender = Task {
                    var bucket = TokenBucket(rate: pacing.framesPerSecond, burst: Double(pacing.burst))
                    for await text in frames {
                        if let wait = bucket.take() { try? await Task.sleep(for: .seconds(wait)) }
                        do { try await socket.send(text) } catch {
                            await socket.close()
                            break
                        }
                    }
                }
                state = .online
                for id in rooms.keys.sorted() where rooms[id]?.active == true {
                    sendSubscribe(id)
                    if let read = rooms[id]?.pendingRead {
                        transmit(["type": "read", "room_id": id, "seq": read])
                        rooms[id]?.pendingRead = nil
                    }
                }
                if watching != nil { transmit(["type": "watch_rooms"]) }
                flush()
                for await text in socket.received {
                    handle(text)
                }
                continuation.finish()
                sender.cancel()
                await socket.close()
            } catch {
                // A failed connection is one more try; the pause grows.
            }
            guard run == self.runID else { break }
            socket = nil
            outgoing = nil
            guard !stopped && !Task.isCancelled else { break }
            // A connection that answered, or stayed up a while, starts the pauses over;
            // one closed at once (refused, a frame limit) makes them grow.
            if healthy || ContinuousClock.now - opened > .seconds(30) { attempt = 0 }
            let delay = backoff.delay(attempt: attempt)
            attempt += 1
            state = .offline(retryIn: delay)
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// Opens a socket, or fails once `connectTimeout` has passed (a connection cut
    /// during the handshake may otherwise never say so).
    private func open(token: String) async throws -> any ChatSocket {
        let connector = connector
        let url = url
        let timeout = backoff.connectTimeout
        return try await withThrowingTaskGroup(of: (any ChatSocket)?.self) { group in
            group.addTask { try await connector.connect(to: url, token: token) }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let socket = first else { throw ChatSessionError.connectTimedOut }
            return socket
        }
    }

    private func sendSubscribe(_ room: String) {
        guard let position = rooms[room] else { return }
        var frame: [String: Any] = ["type": "subscribe", "room_id": room, "after_seq": position.lastSeq]
        // From the start, every message comes in its current state: no change to replay.
        if position.lastSeq > 0 || position.lastChange > 0 { frame["after_change"] = position.lastChange }
        rooms[room]?.awaitingSubscribed = true
        transmit(frame)
    }

    /// Sends the oldest unconfirmed message of each room, when it may go now (one in
    /// flight per room, so a room stores them in the order they were sent, whatever is
    /// refused for a while); sends again one left unanswered; wakes when the next must.
    private func flush() {
        guard state == .online else { return }
        let now = ContinuousClock.now
        let answerTimeout = Duration.seconds(pacing.answerTimeout)
        var next: ContinuousClock.Instant?
        var heads = Set<String>()
        for i in outbox.indices where heads.insert(outbox[i].room).inserted {
            let item = outbox[i]
            if item.sentOn == connection, let sentAt = item.sentAt {
                guard now - sentAt >= answerTimeout else {
                    next = min(next ?? sentAt + answerTimeout, sentAt + answerTimeout)
                    continue
                }
            }
            if let notBefore = item.notBefore, notBefore > now {
                next = min(next ?? notBefore, notBefore)
                continue
            }
            var frame: [String: Any] = ["type": "message", "room_id": item.room, "client_id": item.clientID, "body": item.body]
            if let reply = item.replyTo { frame["reply_to"] = reply }
            transmit(frame)
            outbox[i].sentOn = connection
            outbox[i].sentAt = now
            next = min(next ?? now + answerTimeout, now + answerTimeout)
        }
        guard let next else { return }
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
        flush()
    }

    /// Queues a frame on the current socket (frames go out in the order queued).
    private func transmit(_ frame: [String: Any]) {
        guard let outgoing, let data = try? JSONSerialization.data(withJSONObject: frame) else { return }
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    private func handle(_ text: String) {
        guard let frame = try? ServerFrame.decoder.decode(ServerFrame.self, from: Data(text.utf8)) else { return }
        switch frame.type {
        case "subscribed":
            guard let id = frame.roomID else { return }
            healthy = true
            rooms[id]?.awaitingSubscribed = false
        case "message":
            guard let message = frame.message, var room = rooms[message.roomId], room.active, !room.staleUntilUnsubscribed else { return }
            if message.seq > room.lastSeq {
                room.lastSeq = message.seq
                room.continuation.yield(.message(message))
            }
            room.lastChange = max(room.lastChange, frame.afterChange ?? 0)
            rooms[message.roomId] = room
        case "message_edited", "message_deleted":
            guard let message = frame.message, var room = rooms[message.roomId], room.active, !room.staleUntilUnsubscribed else { return }
            let change = frame.afterChange ?? message.changeSeq
            // A change to a message not delivered yet arrives with the message itself.
            guard change > room.lastChange, message.seq <= room.lastSeq else { return }
            room.lastChange = change
            room.continuation.yield(frame.type == "message_deleted" ? .deleted(message) : .edited(message))
            rooms[message.roomId] = room
        case "sent":
            healthy = true
            guard let clientID = frame.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) else { return }
            let item = outbox.remove(at: index)
            if let seq = frame.seq { rooms[item.room]?.continuation.yield(.sent(clientID: clientID, seq: seq)) }
            flush()
        case "error":
            handleError(frame)
        case "unsubscribed":
            guard let id = frame.roomID, let reason = frame.reason, rooms[id]?.active == true else { return }
            guard reason != "requested" else {
                rooms[id]?.staleUntilUnsubscribed = false
                return
            }
            if reason == "unavailable" {
                // The server could not check the membership just now: asked again after a pause.
                resubscribe(id, after: 5)
            } else {
                rooms[id]?.active = false
                rooms[id]?.continuation.yield(.ended(reason: reason))
                dropOutbox(of: id, code: reason)
            }
        case "typing":
            guard let id = frame.roomID, let user = frame.user else { return }
            rooms[id]?.continuation.yield(.typing(user: user.id, name: user.name ?? ""))
        case "read":
            guard let id = frame.roomID, let user = frame.user, let seq = frame.seq else { return }
            rooms[id]?.continuation.yield(.read(user: user.id, seq: seq))
        case "room_updated":
            if let entry = frame.room { watching?.yield(.updated(entry)) }
        case "room_removed":
            if let id = frame.roomID { watching?.yield(.removed(id)) }
        default:
            break
        }
    }

    /// Room ids as the server writes them (lowercase), whatever case the app used.
    static func canonical(_ room: String) -> String { room.lowercased() }

    /// Codes after which the same frame is sent again (after `retry_after`).
    static let transient: Set<String> = ["overloaded", "rate_limited", "unavailable"]

    private func handleError(_ frame: ServerFrame) {
        let code = frame.code ?? "error"
        let retry = frame.retryAfter ?? 1
        if let clientID = frame.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) {
            if Self.transient.contains(code) {
                outbox[index].notBefore = .now + .seconds(retry)
                outbox[index].sentOn = nil
                flush()
            } else {
                let item = outbox.remove(at: index)
                rooms[item.room]?.continuation.yield(.refused(clientID: clientID, code: code, message: frame.text ?? ""))
                flush()
            }
            return
        }
        // Only a subscription waiting for its answer is refused by an error naming the
        // room; others answer a `read` or `typing`, which are not worth more.
        guard let id = frame.roomID, rooms[id]?.active == true, rooms[id]?.awaitingSubscribed == true else { return }
        rooms[id]?.awaitingSubscribed = false
        if Self.transient.contains(code) {
            resubscribe(id, after: retry)
        } else {
            rooms[id]?.active = false
            rooms[id]?.continuation.yield(.ended(reason: code))
            dropOutbox(of: id, code: code)
        }
    }

    /// The room's messages waiting to go will not: each is refused with the room's end.
    private func dropOutbox(of room: String, code: String) {
        let dropped = outbox.filter { $0.room == room }
        outbox.removeAll { $0.room == room }
        for item in dropped {
            rooms[room]?.continuation.yield(
                .refused(clientID: item.clientID, code: code, message: "The room was left before the message was stored."))
        }
    }

    private func resubscribe(_ room: String, after seconds: Double) {
        let connection = connection
        pendingTasks.removeAll { $0.isCancelled }
        pendingTasks.append(
            Task { [weak self] in
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
                await self?.subscribeAgain(room, on: connection)
            })
    }

    private func subscribeAgain(_ room: String, on connection: Int) {
        // A new connection subscribes every room anyway.
        guard state == .online, connection == self.connection, rooms[room]?.active == true else { return }
        sendSubscribe(room)
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

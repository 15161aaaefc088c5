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
///   drop, until the server says `sent`: a message the server stored already is
///   not stored again (the same `client_id`). `overloaded`, `rate_limited` and
///   `unavailable` are answered by sending again after their `retry_after`. A room's
///   messages go one at a time, each once the one before is stored, so the room
///   holds them in the order they were sent, whatever was refused for a while.
/// - Keep ``position(of:)`` with what you show, and pass it to ``join(_:afterSeq:afterChange:)``
///   when the app starts again: the history between is sent first.
public actor ChatSession {
    /// Where the socket stands.
    public enum State: Sendable, Hashable {
        case connecting
        case online
        /// Down; the next try is after this many seconds.
        case offline(retryIn: Double)
        case stopped
    }

    /// The pause before each new try: doubling from `first` up to `longest`, each a
    /// random time between half of it and all of it (so a crowd of apps that lost the
    /// server together does not come back together).
    public struct Backoff: Sendable {
        public var first: Double
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

    private struct Room {
        var lastSeq: Int
        var lastChange: Int
        var continuation: AsyncStream<ChatEvent>.Continuation
        /// Subscribed (or to be, once online); false once the server ended it or the app left.
        var active = true
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
        /// The connection it was last sent on: once per connection, again after a drop.
        var sentOn: Int?
    }

    private let url: URL
    private let token: @Sendable () async -> String?
    private let connector: any ChatSocketConnector
    private let backoff: Backoff
    private var rooms: [String: Room] = [:]
    private var outbox: [Outgoing] = []
    private var socket: (any ChatSocket)?
    /// Frames to send, in order, on the current socket (one sender drains it).
    private var outgoing: AsyncStream<String>.Continuation?
    /// Counts connections.
    private var connection = 0
    private var runner: Task<Void, Never>?
    private var stopped = false
    private var watching: AsyncStream<RoomListEvent>.Continuation?
    private var lastTyping: [String: ContinuousClock.Instant] = [:]
    private var stateContinuations: [UUID: AsyncStream<State>.Continuation] = [:]
    private var state: State = .stopped {
        didSet { for continuation in stateContinuations.values { continuation.yield(state) } }
    }
    private var retryFlush: Task<Void, Never>?

    /// Typing is sent at most this often per room.
    public static let typingInterval: Duration = .seconds(3)

    /// - Parameters:
    ///   - server: The server's base URL (`https://sportlook.example`); the socket is its `/v1/ws`.
    ///   - token: The access token to connect with, asked again at every connection.
    ///   - connector: How a socket is opened (``ChatSocketConnector/standard``: URLSession on
    ///     Apple platforms, SwiftNIO on Linux).
    ///   - backoff: The pauses between tries after a drop.
    public init(server: URL, token: @escaping @Sendable () async -> String?, connector: any ChatSocketConnector = .standard, backoff: Backoff = Backoff()) {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme == "https" ? "wss" : components.scheme == "http" ? "ws" : components.scheme
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/v1/ws"
        self.url = components.url ?? server
        self.token = token
        self.connector = connector
        self.backoff = backoff
    }

    // MARK: Life

    /// Connects, and keeps connecting after every drop until ``stop()``.
    public func start() {
        guard runner == nil else { return }
        stopped = false
        runner = Task { await self.run() }
    }

    /// Closes the socket for good and ends every stream.
    public func stop() async {
        stopped = true
        runner?.cancel()
        retryFlush?.cancel()
        await socket?.close()
        socket = nil
        runner = nil
        state = .stopped
        for room in rooms.values { room.continuation.finish() }
        rooms = [:]
        watching?.finish()
        watching = nil
        for continuation in stateContinuations.values { continuation.finish() }
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

    /// Where the socket stands, now and at every change.
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
    /// the earlier stream and starts from the given position.
    public func join(_ room: String, afterSeq: Int = 0, afterChange: Int = 0) -> AsyncStream<ChatEvent> {
        let room = Self.canonical(room)
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        rooms[room]?.continuation.finish()
        rooms[room] = Room(lastSeq: afterSeq, lastChange: afterChange, continuation: continuation)
        if state == .online { transmit(subscribe(room)) }
        return stream
    }

    /// Stops following a room (its stream ends).
    public func leave(_ room: String) {
        let room = Self.canonical(room)
        guard let found = rooms.removeValue(forKey: room) else { return }
        found.continuation.finish()
        if state == .online { transmit(["type": "unsubscribe", "room_id": room]) }
    }

    /// The last `seq` and change a room's stream delivered: keep them with what you
    /// show, to ``join(_:afterSeq:afterChange:)`` from there next time.
    public func position(of room: String) -> (seq: Int, change: Int)? {
        let room = Self.canonical(room)
        return rooms[room].map { ($0.lastSeq, $0.lastChange) }
    }

    /// Messages not yet confirmed stored (`sent`), oldest first.
    public var unsent: [(room: String, clientID: String, body: String)] {
        outbox.map { ($0.room, $0.clientID, $0.body) }
    }

    // MARK: Sending

    /// Sends a message (now, or when the socket is back); returns its `client_id`.
    /// Its `sent` event, and its `message` in the room's stream, say it is stored.
    @discardableResult
    public func send(_ body: String, to room: String, clientID: String = UUID().uuidString, replyTo: Int? = nil) -> String {
        let room = Self.canonical(room)
        outbox.append(Outgoing(room: room, clientID: clientID, body: body, replyTo: replyTo))
        if state == .online { flush() }
        return clientID
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

    private func run() async {
        var attempt = 0
        while !stopped && !Task.isCancelled {
            state = .connecting
            do {
                guard let token = await token() else { throw ChatSessionError.noToken }
                let socket = try await open(token: token)
                self.socket = socket
                connection += 1
                let (frames, continuation) = AsyncStream.makeStream(of: String.self)
                outgoing = continuation
                let sender = Task {
                    for await text in frames {
                        do { try await socket.send(text) } catch { await socket.close(); break }
                    }
                }
                defer {
                    continuation.finish()
                    sender.cancel()
                }
                attempt = 0
                state = .online
                for id in rooms.keys where rooms[id]?.active == true {
                    transmit(subscribe(id))
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
            } catch {
                // A failed connection is one more try; the pause grows.
            }
            socket = nil
            outgoing = nil
            guard !stopped && !Task.isCancelled else { break }
            let delay = backoff.delay(attempt: attempt)
            attempt += 1
            state = .offline(retryIn: delay)
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// Opens a socket, or fails once `connectTimeout` has passed (a connection cut
    /// during the handshake may otherwise never say so).
    private func open(token: String) async throws -> any ChatSocket {
        let connector = connector, url = url, timeout = backoff.connectTimeout
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

    private func subscribe(_ room: String) -> [String: Any] {
        let position = rooms[room]
        return ["type": "subscribe", "room_id": room, "after_seq": position?.lastSeq ?? 0, "after_change": position?.lastChange ?? 0]
    }

    /// Sends the oldest unconfirmed message of each room, when it may go now (one in
    /// flight per room, so a room stores them in the order they were sent, whatever is
    /// refused for a while); schedules the next try of one that must wait.
    private func flush() {
        guard state == .online else { return }
        let now = ContinuousClock.now
        var later: ContinuousClock.Instant?
        var heads = Set<String>()
        for i in outbox.indices where heads.insert(outbox[i].room).inserted && outbox[i].sentOn != connection {
            let item = outbox[i]
            if let notBefore = item.notBefore, notBefore > now {
                later = min(later ?? notBefore, notBefore)
                continue
            }
            var frame: [String: Any] = ["type": "message", "room_id": item.room, "client_id": item.clientID, "body": item.body]
            if let reply = item.replyTo { frame["reply_to"] = reply }
            transmit(frame)
            outbox[i].sentOn = connection
        }
        if let later {
            retryFlush?.cancel()
            retryFlush = Task { [weak self] in
                try? await Task.sleep(until: later, clock: .continuous)
                await self?.flush()
            }
        }
    }

    /// Queues a frame on the current socket (frames go out in the order queued).
    private func transmit(_ frame: [String: Any]) {
        guard let outgoing, let data = try? JSONSerialization.data(withJSONObject: frame) else { return }
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    private func handle(_ text: String) {
        guard let frame = try? ServerFrame.decoder.decode(ServerFrame.self, from: Data(text.utf8)) else { return }
        switch frame.type {
        case "message":
            guard let message = frame.message, var room = rooms[message.roomId], room.active else { return }
            if message.seq > room.lastSeq {
                room.lastSeq = message.seq
                room.continuation.yield(.message(message))
            }
            room.lastChange = max(room.lastChange, frame.afterChange ?? 0)
            rooms[message.roomId] = room
        case "message_edited", "message_deleted":
            guard let message = frame.message, var room = rooms[message.roomId], room.active else { return }
            let change = frame.afterChange ?? message.changeSeq
            // A change to a message not delivered yet arrives with the message itself.
            guard change > room.lastChange, message.seq <= room.lastSeq else { return }
            room.lastChange = change
            room.continuation.yield(frame.type == "message_deleted" ? .deleted(message) : .edited(message))
            rooms[message.roomId] = room
        case "sent":
            guard let clientID = frame.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) else { return }
            let item = outbox.remove(at: index)
            if let seq = frame.seq { rooms[item.room]?.continuation.yield(.sent(clientID: clientID, seq: seq)) }
            flush()
        case "error":
            handleError(frame)
        case "unsubscribed":
            guard let id = frame.roomID, frame.reason != "requested", rooms[id] != nil else { return }
            rooms[id]?.active = false
            rooms[id]?.continuation.yield(.ended(reason: frame.reason ?? "ended"))
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
        guard let id = frame.roomID, rooms[id]?.active == true else { return }
        if Self.transient.contains(code) {
            // A subscription refused for now: asked again after the pause.
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(retry))
                await self?.resubscribe(id)
            }
        } else if code != "not_subscribed" {
            rooms[id]?.active = false
            rooms[id]?.continuation.yield(.ended(reason: code))
        }
    }

    private func resubscribe(_ room: String) {
        guard state == .online, rooms[room]?.active == true else { return }
        transmit(subscribe(room))
    }
}

/// Why a session could not connect.
public enum ChatSessionError: Error, Sendable {
    /// The token closure gave none (signed out).
    case noToken
    /// The socket did not open within the connect timeout.
    case connectTimedOut
}

import Foundation
import Logging
import PostgresNIO
import SQLKit
import ServiceLifecycle
import Synchronization

/// "Look again": a change other parts of this instance, or other instances,
/// must see. The database is the truth; a message only says what to re-read.
public enum BusMessage: Sendable, Hashable {
    /// An event was created, moved, edited or cancelled.
    case event(UUID)
    /// A user's profile, location or visibility changed.
    case user(UUID)
    /// An access token was revoked.
    case session(UUID)
    /// This user's attendances changed (joined, left, promoted).
    case attendance(UUID)
    /// A chat message with this `seq` was stored in this room (an event's or a conversation).
    case chat(room: UUID, seq: Int64)
    /// A message of this room was edited, deleted or reacted to, taking change number `change`.
    case chatChange(room: UUID, change: Int64)
    /// How this user sees this room changed (a conversation accepted, a mute): their chats list updates.
    case roomState(user: UUID, room: UUID)
    /// A notification was added to this user's inbox.
    case notification(user: UUID, id: UUID)
    /// Jobs are due.
    case jobs
    /// Someone blocked or unblocked someone.
    case block(UUID, UUID)
    /// Someone is typing in a room (never stored).
    case typing(room: UUID, user: UUID, name: String)
    /// Someone read a room up to `seq`.
    case read(room: UUID, user: UUID, seq: Int64)
    /// Messages may have been missed (the listener reconnected): re-read everything cached.
    case resync

    var encoded: String {
        switch self {
        case .event(let id): "e|\(id.lowercased)"
        case .user(let id): "u|\(id.lowercased)"
        case .session(let id): "s|\(id.lowercased)"
        case .attendance(let id): "a|\(id.lowercased)"
        case .chat(let room, let seq): "c|\(room.lowercased)|\(seq)"
        case .chatChange(let room, let change): "x|\(room.lowercased)|\(change)"
        case .roomState(let user, let room): "o|\(user.lowercased)|\(room.lowercased)"
        case .notification(let user, let id): "n|\(user.lowercased)|\(id.lowercased)"
        case .jobs: "j"
        case .block(let a, let b): "b|\(a.lowercased)|\(b.lowercased)"
        case .typing(let room, let user, let name): "t|\(room.lowercased)|\(user.lowercased)|\(Data(name.prefix(80).utf8).base64EncodedString())"
        case .read(let room, let user, let seq): "d|\(room.lowercased)|\(user.lowercased)|\(seq)"
        case .resync: "r"
        }
    }

    init?(encoded: Substring) {
        let parts = encoded.split(separator: "|")
        func uuid(_ i: Int) -> UUID? { i < parts.count ? UUID(uuidString: String(parts[i])) : nil }
        switch parts.first {
        case "e": guard let id = uuid(1) else { return nil }; self = .event(id)
        case "u": guard let id = uuid(1) else { return nil }; self = .user(id)
        case "s": guard let id = uuid(1) else { return nil }; self = .session(id)
        case "a": guard let id = uuid(1) else { return nil }; self = .attendance(id)
        case "c": guard let id = uuid(1), parts.count > 2, let seq = Int64(parts[2]) else { return nil }; self = .chat(room: id, seq: seq)
        case "x": guard let id = uuid(1), parts.count > 2, let change = Int64(parts[2]) else { return nil }; self = .chatChange(room: id, change: change)
        case "o": guard let user = uuid(1), let room = uuid(2) else { return nil }; self = .roomState(user: user, room: room)
        case "n": guard let user = uuid(1), let id = uuid(2) else { return nil }; self = .notification(user: user, id: id)
        case "j": self = .jobs
        case "b": guard let a = uuid(1), let b = uuid(2) else { return nil }; self = .block(a, b)
        case "t":
            guard let room = uuid(1), let user = uuid(2), parts.count > 3, let data = Data(base64Encoded: String(parts[3])) else { return nil }
            self = .typing(room: room, user: user, name: String(decoding: data, as: UTF8.self))
        case "d": guard let room = uuid(1), let user = uuid(2), parts.count > 3, let seq = Int64(parts[3]) else { return nil }; self = .read(room: room, user: user, seq: seq)
        case "r": self = .resync
        default: return nil
        }
    }
}

/// Carries ``BusMessage``s: in-process to this instance's subscribers, and on
/// PostgreSQL through `LISTEN/NOTIFY` to every other instance.
///
/// Writers call ``notify(_:on:)`` inside their transaction (PostgreSQL delivers
/// the notification when, and only if, the transaction commits) and
/// ``deliverLocally(_:)`` after it committed. Each instance ignores its own
/// notifications, having already applied them.
public final class Bus: Service, Sendable {
    static let channel = "sportlook"
    /// This process's identity on the bus.
    public let instanceID: String
    private let database: Database
    private let logger: Logger
    private let subscribers = Mutex<[UUID: AsyncStream<BusMessage>.Continuation]>([:])
    private let listening = Atomic<Bool>(false)
    /// When the listener was last known to hear everything, and the earliest such
    /// moment before a reconnect that no one has resynchronised from yet.
    private let heard = Mutex<(last: ContinuousClock.Instant?, gap: ContinuousClock.Instant?)>((nil, nil))

    init(database: Database, logger: Logger) {
        self.instanceID = String(UUID().uuidString.prefix(8)).lowercased()
        self.database = database
        self.logger = logger
    }

    /// A stream of every message this instance should act on.
    public func subscribe() -> AsyncStream<BusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: BusMessage.self)
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { $0[id] = nil } }
        return stream
    }

    /// Queues notifications for other instances in the caller's transaction (PostgreSQL only).
    func notify(_ messages: [BusMessage], on sql: any SQLDatabase) async throws {
        guard sql.isPostgres, !messages.isEmpty else { return }
        if messages.count == 1 {
            // The usual case (a chat message's announcement), prepared once per connection.
            _ = try await sql.rows(NotifyOne(values: [.text(Self.channel), .text(instanceID + "|" + messages[0].encoded)]))
            return
        }
        try await sql.raw(notifications(messages)).run()
    }

    /// One message on the bus.
    private struct NotifyOne: SharedStatement {
        static let text = "SELECT pg_notify($1, $2)"
        var values: [StatementValue]
    }

    /// Announces ephemeral messages (typing, read markers) to every instance, this one included.
    func broadcast(_ messages: [BusMessage]) async throws {
        deliverLocally(messages)
        guard database.engine == .postgres, !messages.isEmpty else { return }
        let statement = notifications(messages)
        try await database.read { sql in try await sql.raw(statement).run() }
    }

    /// One statement that notifies every message, in order.
    private func notifications(_ messages: [BusMessage]) -> SQLQueryString {
        let rows: [[any Encodable & Sendable]] = messages.enumerated().map { [$0.offset, instanceID + "|" + $0.element.encoded] }
        return "SELECT pg_notify(\(bind: Self.channel), m.payload) FROM (VALUES \(BindRows(rows: rows))) AS m(n, payload) ORDER BY m.n"
    }

    /// Hands messages to this instance's subscribers.
    public func deliverLocally(_ messages: [BusMessage]) {
        let continuations = subscribers.withLock { Array($0.values) }
        for message in messages {
            for continuation in continuations { continuation.yield(message) }
        }
    }

    /// Whether the PostgreSQL listener is connected (always `true` on SQLite).
    public var isListening: Bool { database.engine == .sqlite || listening.load(ordering: .relaxed) }

    /// Listens for other instances' notifications until shutdown, reconnecting
    /// after outages (and announcing ``BusMessage/resync`` when it does).
    public func run() async throws {
        guard database.engine == .postgres else {
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown { [self] in
            var delay = Duration.milliseconds(200)
            while !Task.isCancelled {
                do {
                    _ = try await database.withDedicatedConnection { connection in
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                try await connection.listen(on: Self.channel) { notifications in
                                    self.heard.withLock { heard in
                                        if let last = heard.last { heard.gap = min(heard.gap ?? last, last) }
                                        heard.last = .now
                                    }
                                    self.listening.store(true, ordering: .relaxed)
                                    self.deliverLocally([.resync])
                                    for try await notification in notifications {
                                        self.receive(notification.payload)
                                    }
                                }
                            }
                            group.addTask {
                                // After the server restarts, the notification stream of
                                // the dropped connection can stay open, silent, for ever:
                                // probe the connection and close it when it does not answer.
                                while true {
                                    try await Task.sleep(for: Self.probeInterval)
                                    guard await Self.answers(connection, within: .seconds(3), logger: self.logger) else {
                                        try? await connection.close()
                                        throw ListenerLost()
                                    }
                                    self.heard.withLock { $0.last = .now }
                                }
                            }
                            try await group.next()
                            group.cancelAll()
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning("bus listener lost its connection; reconnecting", metadata: ["error": "\(String(describing: error).prefix(200))"])
                }
                // A connection that was up starts the backoff afresh.
                if listening.load(ordering: .relaxed) { delay = .milliseconds(200) }
                listening.store(false, ordering: .relaxed)
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        listening.store(false, ordering: .relaxed)
    }

    /// How long ago the listener was last known to hear everything before it
    /// reconnected (the earliest such moment since the last call), or nil after the
    /// first connection: messages older than that may have been missed.
    func takeGap() -> Duration? {
        heard.withLock { heard in
            defer { heard.gap = nil }
            return heard.gap.map { .now - $0 }
        }
    }

    /// How often the listening connection is probed.
    static let probeInterval = Duration.seconds(5)

    struct ListenerLost: Error, CustomStringConvertible {
        var description: String { "the listening connection stopped answering" }
    }

    /// Whether `connection` answers `SELECT 1` within `limit` (never waits longer,
    /// even when the query itself hangs on a dead socket).
    static func answers(_ connection: PostgresConnection, within limit: Duration, logger: Logger) async -> Bool {
        await answer(within: limit) { (try? await connection.query("SELECT 1", logger: logger)) != nil }
    }

    private func receive(_ payload: String) {
        guard let bar = payload.firstIndex(of: "|") else { return }
        guard payload[..<bar] != instanceID else { return }
        if let message = BusMessage(encoded: payload[payload.index(after: bar)...]) {
            deliverLocally([message])
        }
    }
}

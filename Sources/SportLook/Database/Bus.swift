import Foundation
import Logging
import PostgresNIO
import SQLKit
import ServiceLifecycle
import Synchronization

/// Carries ``Change``s between instances: on PostgreSQL through `LISTEN/NOTIFY`
/// (on SQLite there is one instance and nothing to carry). The ``ChangeFeed`` owns
/// it: writes announce their changes through it inside their transaction
/// (PostgreSQL delivers the notification when, and only if, the transaction
/// commits), and what it hears from other instances it hands to the feed. Each
/// instance ignores its own notifications, having already applied them.
///
/// A notification is `INSTANCE|` followed by the change's versioned wire form
/// (``Change/wire``). One this build cannot read — from a newer instance, say — is
/// logged and answered with a ``Change/resync``, never guessed at.
public final class Bus: Service, Sendable {
    static let channel = "sportlook"
    /// This process's identity on the bus.
    public let instanceID: String
    private let database: Database
    private let logger: Logger
    /// Where what other instances announce goes (the feed).
    private let deliver: @Sendable (Change) -> Void
    private let listening = Atomic<Bool>(false)
    /// When the listener was last known to hear everything, and the earliest such
    /// moment before a reconnect that no one has resynchronised from yet.
    private let heard = Mutex<(last: ContinuousClock.Instant?, gap: ContinuousClock.Instant?)>((nil, nil))

    init(database: Database, logger: Logger, deliver: @escaping @Sendable (Change) -> Void) {
        self.instanceID = String(UUID().uuidString.prefix(8)).lowercased()
        self.database = database
        self.logger = logger
        self.deliver = deliver
    }

    /// Queues notifications for other instances in the caller's transaction (PostgreSQL only).
    func notify(_ messages: [Change], on sql: any SQLDatabase) async throws {
        guard sql.isPostgres, !messages.isEmpty else { return }
        if messages.count == 1 {
            // The usual case (a chat message's announcement), prepared once per connection.
            _ = try await sql.rows(NotifyOne(values: [.text(Self.channel), .text(payload(messages[0]))]))
            return
        }
        try await sql.raw(notifications(messages)).run()
    }

    /// The notification of a chat message of `room` whose seq a statement takes
    /// (``Change/chat(room:seq:)``), as the text before the seq and the text after it:
    /// the statement announces the message itself (`pg_notify`), one round trip
    /// fewer. `nil` on SQLite.
    func chatNotification(room: UUID) -> (head: String, tail: String)? {
        guard database.engine == .postgres else { return nil }
        let wire = Change.chatWire(room: room)
        return (instanceID + "|" + wire.head, wire.tail)
    }

    /// The notification of a change of a message of `room` whose change number a
    /// statement takes (``Change/chatChange(room:change:)``), as the text before the number
    /// and the text after it. `nil` on SQLite.
    func chatChangeNotification(room: UUID) -> (head: String, tail: String)? {
        guard database.engine == .postgres else { return nil }
        let wire = Change.chatChangeWire(room: room)
        return (instanceID + "|" + wire.head, wire.tail)
    }

    /// A change's notification for a statement to send itself (`pg_notify`); `nil` on SQLite.
    func notification(_ change: Change) -> String? {
        database.engine == .postgres ? payload(change) : nil
    }

    /// A change as this instance puts it on the bus: `INSTANCE|` and its wire form.
    private func payload(_ change: Change) -> String { instanceID + "|" + change.wire }

    /// One message on the bus.
    private struct NotifyOne: SharedStatement {
        static let text = "SELECT pg_notify($1, $2)"
        var values: [StatementValue]
    }

    /// Announces changes that are never stored (typing, read markers) to every other instance.
    func broadcast(_ messages: [Change]) async throws {
        guard database.engine == .postgres, !messages.isEmpty else { return }
        let statement = notifications(messages)
        try await database.read { sql in try await sql.raw(statement).run() }
    }

    /// One statement that notifies every message, in order.
    private func notifications(_ messages: [Change]) -> SQLQueryString {
        let rows: [[any Encodable & Sendable]] = messages.enumerated().map { [$0.offset, payload($0.element)] }
        return "SELECT pg_notify(\(bind: Self.channel), m.payload) FROM (VALUES \(BindRows(rows: rows))) AS m(n, payload) ORDER BY m.n"
    }

    /// Whether the PostgreSQL listener is connected (always `true` on SQLite).
    public var isListening: Bool { database.engine == .sqlite || listening.load(ordering: .relaxed) }

    /// Listens for other instances' notifications until shutdown, reconnecting
    /// after outages (and handing the feed a ``Change/resync`` when it does).
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
                                    self.deliver(.resync)
                                    for try await notification in notifications {
                                        self.receive(notification.payload)
                                    }
                                }
                            }
                            if let replicas = self.database.replicas {
                                // Other instances' callers' commits, which their next reads here must see.
                                group.addTask {
                                    try await connection.listen(on: ReplicaSet.channel) { notifications in
                                        await replicas.listening(true)
                                        for try await notification in notifications { replicas.heard(notification.payload) }
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
                    logger.warning(
                        "bus listener lost its connection; reconnecting", metadata: ["error": "\(String(describing: error).prefix(200))"])
                    // The primary may be gone: found out now, not by the next call that waits for it.
                    await database.listenerLost()
                }
                // Commits told while no one listens are not heard: replicas wait for the primary's position again.
                await database.replicas?.listening(false)
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
        let wire = payload[payload.index(after: bar)...]
        if let change = Change(wire: wire) {
            deliver(change)
        } else {
            // Another instance speaks a form this build does not know: what it
            // changed is read again rather than guessed.
            logger.warning("a change on the bus this instance cannot read; resynchronising", metadata: ["change": "\(wire.prefix(200))"])
            deliver(.resync)
        }
    }
}

import Foundation
import Logging
import SQLKit
import ServiceLifecycle
import Synchronization

/// The one path by which a committed change reaches this instance's memory and
/// sockets, and every other instance's.
///
/// ```
/// write ── records Changes in its transaction ──► COMMIT
///   │ (PostgreSQL: NOTIFY in the same transaction)        │
///   ▼                                                     ▼
/// other instances' Bus ─► their ChangeFeed        this ChangeFeed.committed
///   (rows the change names re-read there)           (rows the write left)
///                          └──────► dispatch ◄──────┘
///              applied handlers (indexes, caches, tokens, wakeups), in the
///              caller's task; followers (the chat hub, resync), each in order
/// ```
///
/// Handlers are registered once, where the application is wired together. An
/// *applied* handler changes memory at once and never waits (it runs before the
/// write's caller is answered); a *follower* may wait (it reads, it writes to
/// sockets) and is handed its changes one at a time, in order, on a task of its own.
/// A change from another instance goes through the same handlers with the same
/// rows, read from the database by the reader registered for its kind.
final class ChangeFeed: Service, Sendable {
    typealias Apply = @Sendable (Change, ChangeRows) -> Void
    typealias Follow = @Sendable (Change) async -> Void
    typealias Read = @Sendable (Change) async throws -> ChangeRows

    private struct Follower: Sendable {
        let follow: Follow
        let stream: AsyncStream<Change>
        let continuation: AsyncStream<Change>.Continuation
    }

    private struct Handlers: Sendable {
        var applied: [Change.Kind: [Apply]] = [:]
        var followers: [Follower] = []
        var following: [Change.Kind: [Int]] = [:]
        var readers: [Change.Kind: Read] = [:]
        /// Followers handed a resync they have not begun yet: a second one would
        /// read the same things again, so it is not queued.
        var resyncPending: Set<Int> = []
        var coalesced = 0
        /// Whether ``run()`` began (followers and readers are all registered before).
        var running = false
    }

    /// Carries changes to and from other instances.
    let bus: Bus
    /// The notification of new jobs for a statement to send itself; `nil` on SQLite.
    /// The same text for every write: encoded once, not for each chat message.
    let jobsNotification: String?
    private let handlers = Mutex(Handlers())
    /// Changes from other instances (and resyncs), in the order the bus heard them.
    private let incoming: AsyncStream<Change>
    private let incomingContinuation: AsyncStream<Change>.Continuation
    private let logger: Logger

    init(database: Database, logger: Logger) {
        let (incoming, continuation) = AsyncStream.makeStream(of: Change.self)
        self.incoming = incoming
        self.incomingContinuation = continuation
        self.logger = logger
        let bus = Bus(database: database, logger: logger) { continuation.yield($0) }
        self.bus = bus
        self.jobsNotification = bus.notification(.jobs)
    }

    /// This process's identity on the bus.
    var instanceID: String { bus.instanceID }

    // MARK: Registration (at composition)

    /// `apply` changes memory for each change of these kinds, at once: after a local
    /// commit in the committing task, for another instance's change once its rows are read.
    func apply(_ kinds: Change.Kind..., with apply: @escaping Apply) {
        self.apply(kinds, with: apply)
    }

    func apply(_ kinds: [Change.Kind], with apply: @escaping Apply) {
        handlers.withLock { h in for kind in kinds { h.applied[kind, default: []].append(apply) } }
    }

    /// `follow` is handed each change of these kinds, one at a time and in order, on a task of its own.
    func follow(_ kinds: Change.Kind..., with follow: @escaping Follow) {
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self)
        handlers.withLock { h in
            precondition(!h.running, "followers are registered before the feed runs")
            h.followers.append(Follower(follow: follow, stream: stream, continuation: continuation))
            for kind in kinds { h.following[kind, default: []].append(h.followers.count - 1) }
        }
    }

    /// How the rows a change of this kind names are read when it comes from another
    /// instance (a local write hands over the rows it left).
    func read(_ kind: Change.Kind, with read: @escaping Read) {
        handlers.withLock { h in
            precondition(!h.running, "readers are registered before the feed runs")
            h.readers[kind] = read
        }
    }

    // MARK: Changes in

    /// Queues the write's changes for other instances in its transaction (PostgreSQL
    /// delivers them when, and only if, the transaction commits).
    func announce(_ changes: ChangeSet, on sql: any SQLDatabase) async throws {
        try await bus.notify(changes.unannounced, on: sql)
    }

    /// A chat message's notification for a statement to send itself (``Bus/chatNotification(room:)``).
    func chatNotification(room: UUID) -> (head: String, tail: String)? {
        bus.chatNotification(room: room)
    }

    /// A message change's notification for a statement to send itself (``Bus/chatChangeNotification(room:)``).
    func chatChangeNotification(room: UUID) -> (head: String, tail: String)? {
        bus.chatChangeNotification(room: room)
    }

    /// A write committed these changes: hands them to this instance's handlers.
    func committed(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        dispatch(changes.changes, rows: changes.rows)
    }

    /// Changes that are never stored (typing, read markers, a room's state in one
    /// person's list): to this instance's handlers at once, and to every other instance.
    func publish(_ changes: [Change]) async throws {
        dispatch(changes, rows: ChangeRows())
        try await bus.broadcast(changes)
    }

    /// A change as another instance announced it: handled after the changes heard
    /// before it, once the rows it names are read.
    func received(_ change: Change) {
        incomingContinuation.yield(change)
    }

    // MARK: Dispatch

    private func dispatch(_ changes: [Change], rows: ChangeRows) {
        let handlers = self.handlers.withLock { $0 }
        for change in changes {
            for apply in handlers.applied[change.kind] ?? [] { apply(change, rows) }
        }
        for change in changes {
            for index in handlers.following[change.kind] ?? [] {
                if change == .resync,
                    !self.handlers.withLock({ h in
                        if h.resyncPending.insert(index).inserted { return true }
                        h.coalesced += 1
                        return false
                    })
                {
                    continue
                }
                handlers.followers[index].continuation.yield(change)
            }
        }
    }

    /// Reads what a change from another instance names, then dispatches it.
    private func receive(_ change: Change, read: Read) async {
        var rows = ChangeRows()
        do {
            rows = try await read(change)
        } catch {
            logger.warning(
                "could not read what another instance changed",
                metadata: ["change": "\(change)", "error": "\(String(describing: error).prefix(200))"])
        }
        dispatch([change], rows: rows)
    }

    /// Hands other instances' changes to the handlers, and each follower its changes,
    /// until shutdown. A change that names rows to read (an event, a profile) waits for
    /// its read, in order with the others that do; the rest are handed over at once,
    /// in order, never behind a read (a revoked session, a chat message).
    func run() async throws {
        let (followers, readers) = handlers.withLock { h in
            h.running = true
            return (h.followers, h.readers)
        }
        let (toRead, reading) = AsyncStream.makeStream(of: (Change, Read).self)
        await cancelWhenGracefulShutdown { [self] in
            await withTaskGroup(of: Void.self) { group in
                for (index, follower) in followers.enumerated() {
                    group.addTask {
                        for await change in follower.stream {
                            if change == .resync { self.handlers.withLock { _ = $0.resyncPending.remove(index) } }
                            await follower.follow(change)
                        }
                    }
                }
                group.addTask { [incoming] in
                    for await change in incoming {
                        if let read = readers[change.kind] {
                            reading.yield((change, read))
                        } else {
                            self.dispatch([change], rows: ChangeRows())
                        }
                    }
                    reading.finish()
                }
                group.addTask {
                    for await (change, read) in toRead { await self.receive(change, read: read) }
                }
                await group.waitForAll()
            }
        }
    }

    /// Resyncs not queued for a follower that had one waiting already.
    var coalescedResyncs: Int { handlers.withLock { $0.coalesced } }

    /// The kinds with no handler at all (a test checks there are none).
    var unhandledKinds: [Change.Kind] {
        handlers.withLock { h in Change.Kind.allCases.filter { h.applied[$0] == nil && h.following[$0] == nil } }
    }
}

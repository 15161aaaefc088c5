import Foundation
import Logging
import PostgresNIO
import SQLKit
import Synchronization

/// Reads on PostgreSQL's replicas (``ReplicaSet``): which reads may go there is the
/// domain's decision (``lagTolerant(_:)``); every other read, every write and every
/// transaction stays on the primary.
extension Database {
    /// Whether this task's plain reads tolerate a little lag (set by ``lagTolerant(_:)``).
    @TaskLocal static var lagTolerance = false

    /// Runs `body` with its plain reads allowed on a replica: for reads that show data and
    /// decide no write (history pages, profiles, lists). The caller's own commits are
    /// still seen (``ReplicaSet``).
    static func lagTolerant<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async throws -> R {
        try await $lagTolerance.withValue(true) { try await body() }
    }

    /// The read on a replica, when one may answer it before `ends` (`nil`: the primary
    /// answers): a read that tolerates lag on one past the caller's commits, or any read
    /// on any replica that answers while the database is read-only (each in turn until
    /// one does).
    func readOnReplica<R: Sendable>(until ends: ContinuousClock.Instant, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R)
        async throws -> R?
    {
        guard let replicas, case .postgres(let primary) = backend else { return nil }
        for attempt in replicas.replicas.indices {
            let readOnly = primary.isReadOnly
            var replica: ReplicaSet.Replica?
            if readOnly {
                replica = replicas.anyReachable()
                if replica == nil, attempt == 0, ends > ContinuousClock.now {
                    // Every replica missed its last check (a busy moment is enough): with no
                    // primary to answer, they are asked again (the check every such read
                    // shares) before the read is refused.
                    do {
                        try await withDeadline(ends - ContinuousClock.now) { await replicas.recheck() }
                    } catch is DeadlineExceeded {}
                    replica = replicas.anyReachable()
                }
            } else if Database.lagTolerance {
                replica = replicas.replica(for: Database.admission?.callerKey, after: Database.admission?.committedPosition ?? 0)
            } else {
                return nil
            }
            let left = ends - ContinuousClock.now
            guard let replica, left > .zero else { return nil }
            // A replica gone quiet (stopped, its connections refused while the pool
            // retries) is given up on soon: within half the read's time while the primary
            // may answer instead; read-only, within its part of the time among the replicas
            // not tried yet.
            let share = readOnly ? left / (replicas.replicas.count - attempt) : min(ReplicaSet.readTimeout, left / 2)
            let connected = Flag()
            do {
                return try await withDeadline(share) { [logger] in
                    try await replica.client.withConnection { connection in
                        connected.value.store(true, ordering: .relaxed)
                        return try await body(PostgresSession(connection, logger: logger))
                    }
                }
            } catch  where error is DeadlineExceeded || Self.isConnectivityFailure(error) {
                // A replica that gave a connection and was slow to answer is not lost.
                if Self.isConnectivityFailure(error) || !connected.value.load(ordering: .relaxed) { replicas.lost(replica) }
                if !readOnly { return nil }
            } catch  where Self.isRecoveryConflict(error) {
                // Replay cancelled the read (it removed rows the read needed): the primary answers.
                return nil
            }
        }
        return nil
    }

    /// The bus's connection to the primary was lost: with other hosts or replicas to turn
    /// to, the hosts are asked again now (the service turns read-only, or moves to a
    /// promoted one, without a call first waiting out `DATABASE_TIMEOUT`).
    func listenerLost() async {
        guard case .postgres(let primary) = backend, primary.failsOver else { return }
        await relocate(primary)
    }

    /// The primary failed a call: the hosts are asked again (``PostgresPrimary/lost()``),
    /// and a host that did not answer is no replica to read from either. `true` when a
    /// primary was found.
    @discardableResult
    func relocate(_ primary: PostgresPrimary) async -> Bool {
        let found = await primary.lost()
        for name in primary.silentHosts { replicas?.lost(named: name) }
        return found
    }

    /// After a client's commit, with replicas: the primary's WAL position (any connection
    /// tells it: the position is the server's), so that the caller's next reads wait for a
    /// replica past it. The same statement tells the other instances (`pg_notify` on
    /// ``ReplicaSet/channel``), whose replicas the caller's next request may read.
    ///
    /// It never fails the write, which has committed: when the position cannot be read
    /// within a second, the caller's reads stay on the primary for `READ_MAX_LAG` (a
    /// position past any).
    func noteCommit(of admission: WriteAdmission?) async {
        guard let replicas, let admission, case .postgres(let primary) = backend else { return }
        let client = primary.client
        let caller = admission.callerKey
        do {
            let position = try await withDeadline(ReplicaSet.checkTimeout) { [logger] in
                try await client.withConnection { connection in
                    // Told to the others once the caller is known (``WriteAdmission/identify(_:)``).
                    guard let caller else { return try await Self.walPosition(on: connection, logger: logger) }
                    let announcement = replicas.instance + "|" + caller + "|"
                    let rows = try await connection.query(
                        """
                        SELECT pg_notify('\(unescaped: ReplicaSet.channel)', \(announcement) || p), p \
                        FROM (SELECT (\(unescaped: Self.position))::text AS p) AS position
                        """, logger: logger)
                    for try await (_, text) in rows.decode((String, String).self) { return ReplicaSet.walPosition(text) ?? .max }
                    return .max
                }
            }
            admission.committed(at: position, replicas: replicas, told: caller != nil)
        } catch {
            logger.warning("a commit's WAL position could not be read", metadata: ["error": "\(String(describing: error).prefix(200))"])
            admission.committed(at: .max, replicas: replicas, told: false)
        }
    }

    /// The primary's WAL position that holds every commit made so far on `connection`:
    /// the flushed position, which is what replicas receive, once COMMIT waits for its
    /// flush (`synchronous_commit` on, the default, `local` or a remote level); with
    /// `synchronous_commit` off a commit may not be flushed when it returns, and only the
    /// insert position is sure to be past it.
    static func walPosition(on connection: PostgresConnection, logger: Logger) async throws -> UInt64 {
        let rows = try await connection.query("SELECT (\(unescaped: position))::text", logger: logger)
        // Unread, a position past any: reads wait for the primary rather than risk a stale one.
        for try await text in rows.decode(String.self) { return ReplicaSet.walPosition(text) ?? .max }
        return .max
    }

    static let position =
        "CASE WHEN current_setting('synchronous_commit') = 'off' THEN pg_current_wal_insert_lsn() ELSE pg_current_wal_flush_lsn() END"

    /// The primary's WAL position (as above), on a pooled connection.
    static func walPosition(on client: PostgresClient, logger: Logger) async throws -> UInt64 {
        try await client.withConnection { try await walPosition(on: $0, logger: logger) }
    }

    /// Calls `observe` each time the database turns read-only (`false`) or takes writes
    /// again (`true`), with the turn's number (the higher, the later); never on SQLite.
    func observeWritability(_ observe: @escaping @Sendable (_ writable: Bool, _ epoch: Int) -> Void) {
        guard case .postgres(let primary) = backend else { return }
        primary.observeWritability(observe)
    }

    /// Whether the database takes writes now, and the number of its last turn
    /// (``observeWritability(_:)``).
    var writability: (writable: Bool, epoch: Int) {
        guard case .postgres(let primary) = backend else { return (true, 0) }
        return primary.writability
    }

    /// Whether no PostgreSQL server takes writes now (``PostgresPrimary``).
    var isReadOnly: Bool {
        guard case .postgres(let primary) = backend else { return false }
        return primary.isReadOnly
    }

    /// Each replica's state, for `/ready` (empty without replicas).
    func replicaReport() -> [ReplicaSet.Report] { replicas?.report() ?? [] }
}

extension ReplicaSet {
    /// The replicas of `primary`.
    static func onPrimary(
        _ primary: PostgresPrimary, _ addresses: [PostgresAddress], poolSize: Int, maxLag: TimeInterval, clock: any AppClock,
        logger: Logger
    ) -> ReplicaSet {
        let instance = String(UUID().uuidString.prefix(8)).lowercased()
        return ReplicaSet(
            addresses, poolSize: poolSize, maxLag: maxLag, clock: clock, logger: logger, instance: instance,
            primaryPosition: { try await Database.walPosition(on: primary.client, logger: logger) },
            tell: { caller, position in
                let announcement = announcement(instance: instance, caller: caller, position: position)
                Task { _ = try? await primary.client.query("SELECT pg_notify('\(unescaped: channel)', \(announcement))", logger: logger) }
            })
    }
}

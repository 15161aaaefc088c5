import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import PostgresNIO
import SQLKit
import ServiceLifecycle

/// A connection inside a transaction or a read, as the domain hands it from
/// ``Database`` to the stores: only files that import SQLKit (Stores, Database)
/// can run SQL on it.
typealias DatabaseSession = any SQLDatabase

/// The database engine behind a ``Database``.
public enum DatabaseEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    /// SQLite, the embedded default.
    case sqlite
    /// PostgreSQL.
    case postgres

    /// The engine's name.
    public var description: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
}

/// The database could not be reached in time; requests answer 503.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
    /// What happened, for the log.
    public var reason: String
    /// The reason.
    public var description: String { "database unavailable: \(reason)" }
}

/// One handle on the data, whatever the engine: queries are written once with
/// SQLKit and run on SQLite or PostgreSQL.
///
/// - SQLite: one writer connection serialised by an async lock (SQLite allows
///   one writer), plus reader connections in WAL mode for plain reads.
/// - PostgreSQL: a PostgresNIO connection pool, running until ``close()``.
///
/// Every call is bounded by the configured timeout, so an outage answers 503 in
/// seconds instead of hanging requests; and writes waiting or running are bounded
/// in number, so past the database's capacity a write a client asked for is
/// refused at once (``DatabaseBusy``) instead of queued for seconds.
public final class Database: Sendable {
    /// The engine.
    public let engine: DatabaseEngine
    let logger: Logger
    let backend: Backend
    let timeout: Duration
    /// Read replicas (PostgreSQL only), for reads that tolerate lag.
    let replicas: ReplicaSet?
    /// Writes waiting or running, and whether they are slow: a client's first write
    /// is refused past them.
    private let writes: WriteQueue
    /// Writes waiting or running at most (0: no bound).
    public var writeQueueLimit: Int { writes.limit }

    /// The client's work this task does, if any: set around an HTTP request and a
    /// chat frame, whose first write may be refused when the write queue is full
    /// (the client is told, and sends it again). The service's own writes
    /// (presence, jobs, bookkeeping) have none and are never refused: they count,
    /// and wait their turn.
    @TaskLocal public static var admission: WriteAdmission?

    enum Backend: Sendable {
        case sqlite(SQLiteStore)
        /// The servers' pools, the primary among them (they run until ``close()``).
        case postgres(PostgresPrimary)
    }

    private init(
        engine: DatabaseEngine, backend: Backend, replicas: ReplicaSet? = nil, timeout: Duration, writeQueueLimit: Int,
        writeWait: TimeInterval, logger: Logger
    ) {
        self.engine = engine
        self.backend = backend
        self.replicas = replicas
        self.timeout = timeout
        self.writes = WriteQueue(limit: writeQueueLimit, slowWrite: writeWait)
        self.logger = logger
    }

    /// Opens the database at `location`. For PostgreSQL nothing connects until ``service`` runs.
    /// - Parameters:
    ///   - location: Where the database is.
    ///   - poolSize: Maximum PostgreSQL connections.
    ///   - timeout: Longest any one call may wait.
    ///   - writeQueue: Writes waiting or running at most; beyond, ``DatabaseBusy`` at once (0: no bound).
    ///   - writeWait: When writes have all taken longer than this (waiting included)
    ///     for 100 ms (a standing queue), a client's first write is refused while others wait
    ///     (0: no such bound).
    ///   - readReplicas: PostgreSQL's read replicas (``ReplicaSet``).
    ///   - readMaxLag: The most a replica may lag and still answer.
    ///   - clock: The time replicas' lag is measured by.
    ///   - logger: Where to log.
    public static func open(
        _ location: DatabaseLocation, poolSize: Int = 16, timeout: TimeInterval = 5, writeQueue: Int = 0, writeWait: TimeInterval = 0,
        readReplicas: [PostgresAddress] = [], readMaxLag: TimeInterval = 5, clock: any AppClock = SystemClock(), logger: Logger
    ) async throws -> Database {
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        switch location {
        case .sqliteFile(let path):
            return Database(
                engine: .sqlite, backend: .sqlite(try await SQLiteStore(storage: .file(path: path), logger: logger)), timeout: limit,
                writeQueueLimit: writeQueue, writeWait: writeWait, logger: logger)
        case .sqliteMemory:
            return Database(
                engine: .sqlite, backend: .sqlite(try await SQLiteStore(storage: .memory, logger: logger)), timeout: limit,
                writeQueueLimit: writeQueue, writeWait: writeWait, logger: logger)
        case .postgres(let address):
            // The pools run for the life of this handle, so migrations and warm-up
            // can use them before the application's services start.
            let primary = PostgresPrimary(address, poolSize: poolSize, timeout: limit, hasReplicas: !readReplicas.isEmpty, logger: logger)
            if primary.servers.count > 1 { await primary.locate() }
            let replicas =
                readReplicas.isEmpty
                ? nil
                : ReplicaSet.onPrimary(primary, readReplicas, poolSize: poolSize, maxLag: readMaxLag, clock: clock, logger: logger)
            return Database(
                engine: .postgres, backend: .postgres(primary), replicas: replicas, timeout: limit, writeQueueLimit: writeQueue,
                writeWait: writeWait, logger: logger)
        }
    }

    /// How long one page of a start-up bulk read may take: after a restart the disk
    /// cache is cold, and counting a million index rows once took longer than the
    /// request timeout (the warm-up failed and started over).
    static let bulkReadTimeout: Duration = .seconds(30)

    /// Runs statements outside a transaction (each commits on its own).
    /// - Parameters:
    ///   - timeout: Longest the call may wait, when not the handle's (bulk reads at
    ///     start-up, which a cold disk cache may make slower than any request).
    ///   - body: Queries to run with the given handle.
    public func read<R: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws
        -> R
    {
        // One deadline for the whole read: a replica tried first, the primary, and the
        // primary looked for again all come out of it.
        let ends = ContinuousClock.now + (timeout ?? self.timeout)
        if let answered = try await readOnReplica(until: ends, body) { return answered }
        // The replica took the time: answered 503 without taking the primary for lost.
        let left = try timeLeft(until: ends)
        do {
            return try await readOnPrimary(timeout: left, body)
        } catch let error as DatabaseUnavailable {
            // The primary lost: asked for again; read-only, the replicas answer.
            guard case .postgres(let primary) = backend, primary.failsOver else { throw error }
            let was = primary.name
            // Asked again on the primary only when another server took its place: a slow
            // primary is not waited for twice.
            if await relocate(primary) {
                guard primary.name != was else { throw error }
                return try await readOnPrimary(timeout: timeLeft(until: ends), body)
            }
            if let answered = try await readOnReplica(until: ends, body) { return answered }
            throw error
        }
    }

    private func readOnPrimary<R: Sendable>(timeout: Duration?, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R)
        async throws
        -> R
    {
        try await bounded(timeout: timeout ?? self.timeout) { [backend, logger] in
            switch backend {
            case .sqlite(let store): return try await store.read(body)
            case .postgres(let primary):
                // A session that runs hot statements prepared, as a write's does.
                return try await primary.client.withConnection { connection in
                    try await body(PostgresSession(connection, logger: logger))
                }
            }
        }
    }

    /// Runs `body` in one transaction: all its writes commit together, or none
    /// do when it throws.
    /// - Parameters:
    ///   - afterCommit: Runs right after COMMIT with the body's result, whenever that
    ///     is: also when the caller has stopped waiting (a timeout answered 503), so
    ///     that what is kept in memory follows what the database holds.
    ///   - timeout: Longest the call may wait, when not the handle's (a migration that
    ///     rewrites a large table).
    ///   - body: Queries to run with the transaction's handle.
    public func transaction<R: Sendable>(
        file: String = #fileID, line: Int = #line,
        timeout: Duration? = nil,
        afterCommit: (@Sendable (R) -> Void)? = nil,
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        try await writing(site: "\(file):\(line)", timeout: timeout, body, afterCommit: afterCommit) { sql in
            try await Database.uncancellable(sql, body, afterCommit: afterCommit)
        }
    }

    /// A migration's transaction; with `relaxingForeignKeys`, on SQLite, foreign keys
    /// are off while it runs and every reference is checked before its commit
    /// (``SQLiteStore/transactionWithoutForeignKeys(site:_:)``).
    func migrationTransaction<R: Sendable>(
        relaxingForeignKeys: Bool, timeout: Duration, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        guard relaxingForeignKeys, case .sqlite(let store) = backend else { return try await transaction(timeout: timeout, body) }
        return try await bounded(timeout: timeout) { try await store.transactionWithoutForeignKeys(site: "migration", body) }
    }

    /// Runs one write statement that is atomic on its own: on PostgreSQL without
    /// the two round trips of BEGIN and COMMIT, on SQLite through the single writer.
    /// - Parameter body: The statement to run with the given handle.
    public func write<R: Sendable>(
        file: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        try await writing(site: "\(file):\(line)", timeout: nil, body, afterCommit: nil) { sql in
            try await Task { try await body(sql) }.value
        }
    }

    /// Writes through SQLite's single writer (in a transaction of its own), or on a
    /// pooled PostgreSQL connection as `postgres` runs them; bounded by the timeout.
    private func writing<R: Sendable>(
        site: String, timeout: Duration?, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R,
        afterCommit: (@Sendable (R) -> Void)?,
        postgres: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        let admission = Database.admission
        if case .postgres(let primary) = backend { try await primary.ensureWritable() }
        let result: R
        do {
            result = try await writeBounded(
                site: site, timeout: timeout, body, afterCommit: afterCommit, admission: admission, postgres: postgres)
        } catch let error as DatabaseUnavailable {
            // The primary lost: with nowhere to write, the write is refused as read-only.
            if case .postgres(let primary) = backend, primary.failsOver, !(await relocate(primary)) { throw DatabaseReadOnly() }
            throw error
        }
        // Outside the write's deadline: the write has committed, and its answer is not to
        // wait for (or fail on) what read-your-writes on replicas needs.
        await noteCommit(of: admission)
        return result
    }

    private func writeBounded<R: Sendable>(
        site: String, timeout: Duration?, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R,
        afterCommit: (@Sendable (R) -> Void)?, admission: WriteAdmission?,
        postgres: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        try await bounded(timeout: timeout ?? self.timeout) { [self, backend, logger] in
            // Counted in the operation's own task, which a missed deadline does not end:
            // a write answered 503 holds its place until it is really done.
            let entered: UInt64
            do {
                entered = try self.writes.enter(admission, now: DispatchTime.now().uptimeNanoseconds)
            } catch let busy as DatabaseBusy {
                self.reportRefusals()
                throw busy
            }
            defer {
                self.writes.leave(entered: entered, now: DispatchTime.now().uptimeNanoseconds)
                self.reportRefusals()
            }
            switch backend {
            case .sqlite(let store): return try await store.transaction(site: site, body, afterCommit: afterCommit)
            case .postgres(let primary):
                // A deadlock rolls one of the transactions back whole: it runs again (twice at
                // most), as PostgreSQL's documentation advises, instead of failing its request.
                var attempt = 1
                while true {
                    do {
                        return try await primary.client.withConnection { connection in
                            try await postgres(PostgresSession(connection, logger: logger))
                        }
                    } catch  where Self.isDeadlock(error) && attempt < 3 {
                        logger.info(
                            "a deadlock rolled a transaction back; running it again",
                            metadata: ["site": "\(site)", "attempt": "\(attempt)"])
                        attempt += 1
                    }
                }
            }
        }
    }

    /// An operator sees that clients are refused, and why: a warning at most once a
    /// second, with the refusals since the last one by reason. Asked at each refusal and
    /// as each write ends, so the last of a burst are told within a second or so while
    /// writes go on.
    private func reportRefusals() {
        guard let refused = writes.refusals(now: DispatchTime.now().uptimeNanoseconds) else { return }
        var metadata: Logger.Metadata = [
            "queue_full": "\(refused.full)", "standing_queue": "\(refused.slow)",
            "waiting": "\(writes.waitingOrRunning)", "limit": "\(writes.limit)",
        ]
        if let since = refused.sinceNanoseconds { metadata["since_s"] = "\(Double(since / 100_000_000) / 10)" }
        logger.warning("writes refused past capacity", metadata: metadata)
    }

    /// Sets the bound from now on (a test fills a queue of one after its set-up).
    func limitWrites(to limit: Int) { writes.limit = limit }

    /// Whether the writes that finished lately were all slow.
    var writesSlow: Bool { writes.slow }

    /// Writes waiting or running now.
    var writesWaitingOrRunning: Int { writes.waitingOrRunning }

    /// BEGIN, the body, COMMIT (or ROLLBACK) in a task of their own: once a
    /// transaction has begun, the caller's cancellation (a closed socket, a timed
    /// out request) must not stop it half way and leave the connection inside it.
    /// `executor`: where the transaction's code runs (the global executor when `nil`).
    static func uncancellable<R: Sendable>(
        _ sql: any SQLDatabase, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R, on executor: (any TaskExecutor)? = nil,
        afterCommit: (@Sendable (R) -> Void)? = nil
    ) async throws -> R {
        try await Task(executorPreference: executor) {
            _ = try await sql.rows(Begin())
            do {
                let result = try await body(sql)
                _ = try await sql.rows(Commit())
                afterCommit?(result)
                return result
            } catch {
                _ = try? await sql.rows(Rollback())
                throw error
            }
        }.value
    }

    /// A transaction's statements, prepared once per connection on PostgreSQL like
    /// any other hot statement (each write runs them).
    private struct Begin: SharedStatement {
        static let text = "BEGIN IMMEDIATE"
        static let postgresText = "BEGIN"
        let values: [StatementValue] = []
    }

    private struct Commit: SharedStatement {
        static let text = "COMMIT"
        let values: [StatementValue] = []
    }

    private struct Rollback: SharedStatement {
        static let text = "ROLLBACK"
        let values: [StatementValue] = []
    }

    /// Holds one connection to the primary for as long as `body` runs (for LISTEN); `nil`
    /// on SQLite. A connection not had within the handle's timeout (the primary lost: its
    /// pool would wait for ever) fails, and the primary is asked for again.
    func withDedicatedConnection<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R? {
        guard case .postgres(let primary) = backend else { return nil }
        do {
            return try await primary.withConnection(acquiredWithin: timeout, body)
        } catch  where Self.isConnectivityFailure(error) {
            await relocate(primary)
            throw error
        }
    }

    /// After a bulk load, on PostgreSQL: `VACUUM (ANALYZE)` the tables, so that the
    /// planner has statistics and index-only scans need no heap visit (the
    /// visibility map is set). Not bounded by the query timeout. Nothing on SQLite.
    func vacuumAfterBulkLoad(_ tables: [String]) async throws {
        _ = try await withDedicatedConnection { [logger] connection in
            try await connection.query(PostgresQuery(unsafeSQL: "VACUUM (ANALYZE) " + tables.joined(separator: ", ")), logger: logger)
        }
    }

    /// Whether the database answers a trivial query now.
    public func isReachable() async -> Bool {
        (try? await read { try await $0.raw("SELECT 1 AS one").first() }) != nil
    }

    /// Closes the connections.
    public func close() async {
        switch backend {
        case .sqlite(let store): await store.close()
        case .postgres(let primary):
            await replicas?.close()
            // The pools close their connections; give them a few seconds, not for ever.
            if !(await primary.close()) {
                logger.warning("the PostgreSQL pool did not close within 5 s; leaving it")
            }
        }
    }

    /// `operation` within `timeout` (``withDeadline(_:_:)``); a missed deadline or a
    /// lost connection is ``DatabaseUnavailable``.
    private func bounded<R: Sendable>(timeout: Duration, _ operation: @escaping @Sendable () async throws -> R) async throws -> R {
        do {
            return try await withDeadline(timeout, operation)
        } catch let error as DeadlineExceeded {
            throw DatabaseUnavailable(reason: error.description)
        } catch  where Self.isConnectivityFailure(error) {
            throw DatabaseUnavailable(reason: String(describing: error))
        }
    }
}

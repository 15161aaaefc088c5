import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Synchronization

/// SQLite connections: one writer guarded by a lock, readers in WAL mode.
///
/// The writer has an event loop of its own, and its transactions run their code on
/// it; its statements run there too, one after another, with no hop to another
/// thread and back for each (readers run theirs on a thread pool).
///
/// Checkpoints (copying the write-ahead log back into the database file, with two
/// fsyncs) are made a few times a second: not by whichever commit happens to cross
/// SQLite's threshold, which then holds every writer behind it (the threshold stays,
/// higher, for when they fall behind). With SQLite 3.51.3 or later a connection of its
/// own makes them, beside the writer; before it, SQLite's "WAL-reset bug" could corrupt
/// the database when one connection checkpoints while another commits, so the writer
/// makes them itself, between transactions (Debian 12's library is 3.40.1).
final class SQLiteStore: Sendable {
    private let threadPool: NIOThreadPool
    private let writerLoop: MultiThreadedEventLoopGroup
    private let writerExecutor: EventLoopExecutor
    private let writer: SQLiteConnection
    private let writerSession: SQLiteSession
    private let readers: [SQLiteConnection]
    /// A session on each reader, made once.
    private let readerSessions: [SQLiteSession]
    private let checkpointer: SQLiteConnection?
    private let checkpoints = Mutex<Task<Void, Never>?>(nil)
    /// How often the checkpointer runs.
    static let checkpointInterval: Duration = .milliseconds(250)
    /// Pages of log past which a commit checkpoints by itself (SQLite's default is 1,000).
    static let autocheckpointPages = 16_000
    private let writeLock = AsyncSerialLock()
    private let nextReader = Atomic<Int>(0)
    private let logger: Logger

    init(storage: SQLiteStorage, logger: Logger) async throws {
        // A pool of its own, so bcrypt or other blocking work never delays queries: a
        // thread for each connection that runs its statements there (two readers, the checkpointer).
        let threadPool = NIOThreadPool(numberOfThreads: 3)
        threadPool.start()
        self.threadPool = threadPool
        self.logger = logger
        let writerLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.writerLoop = writerLoop
        self.writerExecutor = EventLoopExecutor(writerLoop.next())
        var opened: [SQLiteConnection] = []
        do {
            let writer = try SQLiteConnection.open(storage, pool: nil)
            opened.append(writer)
            for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000"] {
                _ = try writer.rowsHere(pragma, [])
            }
            self.writer = writer
            if case .file = storage {
                // The log is rewound once copied back; one that grew under load is cut to 16 MB then.
                for pragma in ["PRAGMA wal_autocheckpoint=\(Self.autocheckpointPages)", "PRAGMA journal_size_limit=\(16 << 20)"] {
                    _ = try writer.rowsHere(pragma, [])
                }
                for role in Self.checkpointsBesideWriter ? ["reader", "reader", "checkpointer"] : ["reader", "reader"] {
                    let connection = try SQLiteConnection.open(storage, pool: threadPool)
                    opened.append(connection)
                    for pragma in role == "reader"
                        ? ["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"] : ["PRAGMA busy_timeout=5000"]
                    {
                        _ = try connection.rowsHere(pragma, [])
                    }
                }
            }
        } catch {
            // Nothing opened so far outlives the failure.
            for connection in opened { connection.close() }
            try? await threadPool.shutdownGracefully()
            try? await writerLoop.shutdownGracefully()
            throw error
        }
        self.writerSession = SQLiteSession(connection: writer, logger: logger, eventLoop: writerLoop.next())
        // Of the file's connections: the writer, two readers and the checkpointer (if any).
        let separate = Self.checkpointsBesideWriter && opened.count > 1
        let readers = Array(opened.dropFirst().dropLast(separate ? 1 : 0))
        self.readers = readers
        self.readerSessions = readers.map {
            SQLiteSession(connection: $0, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
        }
        self.checkpointer = separate ? opened.last : nil
        if opened.count > 1 {
            // The connection that checkpoints: its own, or the writer between transactions.
            let checkpoint: @Sendable () async throws -> Void = { [checkpointer, writer, writeLock, writerExecutor] in
                if let checkpointer {
                    _ = try await checkpointer.rows("PRAGMA wal_checkpoint(PASSIVE)", [])
                } else {
                    try await withTaskExecutorPreference(writerExecutor) {
                        try await writeLock.withLock { _ = try writer.rowsHere("PRAGMA wal_checkpoint(PASSIVE)", []) }
                    }
                }
            }
            checkpoints.withLock {
                $0 = Task { [logger] in
                    var failing = false
                    while (try? await Task.sleep(for: Self.checkpointInterval)) != nil {
                        do {
                            // PASSIVE: copies what no reader still needs, waiting for no one.
                            try await checkpoint()
                            if failing { logger.notice("SQLite checkpoints work again") }
                            failing = false
                        } catch {
                            // Said once, not four times a second; commits still checkpoint past the threshold.
                            if !failing { logger.warning("SQLite checkpoint failed", metadata: ["error": "\(error)"]) }
                            failing = true
                        }
                    }
                }
            }
        }
    }

    /// Whether a connection of its own may checkpoint beside the writer: SQLite 3.51.3
    /// fixed the WAL-reset bug (sqlite.org/wal.html#walresetbug).
    static let checkpointsBesideWriter = SQLiteConnection.libraryVersionNumber >= 3_051_003

    func read<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if readers.isEmpty {
            // An in-memory database exists on one connection only; its statements run on
            // the writer's loop, as a transaction's do, not on the caller's thread.
            return try await withTaskExecutorPreference(writerExecutor) {
                try await writeLock.withLock { [writerSession] in try await body(writerSession) }
            }
        }
        let i = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await body(readerSessions[i % readerSessions.count])
    }

    /// A transaction with foreign keys off, as SQLite's way of rebuilding a table that
    /// others refer to needs (a `DROP TABLE` with them on deletes every row that refers
    /// to it): every reference is checked (`PRAGMA foreign_key_check`) before the
    /// commit, and they are on again after, whatever happened. Migrations only.
    func transactionWithoutForeignKeys<R: Sendable>(site: String, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R)
        async throws -> R
    {
        try await withTaskExecutorPreference(writerExecutor) {
            try await writeLock.withLock { [writer, writerSession, writerExecutor] in
                _ = try writer.rowsHere("PRAGMA foreign_keys=OFF", [])
                do {
                    let result = try await Database.uncancellable(
                        writerSession,
                        { sql in
                            let result = try await body(sql)
                            let broken = try await sql.raw("PRAGMA foreign_key_check").all()
                            guard broken.isEmpty else {
                                throw MigrationError(description: "\(site) leaves \(broken.count) references to rows that do not exist")
                            }
                            return result
                        }, on: writerExecutor)
                    _ = try writer.rowsHere("PRAGMA foreign_keys=ON", [])
                    return result
                } catch {
                    _ = try? writer.rowsHere("PRAGMA foreign_keys=ON", [])
                    throw error
                }
            }
        }
    }

    func transaction<R: Sendable>(
        site: String, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R, afterCommit: (@Sendable (R) -> Void)?
    ) async throws -> R {
        try await withTaskExecutorPreference(writerExecutor) {
            try await writeLock.withLock { [writerSession, writerExecutor, logger] in
                let started = ContinuousClock.now
                defer {
                    // The lock is everyone's: a long transaction delays every writer.
                    let held = ContinuousClock.now - started
                    if held > .milliseconds(500) {
                        logger.warning("slow SQLite transaction", metadata: ["site": "\(site)", "held": "\(held)"])
                    }
                }
                return try await Database.uncancellable(writerSession, body, on: writerExecutor, afterCommit: afterCommit)
            }
        }
    }

    func close() async {
        // Transactions still running or waiting finish first (for 5 s at most); any
        // later code preferring the writer's loop runs on the global executor.
        _ = try? await withDeadline(.seconds(5)) { [writeLock] in try await writeLock.withLock {} }
        writerExecutor.stop()
        let checkpointing = checkpoints.withLock { $0 }
        checkpointing?.cancel()
        await checkpointing?.value
        for connection in readers + [writer] + (checkpointer.map { [$0] } ?? []) { connection.close() }
        try? await threadPool.shutdownGracefully()
        try? await writerLoop.shutdownGracefully()
    }
}

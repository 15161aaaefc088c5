import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import Synchronization

/// SQLite connections: one writer guarded by a lock, readers in WAL mode.
///
/// The writer has an event loop of its own, and its transactions run their code on
/// it: each statement's answer resumes the transaction there, not behind the
/// sockets' traffic on the shared loops and then on another thread.
///
/// Checkpoints (copying the write-ahead log back into the database file, with two
/// fsyncs) are made by a connection of their own, a few times a second, beside the
/// writer: not by whichever commit happens to cross SQLite's threshold, which then
/// holds every writer behind it. The threshold stays, higher, for when the
/// checkpointer falls behind.
final class SQLiteStore: Sendable {
    private let threadPool: NIOThreadPool
    private let writerLoop: MultiThreadedEventLoopGroup
    private let writerExecutor: EventLoopExecutor
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let checkpointer: SQLiteConnection?
    private let checkpoints = Mutex<Task<Void, Never>?>(nil)
    /// How often the checkpointer runs.
    static let checkpointInterval: Duration = .milliseconds(250)
    /// Pages of log past which a commit checkpoints by itself (SQLite's default is 1,000).
    static let autocheckpointPages = 16_000
    private let writeLock = AsyncSerialLock()
    private let nextReader = Atomic<Int>(0)
    private let logger: Logger

    init(storage: SQLiteConnection.Storage, logger: Logger) async throws {
        // A pool of its own, so bcrypt or other blocking work never delays queries: a
        // thread for each connection (the writer, two readers, the checkpointer).
        let threadPool = NIOThreadPool(numberOfThreads: 4)
        threadPool.start()
        self.threadPool = threadPool
        self.logger = logger
        let writerLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.writerLoop = writerLoop
        self.writerExecutor = EventLoopExecutor(writerLoop.next())
        var opened: [SQLiteConnection] = []
        do {
            let writer = try await SQLiteConnection.open(storage: storage, threadPool: threadPool, logger: logger, on: writerLoop.next()).get()
            opened.append(writer)
            for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000"] {
                _ = try await writer.query(pragma).get()
            }
            self.writer = writer
            if case .file = storage {
                // The log is rewound once copied back; one that grew under load is cut to 16 MB then.
                for pragma in ["PRAGMA wal_autocheckpoint=\(Self.autocheckpointPages)", "PRAGMA journal_size_limit=\(16 << 20)"] {
                    _ = try await writer.query(pragma).get()
                }
                for role in ["reader", "reader", "checkpointer"] {
                    let connection = try await SQLiteConnection.open(storage: storage, threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()).get()
                    opened.append(connection)
                    for pragma in role == "reader" ? ["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"] : ["PRAGMA busy_timeout=5000"] {
                        _ = try await connection.query(pragma).get()
                    }
                }
            }
        } catch {
            // Nothing opened so far outlives the failure.
            for connection in opened { try? await connection.close().get() }
            try? await threadPool.shutdownGracefully()
            try? await writerLoop.shutdownGracefully()
            throw error
        }
        // Of the file's connections: the writer, two readers and the checkpointer.
        self.readers = Array(opened.dropFirst().dropLast())
        self.checkpointer = opened.count > 1 ? opened.last : nil
        if let checkpointer {
            checkpoints.withLock {
                $0 = Task { [logger] in
                    var failing = false
                    while (try? await Task.sleep(for: Self.checkpointInterval)) != nil {
                        do {
                            // PASSIVE: copies what no reader still needs, waiting for no one.
                            _ = try await checkpointer.query("PRAGMA wal_checkpoint(PASSIVE)").get()
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

    func read<R>(_ body: (any SQLDatabase) async throws -> R) async throws -> R {
        if readers.isEmpty {
            // An in-memory database exists on one connection only.
            return try await writeLock.withLock { try await body(writer.sql(queryLogLevel: .trace)) }
        }
        let i = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await body(readers[i % readers.count].sql(queryLogLevel: .trace))
    }

    /// A transaction with foreign keys off, as SQLite's way of rebuilding a table that
    /// others refer to needs (a `DROP TABLE` with them on deletes every row that refers
    /// to it): every reference is checked (`PRAGMA foreign_key_check`) before the
    /// commit, and they are on again after, whatever happened. Migrations only.
    func transactionWithoutForeignKeys<R: Sendable>(site: String, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await withTaskExecutorPreference(writerExecutor) {
            try await writeLock.withLock { [writer, writerExecutor] in
                _ = try await writer.query("PRAGMA foreign_keys=OFF").get()
                do {
                    let result = try await Database.uncancellable(writer.sql(queryLogLevel: .trace), { sql in
                        let result = try await body(sql)
                        let broken = try await sql.raw("PRAGMA foreign_key_check").all()
                        guard broken.isEmpty else {
                            throw MigrationError(description: "\(site) leaves \(broken.count) references to rows that do not exist")
                        }
                        return result
                    }, on: writerExecutor)
                    _ = try await writer.query("PRAGMA foreign_keys=ON").get()
                    return result
                } catch {
                    _ = try? await writer.query("PRAGMA foreign_keys=ON").get()
                    throw error
                }
            }
        }
    }

    func transaction<R: Sendable>(site: String, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R, afterCommit: (@Sendable (R) -> Void)?) async throws -> R {
        try await withTaskExecutorPreference(writerExecutor) {
            try await writeLock.withLock { [writer, writerExecutor, logger] in
                let started = ContinuousClock.now
                defer {
                    // The lock is everyone's: a long transaction delays every writer.
                    let held = ContinuousClock.now - started
                    if held > .milliseconds(500) { logger.warning("slow SQLite transaction", metadata: ["site": "\(site)", "held": "\(held)"]) }
                }
                return try await Database.uncancellable(writer.sql(queryLogLevel: .trace), body, on: writerExecutor, afterCommit: afterCommit)
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
        for connection in readers + [writer] + (checkpointer.map { [$0] } ?? []) { try? await connection.close().get() }
        try? await threadPool.shutdownGracefully()
        try? await writerLoop.shutdownGracefully()
    }
}

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
final class SQLiteStore: Sendable {
    private let threadPool: NIOThreadPool
    private let writerLoop: MultiThreadedEventLoopGroup
    private let writerExecutor: EventLoopExecutor
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let writeLock = AsyncSerialLock()
    private let nextReader = Atomic<Int>(0)
    private let logger: Logger

    init(storage: SQLiteConnection.Storage, logger: Logger) async throws {
        // A pool of its own, so bcrypt or other blocking work never delays queries.
        let threadPool = NIOThreadPool(numberOfThreads: 3)
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
                for _ in 0..<2 {
                    let reader = try await SQLiteConnection.open(storage: storage, threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()).get()
                    opened.append(reader)
                    for pragma in ["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"] {
                        _ = try await reader.query(pragma).get()
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
        self.readers = Array(opened.dropFirst())
    }

    func read<R>(_ body: (any SQLDatabase) async throws -> R) async throws -> R {
        if readers.isEmpty {
            // An in-memory database exists on one connection only.
            return try await writeLock.withLock { try await body(writer.sql(queryLogLevel: .trace)) }
        }
        let i = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await body(readers[i % readers.count].sql(queryLogLevel: .trace))
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
        for connection in readers + [writer] { try? await connection.close().get() }
        try? await threadPool.shutdownGracefully()
        try? await writerLoop.shutdownGracefully()
    }
}

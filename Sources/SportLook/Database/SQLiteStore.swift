import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import Synchronization

/// SQLite connections: one writer guarded by a lock, readers in WAL mode.
final class SQLiteStore: Sendable {
    private let threadPool: NIOThreadPool
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
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let writer = try await SQLiteConnection.open(storage: storage, threadPool: threadPool, logger: logger, on: loop).get()
        for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000"] {
            _ = try await writer.query(pragma).get()
        }
        self.writer = writer
        var readers: [SQLiteConnection] = []
        if case .file = storage {
            for _ in 0..<2 {
                let reader = try await SQLiteConnection.open(storage: storage, threadPool: threadPool, logger: logger, on: loop).get()
                for pragma in ["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"] {
                    _ = try await reader.query(pragma).get()
                }
                readers.append(reader)
            }
        }
        self.readers = readers
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
        try await writeLock.withLock { [writer, logger] in
            let started = ContinuousClock.now
            defer {
                // The lock is everyone's: a long transaction delays every writer.
                let held = ContinuousClock.now - started
                if held > .milliseconds(500) { logger.warning("slow SQLite transaction", metadata: ["site": "\(site)", "held": "\(held)"]) }
            }
            return try await Database.uncancellable(writer.sql(queryLogLevel: .trace), body, afterCommit: afterCommit)
        }
    }

    func close() async {
        for connection in readers + [writer] { try? await connection.close().get() }
        try? await threadPool.shutdownGracefully()
    }
}

import Logging
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

extension Database {
    /// Runs `body` holding a lock on each key, for every instance, outside any
    /// transaction: `body` may do slow I/O (a blob's upload to S3) without holding
    /// SQLite's single writer or a PostgreSQL transaction open, and runs its few
    /// statements through the scope it is handed, each committed on its own.
    ///
    /// On PostgreSQL, session advisory locks on a connection of its own, which also
    /// runs the scope's statements (so a lock holder never waits for a second
    /// connection from the pool); they go with the session should the connection
    /// drop. On SQLite (one instance), locks of this process. Keys are locked in
    /// order, so two callers never wait for each other's keys.
    func withKeyLocks<R: Sendable>(_ keys: [String], _ body: @Sendable (KeyLockScope) async throws -> R) async throws -> R {
        let keys = Set(keys).sorted()
        switch engine {
        case .sqlite:
            return try await keyLocks.withLocks(keys) { try await body(.sqlite(self)) }
        case .postgres:
            let logger = self.logger
            let result: R? = try await withDedicatedConnection { connection in
                do {
                    for key in keys {
                        try await connection.query("SELECT pg_advisory_lock(hashtextextended(\(key), 0))", logger: logger)
                    }
                    let result = try await body(.postgres(connection, logger))
                    try await Self.unlockAll(connection, logger: logger)
                    return result
                } catch {
                    try? await Self.unlockAll(connection, logger: logger)
                    throw error
                }
            }
            guard let result else { throw DatabaseUnavailable(reason: "no PostgreSQL connection for the key locks") }
            return result
        }
    }

    /// Frees the session's advisory locks; a connection that cannot is closed (its
    /// locks go with it).
    private static func unlockAll(_ connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.query("SELECT pg_advisory_unlock_all()", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Where a key-locked caller runs its statements.
enum KeyLockScope: Sendable {
    case sqlite(Database)
    case postgres(PostgresConnection, Logger)

    /// Runs `body`'s statements, committed when it returns (on SQLite in one short
    /// write through the single writer; on PostgreSQL each statement on its own, on
    /// the locks' connection).
    func run<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch self {
        case .sqlite(let database): try await database.transaction(body)
        case .postgres(let connection, let logger): try await body(connection.sql(queryLogLevel: .trace, logger: logger))
        }
    }
}

/// Locks by name for this process: each name's lock exists while someone holds or
/// waits for it.
final class KeyedLocks: Sendable {
    private let table = Mutex<[String: (lock: AsyncSerialLock, users: Int)]>([:])

    /// Runs `body` holding the lock of each key (`keys` sorted, without repeats).
    func withLocks<R>(_ keys: [String], _ body: () async throws -> R) async throws -> R {
        let locks = table.withLock { table in
            keys.map { key in
                var entry = table[key] ?? (AsyncSerialLock(), 0)
                entry.users += 1
                table[key] = entry
                return entry.lock
            }
        }
        defer {
            table.withLock { table in
                for key in keys {
                    table[key]?.users -= 1
                    if table[key]?.users == 0 { table[key] = nil }
                }
            }
        }
        return try await Self.holding(locks[...], body)
    }

    private static func holding<R>(_ locks: ArraySlice<AsyncSerialLock>, _ body: () async throws -> R) async throws -> R {
        guard let first = locks.first else { return try await body() }
        return try await first.withLock { try await holding(locks.dropFirst(), body) }
    }

    /// How many keys have a lock right now (a test).
    var count: Int { table.withLock { $0.count } }
}

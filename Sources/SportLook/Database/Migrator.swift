import Crypto
import Foundation
import Logging
import SQLKit

/// One numbered SQL file of `Migrations/<engine>/`.
public struct Migration: Sendable, Equatable {
    /// The number in front of the file name.
    public var version: Int
    /// The rest of the file name.
    public var name: String
    /// The file's text.
    public var text: String
    /// SHA-256 of the file, in hex: an edited applied migration is refused.
    public var checksum: String

    /// The statements, in order. Split when the migration is applied: a start on a
    /// migrated database reads the files for their checksums only.
    public var statements: [String] { Migrator.splitStatements(text) }

    /// Whether it rebuilds a table others refer to: on SQLite it runs with foreign
    /// keys off (checked before its commit). A line `-- foreign_keys: off` says so.
    public var relaxesForeignKeys: Bool {
        text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "-- foreign_keys: off" }
    }
}

/// Why the schema cannot be used.
public struct MigrationError: Error, CustomStringConvertible {
    /// What is wrong and what to do.
    public var description: String
}

/// Applies `Migrations/<engine>/NNNN_name.sql` in order, each in its own
/// transaction, recording version, name and checksum in `schema_migrations`.
///
/// A migration file holds statements separated by `;` at the end of a line.
public struct Migrator: Sendable {
    let database: Database
    let migrations: [Migration]
    let logger: Logger

    /// Reads the migrations of the database's engine.
    /// - Parameters:
    ///   - database: The database to migrate.
    ///   - resources: Where `Migrations/` is.
    ///   - logger: Where to log.
    public init(database: Database, resources: Resources, logger: Logger) throws {
        self.database = database
        self.logger = logger
        self.migrations = try Self.load(from: resources.migrations(for: database.engine))
    }

    /// Applies the given migrations (tests).
    init(database: Database, migrations: [Migration], logger: Logger) {
        self.database = database
        self.migrations = migrations
        self.logger = logger
    }

    static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        var seen = Set<Int>()
        return try files.map { file in
            let parts = file.dropLast(4).split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]), version > 0, seen.insert(version).inserted else {
                throw MigrationError(description: "migration file \(file) must be named NNNN_name.sql with a unique number")
            }
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            return Migration(
                version: version, name: String(parts[1]), text: String(decoding: data, as: UTF8.self),
                checksum: SHA256.hash(data: data).hexString)
        }
    }

    /// Splits on `;` at the end of a line, but inside a `$$`-quoted body (a PostgreSQL
    /// function's: quoted with `$$` only, never a named tag, and no `$$` in a string or a
    /// comment at a line's end); drops `--` comment lines.
    static func splitStatements(_ text: String) -> [String] {
        var statements: [String] = []
        var current: [Substring] = []
        var quoted = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("--") || trimmed.isEmpty { continue }
            current.append(line)
            if line.ranges(of: "$$").count % 2 == 1 { quoted.toggle() }
            if !quoted, trimmed.hasSuffix(";") {
                statements.append(current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines).dropLast().description)
                current = []
            }
        }
        let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { statements.append(rest) }
        return statements
    }

    private struct Applied: Decodable {
        var version: Int
        var checksum: String
    }

    /// The longest one migration (or the check of what was applied) may take: start-up
    /// waits for them rather than fail on `DATABASE_TIMEOUT`.
    static let migrationTimeout = Duration.seconds(3_600)

    /// Applies what is pending.
    /// - Returns: The versions applied now.
    /// - Throws: ``MigrationError`` if an applied migration was edited or the database is newer than this code.
    @discardableResult public func migrate() async throws -> [Int] {
        try await database.transaction(timeout: Self.migrationTimeout) { sql in
            try await sql.raw(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"
            ).run()
        }
        // Only what the check finds pending opens a transaction of its own; another
        // instance may apply one first, which the transaction sees.
        let pending = Set(try await verify())
        var applied: [Int] = []
        for migration in migrations where pending.contains(migration.version) {
            let started = ContinuousClock.now
            // Not bounded by DATABASE_TIMEOUT: a migration may rewrite a table of millions
            // of rows (dropping a column on SQLite does), and start-up waits for it.
            let didApply = try await database.migrationTransaction(
                relaxingForeignKeys: migration.relaxesForeignKeys, timeout: Self.migrationTimeout
            ) { [engine = database.engine] sql in
                if engine == .postgres {
                    // Two instances starting together take turns here.
                    try await sql.raw("SELECT pg_advisory_xact_lock(7243501)").run()
                }
                let existing = try await sql.raw("SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)").first()
                guard existing == nil else { return false }
                for statement in migration.statements {
                    try await sql.raw("\(unsafeRaw: statement)").run()
                }
                try await sql.raw(
                    """
                    INSERT INTO schema_migrations (version, name, checksum, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: migration.checksum), \(bind: ISO8601DateFormatter().string(from: Date())))
                    """
                ).run()
                return true
            }
            if didApply {
                // How long it held its tables: what an upgrade of a large database waits for.
                let took = ContinuousClock.now - started
                let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
                logger.info(
                    "applied migration",
                    metadata: [
                        "version": "\(migration.version)", "name": "\(migration.name)", "seconds": "\(String(format: "%.3f", seconds))",
                    ])
                applied.append(migration.version)
            }
        }
        return applied
    }

    /// Checks the recorded migrations against the files.
    /// - Returns: The versions not applied yet.
    /// - Throws: ``MigrationError`` if an applied migration was edited or the database is newer than this code.
    public func verify() async throws -> [Int] {
        let rows: [Applied] = try await database.read(timeout: Self.migrationTimeout) { sql in
            let exists = try await Self.tableExists(sql)
            guard exists else { return [] }
            return try await sql.raw("SELECT version, checksum FROM schema_migrations ORDER BY version").all(decoding: Applied.self)
        }
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for row in rows {
            guard let migration = known[row.version] else {
                throw MigrationError(
                    description:
                        "the database has migration \(row.version), which this version of SportLook does not know: the database is newer than the code; run a newer sportlook"
                )
            }
            guard migration.checksum == row.checksum else {
                throw MigrationError(
                    description:
                        "migration \(row.version)_\(migration.name) was edited after it was applied (checksum \(row.checksum.prefix(12))… recorded, \(migration.checksum.prefix(12))… on disk); restore the file and add a new migration instead"
                )
            }
        }
        let done = Set(rows.map(\.version))
        return migrations.map(\.version).filter { !done.contains($0) }
    }

    private static func tableExists(_ sql: any SQLDatabase) async throws -> Bool {
        if sql.dialect.name == "sqlite" {
            return try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").first() != nil
        }
        return try await sql.raw("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migrations'")
            .first() != nil
    }
}

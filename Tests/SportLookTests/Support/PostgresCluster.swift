import Foundation
import Logging
import NIOPosix
import PostgresNIO
import SportLookTestSupport
import Synchronization

@testable import SportLook

/// A throwaway PostgreSQL cluster for the test run: `initdb` into a temporary
/// folder (as the unprivileged `postgres` user when the tests run as root), a
/// free port on loopback, durability off for speed. It is started on first use
/// and stopped when the test process exits. Each test gets its own database,
/// cloned from a template that was migrated once.
actor PostgresCluster {
    static let shared = PostgresCluster()

    struct Running {
        var port: Int
        var directory: String
        var admin: PostgresConnection
    }

    private var running: Running?
    private var starting: Task<Running, any Error>?
    private var nextDatabase = 0
    /// The databases in use now, each holding one of ``slots``.
    private var inUse: Set<String> = []
    /// How many tests work on the cluster at once (`SPORTLOOK_TEST_POSTGRES_WIDTH`, default
    /// 16 for each core, 64 at most: each holds up to nine connections of the cluster's
    /// 1,500); the others wait for a database. With every test at once, two cores
    /// ran over a thousand server processes and the tests' own background work: single
    /// requests then waited past the test client's 20 s and whole tests past their time
    /// limit.
    static let slots = Slots(
        ProcessInfo.processInfo.environment["SPORTLOOK_TEST_POSTGRES_WIDTH"].flatMap { Int($0) }.map { max(2, $0) }
            ?? min(64, 16 * ProcessInfo.processInfo.activeProcessorCount))
    /// Where the running clusters are (this one, the replicated one), for the exit handler.
    static let locations = Mutex<[(directory: String, pgCtl: String, asPostgres: Bool)]>([])

    /// The cluster in `directory`, if this process started it.
    static func location(of directory: String) -> (directory: String, pgCtl: String, asPostgres: Bool)? {
        locations.withLock { $0.first { $0.directory == directory } }
    }

    /// A new, migrated database of its own.
    func freshDatabase() async throws -> PostgresAddress {
        // A copy of the template's files (FILE_COPY), not its pages written through the log
        // (WAL_LOG, the default): on tmpfs with durability off, a database made and dropped
        // took 0.09 s this way against 0.13 s.
        try await create("test_", " TEMPLATE sportlook_template STRATEGY FILE_COPY")
    }

    /// Drops a database made by ``freshDatabase()``.
    func drop(_ address: PostgresAddress) async {
        guard let cluster = running else { return }
        _ = try? await cluster.admin.query("DROP DATABASE IF EXISTS \(unescaped: address.database) WITH (FORCE)", logger: Self.logger)
        release(address.database)
    }

    /// A new database named `prefix` and a number, made with `options`, once a slot is
    /// free. Every database made is dropped again (``drop(_:)``), on every path: one that is
    /// not keeps its slot for the rest of the run.
    private func create(_ prefix: String, _ options: String) async throws -> PostgresAddress {
        let cluster = try await start()
        try await Self.slots.take()
        nextDatabase += 1
        let name = prefix + String(nextDatabase)
        inUse.insert(name)
        do {
            _ = try await cluster.admin.query("CREATE DATABASE \(unescaped: name)\(unescaped: options)", logger: Self.logger)
        } catch {
            release(name)
            throw error
        }
        return PostgresAddress(host: "127.0.0.1", port: cluster.port, user: "sportlook", password: nil, database: name)
    }

    /// Gives back the slot of `name`, if it holds one.
    private func release(_ name: String) {
        if inUse.remove(name) != nil { Self.slots.giveBack() }
    }

    /// An empty database (not migrated), for migration tests.
    func emptyDatabase() async throws -> PostgresAddress { try await create("empty_", "") }

    /// The port the cluster listens on (starting it if needed).
    func port() async throws -> Int { try await start().port }

    /// Runs `pg_ctl` on the cluster (tests that stop and start the server).
    func control(_ arguments: [String]) async throws {
        let cluster = try await start()
        let directory = cluster.directory
        guard let location = Self.location(of: directory) else { return }
        try await blocking {
            try Self.run(
                location.pgCtl, ["-D", directory + "/data", "-w", "-t", "60", "-l", directory + "/log"] + arguments,
                asPostgres: location.asPostgres)
        }
    }

    static let logger = Logger(label: "test-postgres")

    private func start() async throws -> Running {
        if let running { return running }
        if let starting { return try await starting.value }
        let task = Task { try await Self.boot() }
        starting = task
        let cluster = try await task.value
        running = cluster
        return cluster
    }

    private static func boot() async throws -> Running {
        // The suites run in parallel, each app with a pool of up to 8 and a listener: a
        // run held 683 connections at its peak. At the old limit of 400, new connections
        // were refused ("too many clients") and pools waited out their 30 s.
        let (directory, _, _, port) = try await bootServer(
            prefix: "sportlook-pg-", extraOptions: "-c synchronous_commit=off -c full_page_writes=off -c max_connections=1500")
        let admin = try await PostgresConnection.connect(
            configuration: .init(host: "127.0.0.1", port: port, username: "sportlook", password: nil, database: "postgres", tls: .disable),
            id: 1, logger: logger
        )
        try await makeTemplate(port: port, admin: admin, logger: logger)
        return Running(port: port, directory: directory, admin: admin)
    }

    /// `initdb` into a new folder of ``scratchFolder`` named `prefix` and this process's id,
    /// and a server started there on a free loopback port, durability off; stopped at exit.
    static func bootServer(prefix: String, extraOptions: String) async throws -> (
        directory: String, pgCtl: String, asPostgres: Bool, port: Int
    ) {
        let initdb = try binary("initdb")
        let pgCtl = try binary("pg_ctl")
        let asPostgres = geteuid() == 0
        // Programs are waited for on a thread of their own, never on the cooperative pool.
        try await blocking { removeAbandonedClusters(pgCtl: pgCtl, asPostgres: asPostgres) }
        var template = "\(scratchFolder)\(prefix)\(getpid())-XXXXXX".utf8CString
        let directory: String = template.withUnsafeMutableBufferPointer { buffer in
            guard let path = mkdtemp(buffer.baseAddress!) else { return "" }
            return String(cString: path)
        }
        guard !directory.isEmpty else { throw ClusterError("cannot create a temporary folder") }
        if asPostgres {
            guard let user = getpwnam("postgres") else { throw ClusterError("running as root needs a 'postgres' user for initdb") }
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        try await blocking {
            try run(
                initdb, ["-D", directory + "/data", "-A", "trust", "-U", "sportlook", "-E", "UTF8", "--locale=C", "--no-sync"],
                asPostgres: asPostgres)
        }
        let port = try freePort()
        let options =
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=128MB " + extraOptions
        let first = locations.withLock { locations in
            locations.append((directory, pgCtl, asPostgres))
            return locations.count == 1
        }
        if first { atexit { PostgresCluster.stopAtExit() } }
        try await blocking {
            try run(
                pgCtl, ["-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "-o", options, "start"],
                asPostgres: asPostgres)
        }
        return (directory, pgCtl, asPostgres, port)
    }

    /// The template every test database is copied from, migrated once.
    static func makeTemplate(port: Int, admin: PostgresConnection, logger: Logger) async throws {
        _ = try await admin.query("CREATE DATABASE sportlook_template", logger: logger)
        let templateAddress = PostgresAddress(
            host: "127.0.0.1", port: port, user: "sportlook", password: nil, database: "sportlook_template")
        let database = try await Database.open(.postgres(templateAddress), poolSize: 2, timeout: 30, logger: logger)
        try await prepare(database, resources: try Resources.locate(), migrate: true, logger: logger)
        await database.close()
    }

    /// The servers of a cluster's folder: the primary's data and any replica's.
    static func serverFolders(in directory: String) -> [String] {
        (ReplicatedCluster.replicaFolders + ["data"]).map { directory + "/" + $0 }.filter {
            FileManager.default.fileExists(atPath: $0 + "/PG_VERSION")
        }
    }

    /// Stops clusters left by test runs that were killed before their exit handler ran.
    static func removeAbandonedClusters(pgCtl: String, asPostgres: Bool) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratchFolder)) ?? []
        for name in names where name.hasPrefix("sportlook-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 4, let pid = Int32(parts[2]), kill(pid, 0) != 0 else { continue }
            for folder in serverFolders(in: scratchFolder + name) {
                _ = try? run(pgCtl, ["-D", folder, "-m", "immediate", "stop"], asPostgres: asPostgres)
            }
            try? FileManager.default.removeItem(atPath: scratchFolder + name)
        }
    }

    /// Stops the clusters and removes their folders (registered with `atexit`).
    static func stopAtExit() {
        for location in locations.withLock({ $0 }) {
            for folder in serverFolders(in: location.directory) {
                _ = try? run(location.pgCtl, ["-D", folder, "-m", "immediate", "stop"], asPostgres: location.asPostgres)
            }
            try? FileManager.default.removeItem(atPath: location.directory)
        }
    }

    static func binary(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            path.split(separator: ":").map { "\($0)/\(name)" }
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed().map {
                "/usr/lib/postgresql/\($0)/bin/\(name)"
            }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ClusterError("\(name) not found: install PostgreSQL (e.g. apt-get install postgresql)")
        }
        return found
    }

    /// Runs a program to completion (see ``spawn(_:environment:output:)``); throws with its output if it fails.
    /// It waits in `waitpid`: call it through ``blocking(_:)`` from async code.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws -> String {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "sportlook-pg-output-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        let status = exitStatus(of: try spawn(argv, output: outputPath))
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status & 0x7f == 0 && (status >> 8) & 0xff == 0 else {
            throw ClusterError("\(URL(fileURLWithPath: executable).lastPathComponent) failed (\(status)): \(text.suffix(600))")
        }
        return text
    }
}

struct ClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Counts test cases per database, printed when the test process exits.
enum TestCounter {
    private static let counts = Mutex<[String: Int]>([:])

    static func record(_ engine: DatabaseEngine) {
        let first = counts.withLock { counts in
            defer { counts[engine.description, default: 0] += 1 }
            return counts.isEmpty
        }
        if first { atexit { TestCounter.printSummary() } }
    }

    static func printSummary() {
        let snapshot = counts.withLock { $0 }
        guard !snapshot.isEmpty else { return }
        let line = DatabaseEngine.allCases.map { "\(snapshot[$0.description] ?? 0) on \($0.description)" }.joined(separator: ", ")
        print("SportLook database test cases: \(line)")
    }
}

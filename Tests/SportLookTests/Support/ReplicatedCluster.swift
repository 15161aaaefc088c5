import Foundation
import Logging
import PostgresNIO
import SportLookTestSupport

@testable import SportLook

/// A PostgreSQL primary with two streaming replicas on loopback, for the replica tests:
/// `initdb` for the primary, `pg_basebackup -R` for each replica (a standby that follows
/// the primary from the start). Each replica loads `pg_stat_statements`, so a test counts
/// the statements it ran from the replica's own statistics. Started on first use, stopped
/// when the test process exits (``PostgresCluster/stopAtExit()`` stops every server in
/// the folder).
actor ReplicatedCluster {
    static let shared = ReplicatedCluster()

    struct Running {
        var directory: String
        var primaryPort: Int
        var replicaPorts: [Int]
        var admin: PostgresConnection
    }

    private var running: Running?
    private var starting: Task<Running, any Error>?
    private var nextDatabase = 0
    static let replicaFolders = ["replica1", "replica2"]

    /// A new, migrated database on the primary, once both replicas have it; with its
    /// address on the primary and on each replica.
    func freshDatabase() async throws -> (primary: PostgresAddress, replicas: [PostgresAddress]) {
        let cluster = try await start()
        nextDatabase += 1
        let name = "replicated_\(nextDatabase)"
        _ = try await cluster.admin.query("CREATE DATABASE \(unescaped: name) TEMPLATE sportlook_template", logger: Self.logger)
        let primary = PostgresAddress(host: "127.0.0.1", port: cluster.primaryPort, user: "sportlook", password: nil, database: name)
        let replicas = cluster.replicaPorts.map {
            PostgresAddress(host: "127.0.0.1", port: $0, user: "sportlook", password: nil, database: name)
        }
        for index in replicas.indices { try await waitUntilReplayed(index) }
        return (primary, replicas)
    }

    /// Drops a database made by ``freshDatabase()``.
    func drop(_ address: PostgresAddress) async {
        guard let cluster = running else { return }
        _ = try? await cluster.admin.query("DROP DATABASE IF EXISTS \(unescaped: address.database) WITH (FORCE)", logger: Self.logger)
    }

    /// Holds replica `index` back: it receives the primary's WAL but applies no commit
    /// younger than an hour (`recovery_min_apply_delay`), or applies everything again.
    func holdBack(_ index: Int, _ held: Bool) async throws {
        let setting = held ? "ALTER SYSTEM SET recovery_min_apply_delay = '1h'" : "ALTER SYSTEM RESET recovery_min_apply_delay"
        try await onReplica(index) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: setting), logger: Self.logger)
            _ = try await connection.query("SELECT pg_reload_conf()", logger: Self.logger)
        }
        if !held { try await waitUntilReplayed(index) }
    }

    /// Waits until replica `index` has applied everything the primary has flushed now.
    func waitUntilReplayed(_ index: Int) async throws {
        let cluster = try await start()
        let target = try await Database.walPosition(on: cluster.admin, logger: Self.logger)
        let port = cluster.replicaPorts[index]
        try await eventually("replica \(index + 1) replays the primary's WAL") {
            (try? await Self.onReplica(port: port) { connection in
                let rows = try await connection.query("SELECT pg_last_wal_replay_lsn()::text", logger: Self.logger)
                for try await text in rows.decode(String.self) { return (ReplicaSet.walPosition(text) ?? 0) >= target }
                return false
            }) ?? false
        }
    }

    /// Statements replica `index` ran in `database`, but the replica set's own checks.
    func statements(on index: Int, in database: String) async throws -> Int {
        try await onReplica(index) { connection in
            let rows = try await connection.query(
                """
                SELECT COALESCE(sum(s.calls), 0)::bigint FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                WHERE d.datname = \(database) AND s.query NOT LIKE '%pg_is_in_recovery%'
                """, logger: Self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// Stops or starts replica `index` (`pg_ctl stop -m fast` / `start`).
    func control(_ index: Int, _ action: String) async throws {
        let cluster = try await start()
        guard let location = PostgresCluster.location(of: cluster.directory) else { return }
        let folder = cluster.directory + "/" + Self.replicaFolders[index]
        let options = Self.replicaOptions(port: cluster.replicaPorts[index], directory: cluster.directory)
        try await blocking {
            try PostgresCluster.run(
                location.pgCtl, ["-D", folder, "-l", folder + ".log", "-w", "-t", "60", "-o", options, "-m", "fast", action],
                asPostgres: location.asPostgres)
        }
    }

    /// Stops the primary as a crash would leave it to the replicas: `pg_ctl stop -m fast`
    /// (what it had sent, they have; what it had not, is lost).
    func stopPrimary() async throws {
        let cluster = try await start()
        guard let location = PostgresCluster.location(of: cluster.directory) else { return }
        try? await cluster.admin.close()
        try await blocking {
            try PostgresCluster.run(
                location.pgCtl, ["-D", cluster.directory + "/data", "-m", "fast", "-w", "stop"], asPostgres: location.asPostgres)
        }
    }

    /// Stops every server of this cluster and removes its folder (a cluster a test broke).
    func stopAll() async {
        guard let cluster = running, let location = PostgresCluster.location(of: cluster.directory) else { return }
        try? await cluster.admin.close()
        try? await blocking {
            for folder in PostgresCluster.serverFolders(in: cluster.directory) {
                _ = try? PostgresCluster.run(location.pgCtl, ["-D", folder, "-m", "immediate", "stop"], asPostgres: location.asPostgres)
            }
            try? FileManager.default.removeItem(atPath: cluster.directory)
        }
        running = nil
        starting = nil
    }

    /// Promotes replica `index` to a primary (`pg_ctl promote`), as Patroni would.
    func promote(_ index: Int) async throws {
        let cluster = try await start()
        guard let location = PostgresCluster.location(of: cluster.directory) else { return }
        let folder = cluster.directory + "/" + Self.replicaFolders[index]
        try await blocking { try PostgresCluster.run(location.pgCtl, ["-D", folder, "-w", "promote"], asPostgres: location.asPostgres) }
    }

    private func onReplica<R: Sendable>(_ index: Int, _ body: @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        try await Self.onReplica(port: try await start().replicaPorts[index], body)
    }

    private static func onReplica<R: Sendable>(port: Int, _ body: @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: "127.0.0.1", port: port, username: "sportlook", password: nil, database: "postgres",
                tls: .disable),
            id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static let logger = Logger(label: "test-replicas")

    private func start() async throws -> Running {
        if let running { return running }
        if let starting { return try await starting.value }
        let task = Task { try await Self.boot() }
        starting = task
        let cluster = try await task.value
        running = cluster
        return cluster
    }

    static func replicaOptions(port: Int, directory: String) -> String {
        "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c hot_standby=on -c fsync=off -c max_connections=300"
            + " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
    }

    private static func boot() async throws -> Running {
        let (directory, pgCtl, asPostgres, primaryPort) = try await PostgresCluster.bootServer(
            prefix: "sportlook-pg-", extraOptions: "-c wal_level=replica -c max_wal_senders=10 -c max_connections=300")
        let admin = try await PostgresConnection.connect(
            configuration: .init(
                host: "127.0.0.1", port: primaryPort, username: "sportlook", password: nil, database: "postgres", tls: .disable),
            id: 1, logger: logger)
        do {
            // The view the replicas' counts are read from (the catalogue replicates; the counts are each server's own).
            _ = try await admin.query("CREATE EXTENSION pg_stat_statements", logger: logger)
            try await PostgresCluster.makeTemplate(port: primaryPort, admin: admin, logger: logger)
            return Running(
                directory: directory, primaryPort: primaryPort,
                replicaPorts: try await startReplicas(in: directory, primaryPort: primaryPort, pgCtl: pgCtl, asPostgres: asPostgres),
                admin: admin)
        } catch {
            try? await admin.close()
            throw error
        }
    }

    private static func startReplicas(in directory: String, primaryPort: Int, pgCtl: String, asPostgres: Bool) async throws -> [Int] {
        let baseBackup = try PostgresCluster.binary("pg_basebackup")
        var replicaPorts: [Int] = []
        for folder in replicaFolders {
            let port = try freePort()
            let path = directory + "/" + folder
            try await blocking {
                try PostgresCluster.run(
                    baseBackup,
                    ["-h", "127.0.0.1", "-p", "\(primaryPort)", "-U", "sportlook", "-D", path, "-R", "-X", "stream", "-c", "fast"],
                    asPostgres: asPostgres)
                try PostgresCluster.run(
                    pgCtl,
                    ["-D", path, "-l", path + ".log", "-w", "-t", "60", "-o", replicaOptions(port: port, directory: directory), "start"],
                    asPostgres: asPostgres)
            }
            replicaPorts.append(port)
        }
        return replicaPorts
    }
}

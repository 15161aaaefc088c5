import Logging
import PostgresNIO

/// One PostgreSQL server's connection pool and the task running it (until ``close(_:)``):
/// each host `DATABASE_URL` names (``PostgresPrimary``) and each read replica
/// (``ReplicaSet``).
struct PostgresPool: Sendable {
    /// `host:port`.
    let name: String
    let client: PostgresClient
    let runner: Task<Void, Never>

    /// A pool of at most `poolSize` connections to `address`'s first host, running from now on.
    init(_ address: PostgresAddress, poolSize: Int, timeout: Duration, logger: Logger) {
        let client = PostgresClient(configuration: .sportLook(address, poolSize: poolSize, timeout: timeout), backgroundLogger: logger)
        name = address.hosts[0].description
        self.client = client
        runner = Task { await client.run() }
    }

    /// Closes the pools, giving each a few seconds to close its connections, not for ever;
    /// `false` when one did not.
    static func close(_ pools: [PostgresPool]) async -> Bool {
        for pool in pools { pool.runner.cancel() }
        var closed = true
        for pool in pools where !(await waitAtMost(.seconds(5), for: pool.runner)) { closed = false }
        return closed
    }
}

extension PostgresClient.Configuration {
    /// How SportLook connects to a PostgreSQL server: `poolSize` connections at most, each
    /// attempt given at least 10 s, keep-alives every 10 s.
    static func sportLook(_ address: PostgresAddress, poolSize: Int, timeout: Duration) -> Self {
        var configuration = PostgresClient.Configuration(
            host: address.host, port: address.port, username: address.user,
            password: address.password, database: address.database, tls: .disable
        )
        configuration.options.maximumConnections = poolSize
        // A connection attempt may take longer than one call may wait: calls stay
        // bounded by their deadline, while an attempt cut at a short request timeout
        // (50 ms in a test, on a loaded machine) failed, backed off and failed again
        // until even a 30-s bulk read found no connection.
        configuration.options.connectTimeout = max(timeout, .seconds(10))
        // Keep-alives find connections a restarted server dropped before a request does.
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(10))
        return configuration
    }
}

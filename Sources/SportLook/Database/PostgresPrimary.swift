import Foundation
import Logging
import Metrics
import PostgresNIO
import Synchronization

/// The PostgreSQL server that takes writes, among the hosts `DATABASE_URL` names
/// (`postgres://user@host1:5432,host2:5432/db`, as libpq writes several hosts): the
/// one where `pg_is_in_recovery()` is false. Each host has a pool of its own, opened
/// when first used.
///
/// When the current one is lost (a connection error, or a call that missed its
/// deadline), the hosts are asked again, once for every caller that noticed. With no
/// primary among them and read replicas or other hosts to fall back on, the database is
/// read-only: writes are refused at once (``DatabaseReadOnly``) while reads go to the
/// replicas, and a write or a check at most once a second asks the hosts again, so
/// writes resume by themselves when a replica is promoted or the primary is back.
/// With one host and no replica, a lost primary is an outage, as before (503
/// `unavailable`).
final class PostgresPrimary: Sendable {
    let servers: [PostgresPool]
    /// Whether a lost primary makes the database read-only rather than unavailable.
    let failsOver: Bool
    private let current = Atomic<Int>(0)
    private struct State {
        var locating: Task<Bool, Never>?
        var readOnly = false
        var lastLocated: ContinuousClock.Instant?
        /// The hosts that did not answer at the last look.
        var silent: [String] = []
        /// Told when writes stop or resume (``observeWritability(_:)``).
        var observers: [@Sendable (_ writable: Bool, _ epoch: Int) -> Void] = []
        /// Counts the turns between read-only and writable.
        var epoch = 0
    }
    private let state = Mutex(State())
    private let logger: Logger
    /// Longest the question to one host may take.
    static let probeTimeout: Duration = .seconds(1)
    /// How often a read-only database asks the hosts again, at most.
    static let relocateEvery: Duration = .seconds(1)

    init(_ address: PostgresAddress, poolSize: Int, timeout: Duration, hasReplicas: Bool, logger: Logger) {
        servers = address.hosts.map { host in
            var one = address
            (one.host, one.port) = (host.host, host.port)
            return PostgresPool(one, poolSize: poolSize, timeout: timeout, logger: logger)
        }
        failsOver = hasReplicas || servers.count > 1
        self.logger = logger
    }

    /// The pool of the server taken for the primary now.
    var client: PostgresClient { servers[current.load(ordering: .relaxed)].client }

    /// The server taken for the primary now.
    var name: String { servers[current.load(ordering: .relaxed)].name }

    /// Calls `observe` each time the database turns read-only (`false`) or takes writes
    /// again (`true`), with the turn's number: calls of two turns close together may
    /// arrive out of order, and the higher number is the later.
    func observeWritability(_ observe: @escaping @Sendable (_ writable: Bool, _ epoch: Int) -> Void) {
        state.withLock { $0.observers.append(observe) }
    }

    /// The hosts (`host:port`) that did not answer at the last look.
    var silentHosts: [String] { state.withLock { $0.silent } }

    /// Whether a primary was found at the last look, and the number of the last turn.
    var writability: (writable: Bool, epoch: Int) { state.withLock { (!$0.readOnly, $0.epoch) } }

    /// Whether no primary was found at the last look.
    var isReadOnly: Bool { state.withLock { $0.readOnly } }

    /// Before a write: refused at once while read-only, after asking the hosts again
    /// when the last look is a second old.
    func ensureWritable() async throws {
        let (readOnly, stale) = state.withLock { state in
            (state.readOnly, state.lastLocated.map { ContinuousClock.now - $0 >= Self.relocateEvery } ?? true)
        }
        guard readOnly else { return }
        if stale, await locate() { return }
        throw DatabaseReadOnly()
    }

    /// The current server failed a call: the hosts are asked again (one look for all who
    /// noticed at once). `true` when a primary was found.
    @discardableResult
    func lost() async -> Bool {
        guard failsOver else { return false }
        return await locate()
    }

    /// Asks every host, the current first, whether it is the primary; takes the first that is.
    @discardableResult
    func locate() async -> Bool {
        let task = state.withLock { state -> Task<Bool, Never> in
            if let running = state.locating { return running }
            let task = Task { [self] in await look() }
            state.locating = task
            return task
        }
        return await task.value
    }

    private func look() async -> Bool {
        let start = current.load(ordering: .relaxed)
        var found: Int?
        var silent: [String] = []
        for offset in 0..<servers.count {
            let index = (start + offset) % servers.count
            let client = servers[index].client
            let recovering = try? await withDeadline(Self.probeTimeout) { [logger] in try await Self.inRecovery(client, logger: logger) }
            if recovering == nil { silent.append(servers[index].name) }
            if recovering == false {
                found = index
                break
            }
        }
        Gauge(label: "sportlook_read_only").record(found == nil ? 1 : 0)
        // Writes go to the new primary before they are let through, and before anyone is told.
        if let found { current.store(found, ordering: .relaxed) }
        let (wasReadOnly, observers, epoch) = state.withLock { state in
            let was = state.readOnly
            state.readOnly = found == nil
            state.lastLocated = .now
            state.silent = silent
            state.locating = nil
            if was != state.readOnly { state.epoch += 1 }
            return (was, state.observers, state.epoch)
        }
        if wasReadOnly != (found == nil) {
            for observe in observers { observe(found != nil, epoch) }
        }
        if let found {
            let moved = found != start
            if moved || wasReadOnly {
                logger.warning("the primary is \(servers[found].name); writes go there", metadata: ["moved": "\(moved)"])
            }
            return true
        }
        if !wasReadOnly { logger.error("no primary among \(servers.map(\.name)); the database is read-only until one is back") }
        return false
    }

    static func inRecovery(_ client: PostgresClient, logger: Logger) async throws -> Bool {
        let rows = try await client.query("SELECT pg_is_in_recovery()", logger: logger)
        for try await recovering in rows.decode(Bool.self) { return recovering }
        return true
    }

    /// Runs `body` on a connection of the primary's pool, had within `limit` (else
    /// ``DatabaseUnavailable``); `body` itself runs as long as it does.
    func withConnection<R: Sendable>(acquiredWithin limit: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> R)
        async throws -> R
    {
        let client = client
        let acquired = Flag()
        return try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    acquired.value.store(true, ordering: .relaxed)
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                if !acquired.value.load(ordering: .relaxed) {
                    throw DatabaseUnavailable(reason: "no connection to the primary within \(limit)")
                }
                return nil
            }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }

    /// Closes the pools.
    func close() async -> Bool { await PostgresPool.close(servers) }
}

/// A flag tasks share.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

/// No PostgreSQL server takes writes now (the primary is lost and none was promoted):
/// the write is refused at once, 503 `read_only` with `Retry-After`.
public struct DatabaseReadOnly: Error, CustomStringConvertible {
    public var description: String { "the database is read-only: no primary is reachable" }
}

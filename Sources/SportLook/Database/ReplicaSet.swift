import Foundation
import Logging
import Metrics
import PostgresNIO
import Synchronization

/// PostgreSQL's read replicas (`DATABASE_READ_URLS`), and which of them may answer a read.
///
/// A replica answers a read that tolerates lag (``Database/lagTolerant(_:)``) when:
/// - it was reachable at its last check;
/// - its lag is at most `READ_MAX_LAG`. The lag is measured against samples of the
///   primary's WAL position: it is the time since the primary was last seen at a position
///   the replica has replayed, plus the time since the replica was checked;
/// - it has replayed past the caller's last commit (read-your-writes), checked on *that*
///   replica, never on "some replica": one replica catching up says nothing of another.
///
/// Otherwise the read goes to the primary. A caller's position is kept for `READ_MAX_LAG`
/// only: past it, every replica that may answer has replayed it (its lag says so).
///
/// The positions are checked when a read wants them and the last check is older than
/// ``checkEvery``: with no reads there is nothing to check, and no task sleeps.
final class ReplicaSet: Sendable {
    /// One replica's pool, named `host:port` as `/ready` and `/metrics` name it.
    typealias Replica = PostgresPool

    /// What the last check found of one replica.
    struct Health: Sendable, Equatable {
        /// Whether it answered.
        var reachable = false
        /// The WAL position it had replayed.
        var replayed: UInt64 = 0
        /// Its lag, in seconds, when it was checked (`nil`: not known yet).
        var lag: TimeInterval?
        /// When it was checked.
        var checkedAt: Date?
    }

    /// A replica's state as `/ready` shows it.
    struct Report: Sendable {
        var name: String
        /// `up`, `lagging` or `down`.
        var state: String
        var lag: TimeInterval?
    }

    private struct State {
        var health: [Health]
        /// The primary's WAL position, sampled at each check: (when the query was sent, position).
        var samples: [(at: Date, position: UInt64)] = []
        /// Each caller's last commit on the primary, and when it was made.
        var callers: [String: (position: UInt64, at: Date)] = [:]
        var next = 0
        var checking: Task<Void, Never>?
        var checkedAt: Date?
        /// Whether this instance hears the others' callers' commits (``channel``).
        var listening = false
        /// The primary's position when the listener last (re)started: what was committed
        /// before, while no one listened, every read waits for, for `READ_MAX_LAG`.
        var floor: (position: UInt64, at: Date)?
    }

    /// The channel on which instances tell each other their callers' commits, as
    /// `INSTANCE|CALLER|POSITION` (a `pg_lsn`).
    static let channel = "sportlook_commits"

    let replicas: [Replica]
    let maxLag: TimeInterval
    /// This instance on ``channel`` (the bus's identity).
    let instance: String
    /// Tells the other instances a caller's commit (`pg_notify` on the primary).
    private let tell: @Sendable (_ caller: String, _ position: UInt64) -> Void
    private let clock: any AppClock
    private let logger: Logger
    private let state: Mutex<State>
    /// The primary's WAL position now.
    private let primaryPosition: @Sendable () async throws -> UInt64
    /// How old a check may be before a read asks for another.
    static let checkEvery: TimeInterval = 0.25
    /// Longest a read may wait for a replica before the primary answers it instead.
    static let readTimeout: Duration = .seconds(2)
    /// Longest a check may wait for one server.
    static let checkTimeout: Duration = .seconds(1)

    init(
        _ addresses: [PostgresAddress], poolSize: Int, maxLag: TimeInterval, clock: any AppClock, logger: Logger,
        instance: String, primaryPosition: @escaping @Sendable () async throws -> UInt64,
        tell: @escaping @Sendable (_ caller: String, _ position: UInt64) -> Void
    ) {
        self.instance = instance
        self.tell = tell
        replicas = addresses.map { PostgresPool($0, poolSize: poolSize, timeout: Self.checkTimeout, logger: logger) }
        self.maxLag = maxLag
        self.clock = clock
        self.logger = logger
        self.primaryPosition = primaryPosition
        state = Mutex(State(health: Array(repeating: Health(), count: addresses.count)))
    }

    // MARK: Choosing

    /// The replica that may answer `caller`'s read now, taken in turn among those that
    /// may; `nil`: the primary answers. Asks for a check when the last one is old.
    func replica(for caller: String?, after pending: UInt64) -> Replica? {
        let now = clock.now()
        let (chosen, stale) = state.withLock { state -> (Int?, Bool) in
            let stale = Self.wantsCheck(state, now: now)
            // Not hearing the other instances, a caller's commit through one of them is unknown.
            guard state.listening else { return (nil, stale) }
            var floor = pending
            if let caller, let last = state.callers[caller] {
                if now.timeIntervalSince(last.at) > maxLag { state.callers[caller] = nil } else { floor = max(floor, last.position) }
            }
            if let since = state.floor, now.timeIntervalSince(since.at) <= maxLag { floor = max(floor, since.position) }
            for offset in 0..<replicas.count {
                let index = (state.next + offset) % replicas.count
                if Self.answers(state.health[index], after: floor, maxLag: maxLag, now: now) {
                    state.next = index + 1
                    return (index, stale)
                }
            }
            return (nil, stale)
        }
        if stale { startCheck() }
        guard let chosen else { return nil }
        Counter(label: "sportlook_replica_reads_total", dimensions: [("replica", replicas[chosen].name)]).increment()
        return replicas[chosen]
    }

    /// Any replica that answered its last check, in turn: while no primary takes writes,
    /// the freshest data there is.
    func anyReachable() -> Replica? {
        let now = clock.now()
        let (chosen, stale) = state.withLock { state -> (Int?, Bool) in
            let stale = Self.wantsCheck(state, now: now)
            for offset in 0..<replicas.count {
                let index = (state.next + offset) % replicas.count
                if state.health[index].reachable {
                    state.next = index + 1
                    return (index, stale)
                }
            }
            return (nil, stale)
        }
        if stale { startCheck() }
        return chosen.map { replicas[$0] }
    }

    /// Whether a read should ask for a check: none running, and the last older than
    /// ``checkEvery`` (or made at a time the clock has since gone back past).
    private static func wantsCheck(_ state: State, now: Date) -> Bool {
        state.checking == nil && (state.checkedAt.map { now.timeIntervalSince($0) >= checkEvery || now < $0 } ?? true)
    }

    /// Whether a replica in `health` may answer a read that must see `position`: reachable,
    /// its lag known, and with the time since its check, within `maxLag` (a clock that went
    /// back since the check says nothing: not until the next).
    static func answers(_ health: Health, after position: UInt64, maxLag: TimeInterval, now: Date) -> Bool {
        guard health.reachable, let lag = health.lag, let checkedAt = health.checkedAt, now >= checkedAt else { return false }
        return lag + now.timeIntervalSince(checkedAt) <= maxLag && health.replayed >= position
    }

    /// Remembers `caller`'s commit at `position`: their next reads go to a replica that has
    /// replayed it. With `tell`, the other instances are told too (a moment later: this
    /// is for a commit made before its caller was known, a new account's).
    func committed(_ caller: String, at position: UInt64, tell: Bool = false) {
        let now = clock.now()
        state.withLock { state in
            let known = state.callers[caller]?.position ?? 0
            state.callers[caller] = (max(known, position), now)
        }
        if tell { self.tell(caller, position) }
    }

    /// The position `caller`'s reads must see, as far as this instance knows (`nil`: none).
    func position(of caller: String) -> UInt64? { state.withLock { $0.callers[caller]?.position } }

    /// What another instance said on ``channel``: one of its callers committed.
    func heard(_ payload: String) {
        let parts = payload.split(separator: "|")
        guard parts.count == 3, parts[0] != instance, let position = Self.walPosition(String(parts[2])) else { return }
        committed(String(parts[1]), at: position)
    }

    /// `caller`'s commit at `position` as told on ``channel``.
    static func announcement(instance: String, caller: String, position: UInt64) -> String {
        "\(instance)|\(caller)|\(String(position >> 32, radix: 16, uppercase: true))/\(String(position & 0xFFFF_FFFF, radix: 16, uppercase: true))"
    }

    /// A read on `replica` found it gone: it is skipped until a check finds it back.
    func lost(_ replica: Replica) { lost(named: replica.name) }

    /// The replica named `name` (`host:port`), if one is, did not answer: as ``lost(_:)``.
    func lost(named name: String) {
        guard let index = replicas.firstIndex(where: { $0.name == name }) else { return }
        let was = state.withLock { state in
            defer { state.health[index].reachable = false }
            return state.health[index].reachable
        }
        Gauge(label: "sportlook_replica_up", dimensions: [("replica", name)]).record(0)
        if was { logger.warning("a read replica was lost; reads go elsewhere", metadata: ["replica": "\(name)"]) }
    }

    /// Whether this instance hears the others' callers' commits: the bus's listener on
    /// ``channel`` started (again), or stopped. Until it starts, and while it is stopped,
    /// replicas answer no one; once it starts, they answer reads only past the primary's
    /// position then, for `READ_MAX_LAG` (what was committed while no one listened).
    func listening(_ on: Bool) async {
        guard on else {
            state.withLock { $0.listening = false }
            return
        }
        let position = (try? await withDeadline(Self.checkTimeout) { [primaryPosition] in try await primaryPosition() }) ?? .max
        let now = clock.now()
        state.withLock { state in
            state.floor = (position, now)
            state.listening = true
        }
    }

    /// Whether this instance hears the others' callers' commits.
    var isListening: Bool { state.withLock { $0.listening } }

    // MARK: Checking

    /// Starts a check unless one is running (a read that found the last one old, `/ready`).
    func startCheck() { _ = sharedCheck() }

    /// Waits for the running check, or one started now: while no primary takes writes,
    /// a read that found no replica reachable asks them again through the one check all
    /// such reads share. A caller that stops waiting leaves the check running (a check
    /// cut short would find every replica unreachable).
    func recheck() async { await sharedCheck().value }

    /// The running check, or one started now.
    private func sharedCheck() -> Task<Void, Never> {
        state.withLock { state in
            if let running = state.checking { return running }
            let task = Task { [self] in
                await runCheck()
                self.state.withLock { $0.checking = nil }
            }
            state.checking = task
            return task
        }
    }

    /// A check of the primary's position and every replica's, after any running one
    /// (tests call it to decide when).
    func check() async {
        while let running = state.withLock({ $0.checking }) { await running.value }
        await runCheck()
    }

    private func runCheck() async {
        let sentAt = clock.now()
        let primary = try? await withDeadline(Self.checkTimeout) { [primaryPosition] in try await primaryPosition() }
        var found: [(reachable: Bool, replayed: UInt64)] = []
        for replica in replicas {
            let position = try? await withDeadline(Self.checkTimeout) { [logger] in
                try await Self.replayed(on: replica.client, logger: logger)
            }
            found.append((position != nil, position ?? 0))
        }
        let now = clock.now()
        let health = state.withLock { state -> [Health] in
            for (index, result) in found.enumerated() {
                var health = state.health[index]
                health.reachable = result.reachable
                if result.reachable {
                    health.replayed = result.replayed
                    health.lag = Self.lag(
                        replayed: result.replayed, primary: primary.map { ($0, sentAt) }, samples: state.samples, now: now)
                    health.checkedAt = now
                }
                state.health[index] = health
            }
            if let primary {
                state.samples.append((sentAt, primary))
                // Two checks at once (a test's and a read's) may end out of order.
                if state.samples.count > 1, state.samples[state.samples.count - 2].at > sentAt { state.samples.sort { $0.at < $1.at } }
                // Samples older than the bound no longer tell a lag inside it; the newest is kept.
                let oldest = now.addingTimeInterval(-2 * maxLag)
                while state.samples.count > 1, state.samples[0].at < oldest { state.samples.removeFirst() }
                if state.samples.count > 256 { state.samples.removeFirst(state.samples.count - 256) }
            }
            state.callers = state.callers.filter { now.timeIntervalSince($0.value.at) <= maxLag }
            state.checkedAt = now
            return state.health
        }
        for (replica, health) in zip(replicas, health) {
            Gauge(label: "sportlook_replica_up", dimensions: [("replica", replica.name)]).record(health.reachable ? 1 : 0)
            if let lag = health.lag {
                Gauge(label: "sportlook_replica_lag_seconds", dimensions: [("replica", replica.name)]).record(lag)
            }
        }
    }

    /// A replica's lag: the time since the newest sample of the primary's position it has
    /// replayed, this check's own (`primary`, sent at its time) first. Every commit made
    /// before a sample's query was sent is at or before its position, so the replica has
    /// every commit older than its lag. `nil` when it is behind every sample (not known,
    /// and so never within the bound: a replica hours behind after a quiet spell).
    static func lag(
        replayed: UInt64, primary: (position: UInt64, at: Date)?, samples: [(at: Date, position: UInt64)], now: Date
    ) -> TimeInterval? {
        if let primary, replayed >= primary.position { return max(0, now.timeIntervalSince(primary.at)) }
        return samples.last(where: { $0.position <= replayed }).map { max(0, now.timeIntervalSince($0.at)) }
    }

    /// The position `client`'s server has replayed; a server out of recovery (a promoted
    /// replica) has everything it holds.
    static func replayed(on client: PostgresClient, logger: Logger) async throws -> UInt64 {
        let rows = try await client.query(
            """
            SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text
            """, logger: logger)
        for try await text in rows.decode(String?.self) { return text.flatMap(walPosition) ?? 0 }
        return 0
    }

    /// A `pg_lsn` text (`16/B374D848`) as one number.
    static func walPosition(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
        return high << 32 | low
    }

    // MARK: Reporting

    /// Each replica's state, for `/ready`.
    func report() -> [Report] {
        let now = clock.now()
        let health = state.withLock { $0.health }
        return zip(replicas, health).map { replica, health in
            let lag = health.lag.map { lag in health.checkedAt.map { lag + max(0, now.timeIntervalSince($0)) } ?? lag }
            let state = !health.reachable ? "down" : (lag.map { $0 <= maxLag } ?? false) ? "up" : "lagging"
            return Report(name: replica.name, state: state, lag: lag)
        }
    }

    /// Closes the pools.
    func close() async { _ = await PostgresPool.close(replicas) }
}

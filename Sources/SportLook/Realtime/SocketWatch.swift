import Synchronization

/// One timer for all of an instance's sockets: every `period` it runs each socket's
/// check (its session expired, its client stopped reading, a close its client never
/// took). A sleeping task per socket cost each socket four timer wake-ups a second:
/// with 10,000 sockets about a sixth of the server's CPU went to timers.
///
/// A check runs on the watch's task and must not block: it returns at once,
/// starting a task of its own for anything that waits.
final class SocketWatch: Sendable {
    /// What a check says after a look.
    enum Verdict: Sendable {
        /// Look again next time.
        case again
        /// Nothing more to watch: the check is dropped.
        case done
    }

    typealias Check = @Sendable (ContinuousClock.Instant) -> Verdict

    let period: Duration
    private let checks = Mutex<(next: Int, byID: [Int: Check])>((0, [:]))

    init(period: Duration = .seconds(1)) {
        self.period = period
    }

    /// How often to look, for sockets closed after `stallTimeout` without progress and
    /// pinged every `pingInterval`: a quarter of the shorter, within 50 ms … 1 s. Each
    /// look touches every socket's state, scattered in memory: with 10,000 sockets
    /// looked at every 250 ms, the looks were 5% of a chat server's CPU, waiting on
    /// memory (the default 10 s and 30 s give one look a second).
    static func period(stallTimeout: Duration, pingInterval: Duration) -> Duration {
        min(.seconds(1), max(.milliseconds(50), min(stallTimeout, pingInterval) / 4))
    }

    /// Starts looking at a socket; the number forgets it.
    func watch(_ check: @escaping Check) -> Int {
        checks.withLock { c in
            c.next += 1
            c.byID[c.next] = check
            return c.next
        }
    }

    func forget(_ id: Int) {
        _ = checks.withLock { $0.byID.removeValue(forKey: id) }
    }

    /// Sockets watched now.
    var count: Int { checks.withLock { $0.byID.count } }

    /// Runs every check once (outside the lock: a check may watch or forget).
    func tick(now: ContinuousClock.Instant = .now) {
        let all = checks.withLock { Array($0.byID) }
        var finished: [Int] = []
        for (id, check) in all where check(now) == .done { finished.append(id) }
        guard !finished.isEmpty else { return }
        checks.withLock { c in
            for id in finished { c.byID[id] = nil }
        }
    }

    /// Ticks every `period` until cancelled.
    func run() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: period) } catch { return }
            tick()
        }
    }
}

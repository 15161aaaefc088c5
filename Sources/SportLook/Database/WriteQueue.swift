import Synchronization

/// Too many writes are already waiting for the database: this one is refused at
/// once (503 `overloaded` with `Retry-After`, an `overloaded` error frame on a
/// socket) rather than queued behind them, so what is accepted stays quick.
public struct DatabaseBusy: Error, CustomStringConvertible {
    /// Writes waiting or running when this one came.
    public var waiting: Int
    /// Whether it was refused because writes have been slow (a standing queue), not
    /// because the queue was full.
    public var slow = false
    public var description: String { "\(waiting) writes already waiting for the database" + (slow ? ", all slow" : "") }
}

/// The work a client asked for (an HTTP request, a chat frame), as far as the write
/// queue is concerned: its first write may be refused past capacity; once one was
/// let in, the rest are part of accepted work and wait their turn, so a refusal
/// never leaves half a request written.
///
/// It also says whose work it is, once known, for read-your-writes on replicas
/// (``ReplicaSet``): a commit made before the caller is known (signing up) is
/// remembered for them when they are.
public final class WriteAdmission: Sendable {
    private let admitted = Atomic<Bool>(false)
    private struct Caller {
        var key: String?
        /// The latest commit's WAL position, and where to remember it.
        var committed: (position: UInt64, replicas: ReplicaSet, told: Bool)?
    }
    private let caller = Mutex(Caller())

    public init(caller: String? = nil) { self.caller.withLock { $0.key = caller } }

    /// Whose work this is (a user's id), as the request's credential or a new session says.
    public func identify(_ key: String) {
        let committed = caller.withLock { caller -> (position: UInt64, replicas: ReplicaSet, told: Bool)? in
            caller.key = key
            return caller.committed
        }
        if let committed { committed.replicas.committed(key, at: committed.position, tell: !committed.told) }
    }

    /// The caller, if known.
    var callerKey: String? { caller.withLock { $0.key } }

    /// The latest commit of this work (0: none).
    var committedPosition: UInt64 { caller.withLock { $0.committed?.position ?? 0 } }

    /// Notes a commit of this work at `position` on the primary; `told`: the other
    /// instances were told already.
    func committed(at position: UInt64, replicas: ReplicaSet, told: Bool) {
        let key = caller.withLock { caller -> String? in
            let previous = caller.committed
            caller.committed = (max(position, previous?.position ?? 0), replicas, told && (previous?.told ?? true))
            return caller.key
        }
        if let key { replicas.committed(key, at: position, tell: !told) }
    }

    /// Whether a write now may be refused: none of this work's writes got in yet.
    var refusable: Bool { !admitted.load(ordering: .relaxed) }

    func admit() { admitted.store(true, ordering: .relaxed) }
}

/// The writes waiting for the database or running, counted so that past its capacity
/// a client's first write is refused at once (``DatabaseBusy``) instead of queued:
/// when they are `limit` already, or when every write that finished for
/// ``standingQueue`` took longer than the slow-write bound (a standing queue) and
/// others are waiting. Times are uptime nanoseconds, given by the caller.
final class WriteQueue: Sendable {
    /// How long writes must have been slow, none quick, before a client's first
    /// write is refused: a standing queue, not a burst.
    static let standingQueue: UInt64 = 100_000_000

    private let bound: Atomic<Int>
    private let inFlight = Atomic<Int>(0)
    /// Longest a write may take (waiting included) before it counts as slow, in
    /// nanoseconds (0: no such bound).
    private let slowWrite: UInt64
    /// Since when every write that finished was slow (0: the last one was quick).
    private let slowSince = Atomic<UInt64>(0)
    /// When a write last finished: slowness is current only while writes keep finishing.
    private let lastFinished = Atomic<UInt64>(0)
    /// Refusals since the last report, by reason, and when that report was made.
    private let refusedFull = Atomic<Int>(0)
    private let refusedSlow = Atomic<Int>(0)
    private let lastReport = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - limit: Writes waiting or running at most (0: no bound).
    ///   - slowWrite: Seconds after which a write counts as slow (0: none does).
    init(limit: Int, slowWrite: Double) {
        self.bound = Atomic(max(0, limit))
        self.slowWrite = UInt64(max(0, slowWrite) * 1e9)
    }

    /// Writes waiting or running at most (0: no bound); a test sets it after its set-up.
    var limit: Int {
        get { bound.load(ordering: .relaxed) }
        set { bound.store(max(0, newValue), ordering: .relaxed) }
    }

    /// Writes waiting or running now.
    var waitingOrRunning: Int { inFlight.load(ordering: .relaxed) }

    /// Whether the writes that finished lately were all slow.
    var slow: Bool { slowSince.load(ordering: .relaxed) != 0 }

    /// Takes a place for a write coming at `now`, and returns `now`; throws
    /// ``DatabaseBusy`` instead if this is the first write of a client's work and the
    /// writes are `limit` already, or others are waiting and writes have all been slow
    /// for ``standingQueue``.
    func enter(_ admission: WriteAdmission?, now: UInt64) throws -> UInt64 {
        let count = inFlight.add(1, ordering: .relaxed).newValue
        if admission?.refusable ?? false {
            let limit = self.limit
            let slow = slowSince.load(ordering: .relaxed)
            // Slow for 100 ms on end, and a write finished within them (the mark of a slow
            // write before a quiet spell is not a queue).
            let standing =
                slow != 0 && count > 1 && now &- slow >= Self.standingQueue
                && now &- lastFinished.load(ordering: .relaxed) < Self.standingQueue
            if (limit > 0 && count > limit) || standing {
                inFlight.subtract(1, ordering: .relaxed)
                if standing { refusedSlow.add(1, ordering: .relaxed) } else { refusedFull.add(1, ordering: .relaxed) }
                throw DatabaseBusy(waiting: count - 1, slow: standing)
            }
        }
        admission?.admit()
        return now
    }

    /// The refusals since the last report (or since the start), counted by reason,
    /// once a second at most: one caller gets them, to report. Nil when none are
    /// waiting to be reported (two loads: cheap enough for every write), or within the
    /// second after a report.
    func refusals(now: UInt64) -> (full: Int, slow: Int, sinceNanoseconds: UInt64?)? {
        guard refusedFull.load(ordering: .relaxed) != 0 || refusedSlow.load(ordering: .relaxed) != 0 else { return nil }
        let last = lastReport.load(ordering: .relaxed)
        // (A caller whose clock reading is older than the last report's waits its turn.)
        guard last == 0 || (now > last && now - last >= 1_000_000_000),
            lastReport.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return nil }
        let full = refusedFull.exchange(0, ordering: .relaxed)
        let slow = refusedSlow.exchange(0, ordering: .relaxed)
        return full + slow > 0 ? (full, slow, last == 0 ? nil : now - last) : nil
    }

    /// Gives the place of a write that entered at `entered` back at `now`; one that took
    /// longer than the slow-write bound marks the writes slow from now, if not already,
    /// and a quicker one ends that.
    func leave(entered: UInt64, now: UInt64) {
        inFlight.subtract(1, ordering: .relaxed)
        let bound = slowWrite
        guard bound > 0 else { return }
        lastFinished.store(now, ordering: .relaxed)
        if now &- entered > bound {
            _ = slowSince.compareExchange(expected: 0, desired: now, ordering: .relaxed)
        } else {
            slowSince.store(0, ordering: .relaxed)
        }
    }
}

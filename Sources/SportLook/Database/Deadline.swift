import Synchronization

/// An operation did not answer within its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    /// The deadline that passed.
    var limit: Duration
    var description: String { "no answer within \(limit)" }
}

/// Runs `operation` in a task of its own and returns its answer, or throws
/// ``DeadlineExceeded`` once `limit` has passed, whichever comes first.
///
/// The caller never waits for the operation to notice anything: an operation
/// stuck on a socket that went away (a connection attempt, a query to a dead
/// server) keeps the caller no longer than `limit`. Not a task group for that
/// reason: a group waits for all its children.
///
/// - At the deadline, and when the caller is cancelled (even before the
///   operation has started), the operation's task is cancelled, so that whatever
///   it waits on (a lock, a sleep, a pool) lets it go; the call throws at once.
/// - When the operation answers first, its deadline is dropped: nothing waits on
///   for the rest of the limit.
///
/// The limit is kept by `ticker` (``DeadlineTicker/shared``: one task for every
/// deadline, firing them within its resolution, 10 ms), not by a timer of the call's own.
func withDeadline<R: Sendable>(
    _ limit: Duration, ticker: DeadlineTicker = .shared, _ operation: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withRenewableDeadline(limit, ticker: ticker) { _ in try await operation() }
}

/// Moves the deadline of a ``withRenewableDeadline(_:ticker:_:)`` call to `limit`
/// from now (nothing once the call is decided).
typealias RenewDeadline = @Sendable (_ limit: Duration) -> Void

/// ``withDeadline(_:ticker:_:)`` whose operation may move its deadline while it
/// runs (a body that must keep a pace: each chunk that arrives moves the limit on).
/// The call throws ``DeadlineExceeded`` with the limit last set.
func withRenewableDeadline<R: Sendable>(
    _ limit: Duration, ticker: DeadlineTicker = .shared, _ operation: @escaping @Sendable (RenewDeadline) async throws -> R
) async throws -> R {
    let race = DeadlineRace<R>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            guard race.attach(continuation) else { return }
            let arm: @Sendable (Duration) -> (@Sendable () -> Void) = { limit in
                let expire: @Sendable () -> Void = { race.finish(.failure(DeadlineExceeded(limit: limit)), cancelWork: true) }
                guard limit > .zero else {
                    expire()
                    return {}
                }
                let ticket = ticker.schedule(after: limit, expire)
                return { ticker.cancel(ticket) }
            }
            let renew: RenewDeadline = { limit in race.replaceTimer { arm(limit) } }
            renew(limit)
            let work = Task {
                do { race.finish(.success(try await operation(renew))) } catch { race.finish(.failure(error)) }
            }
            race.store(work: work)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()), cancelWork: true)
    }
}

/// Deadlines fired by one task that wakes every `resolution` while any is pending.
///
/// A deadline for every database call used to be a timer of its own: a task sleeping
/// for the limit, cancelled when the call answered. Arming and cancelling a timer
/// each wakes libdispatch's timer thread; with 600 writes a second that thread took
/// 9% of the server's CPU (`perf`, PostgreSQL, 10,000 sockets). Here a deadline is a
/// dictionary entry, and the one task that looks at them sleeps again only while
/// some are pending.
final class DeadlineTicker: Sendable {
    static let shared = DeadlineTicker(resolution: .milliseconds(10))

    private struct State {
        var pending: [UInt64: (due: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
        var next: UInt64 = 0
        var ticking = false
    }

    private let state = Mutex(State())
    private let resolution: Duration
    private let clock: any Clock<Duration>

    /// `clock` is what the task sleeps on between looks (a test passes one it holds);
    /// when a deadline is due is always measured on the continuous clock.
    init(resolution: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.resolution = resolution
        self.clock = clock
    }

    /// Calls `fire` once `limit` has passed (up to ``resolution`` later), unless
    /// ``cancel(_:)`` is called first with the ticket returned.
    func schedule(after limit: Duration, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let due = ContinuousClock.now + limit
        let (ticket, start) = state.withLock { s in
            s.next += 1
            s.pending[s.next] = (due, fire)
            defer { s.ticking = true }
            return (s.next, !s.ticking)
        }
        if start { Task.detached { await self.tick() } }
        return ticket
    }

    func cancel(_ ticket: UInt64) {
        state.withLock { _ = $0.pending.removeValue(forKey: ticket) }
    }

    /// Deadlines not yet fired or cancelled.
    var pending: Int { state.withLock { $0.pending.count } }

    /// Whether a task is looking at the deadlines (it stops once none is pending).
    var isTicking: Bool { state.withLock { $0.ticking } }

    private func tick() async {
        while true {
            try? await clock.sleep(for: resolution)
            let now = ContinuousClock.now
            let (due, more) = state.withLock { s -> ([@Sendable () -> Void], Bool) in
                // The tickets first, then out: removing while iterating would copy the dictionary.
                let tickets = s.pending.compactMap { $0.value.due <= now ? $0.key : nil }
                let due = tickets.compactMap { s.pending.removeValue(forKey: $0)?.fire }
                if s.pending.isEmpty { s.ticking = false }
                return (due, !s.pending.isEmpty)
            }
            for fire in due { fire() }
            guard more else { return }
        }
    }
}

/// The shared state of one ``withDeadline(_:_:)`` call: whoever finishes first
/// (the operation, the timer or the caller's cancellation) resumes the caller,
/// once; the others find the race over.
private final class DeadlineRace<R: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<R, any Error>?
        /// The outcome, once decided (kept when it comes before the continuation).
        var outcome: Result<R, any Error>?
        var work: Task<Void, Never>?
        var stopTimer: (@Sendable () -> Void)?
        /// The outcome asks for the operation to be cancelled.
        var cancelWork = false
    }

    private let state = Mutex(State())

    /// Hands over the caller's continuation; `false` (and the continuation
    /// resumed) when the race was decided before it began (the caller was cancelled).
    func attach(_ continuation: CheckedContinuation<R, any Error>) -> Bool {
        let decided = state.withLock { s -> Result<R, any Error>? in
            if let outcome = s.outcome { return outcome }
            s.continuation = continuation
            return nil
        }
        guard let decided else { return true }
        continuation.resume(with: decided)
        return false
    }

    /// Keeps the task; cancels it at once if the race was decided, asking for that,
    /// while it was being made.
    func store(work: Task<Void, Never>) {
        let cancelWork = state.withLock { s -> Bool in
            s.work = work
            return s.outcome != nil && s.cancelWork
        }
        if cancelWork { work.cancel() }
    }

    /// Stops the timer (if one is armed) and arms the one `arm` makes, unless the
    /// race is decided.
    func replaceTimer(_ arm: () -> (@Sendable () -> Void)) {
        let (open, old) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            guard s.outcome == nil else { return (false, nil) }
            defer { s.stopTimer = nil }
            return (true, s.stopTimer)
        }
        guard open else { return }
        old?()
        let stop = arm()
        let decided = state.withLock { s -> Bool in
            guard s.outcome == nil else { return true }
            s.stopTimer = stop
            return false
        }
        if decided { stop() }
    }

    /// Decides the race, if it is still open.
    func finish(_ outcome: Result<R, any Error>, cancelWork: Bool = false) {
        let taken = state.withLock { s -> (CheckedContinuation<R, any Error>?, Task<Void, Never>?, (@Sendable () -> Void)?)? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            s.cancelWork = cancelWork
            defer {
                s.continuation = nil
                s.stopTimer = nil
            }
            return (s.continuation, s.work, s.stopTimer)
        }
        guard let (continuation, work, stopTimer) = taken else { return }
        stopTimer?()
        if cancelWork { work?.cancel() }
        continuation?.resume(with: outcome)
    }
}

/// Waits for `task` at most `limit` (without waiting for it to notice anything);
/// `true` if it finished in time.
func waitAtMost(_ limit: Duration, for task: Task<Void, Never>) async -> Bool {
    await answer(within: limit) {
        await task.value
        return true
    }
}

/// What `operation` answers, or `false` once `limit` has passed, whichever comes
/// first (``withDeadline(_:_:)``: never waits for the operation to notice).
func answer(within limit: Duration, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
    (try? await withDeadline(limit) { await operation() }) ?? false
}

/// The time left until `ends` (none: ``DatabaseUnavailable`` at once).
func timeLeft(until ends: ContinuousClock.Instant) throws -> Duration {
    let left = ends - ContinuousClock.now
    guard left > .zero else { throw DatabaseUnavailable(reason: "no answer within the call's time") }
    return left
}

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
/// - When the operation answers first, the timer is cancelled: nothing sleeps on
///   for the rest of the limit.
///
/// `clock` measures the limit (a test passes one that watches its sleepers).
func withDeadline<R: Sendable, C: Clock>(
    _ limit: Duration, clock: C = ContinuousClock(), _ operation: @escaping @Sendable () async throws -> R
) async throws -> R where C.Duration == Duration {
    let race = DeadlineRace<R>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            guard race.attach(continuation) else { return }
            let work = Task {
                do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task {
                // A cancelled sleep means the race is over: leave without finishing it.
                guard (try? await clock.sleep(for: limit)) != nil else { return }
                race.finish(.failure(DeadlineExceeded(limit: limit)), cancelWork: true)
            }
            race.store(work: work, timer: timer)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()), cancelWork: true)
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
        var timer: Task<Void, Never>?
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

    /// Keeps the tasks; cancels them at once if the race was decided while they were being made.
    func store(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let (decided, cancelWork) = state.withLock { s -> (Bool, Bool) in
            s.work = work
            s.timer = timer
            return (s.outcome != nil, s.cancelWork)
        }
        if decided {
            timer.cancel()
            if cancelWork { work.cancel() }
        }
    }

    /// Decides the race, if it is still open.
    func finish(_ outcome: Result<R, any Error>, cancelWork: Bool = false) {
        let taken = state.withLock { s -> (CheckedContinuation<R, any Error>?, Task<Void, Never>?, Task<Void, Never>?)? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            s.cancelWork = cancelWork
            defer { s.continuation = nil }
            return (s.continuation, s.work, s.timer)
        }
        guard let (continuation, work, timer) = taken else { return }
        timer?.cancel()
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

import Foundation
import Synchronization

/// Bounds guessing: at most `maxAttempts` attempts per subject (an account, an
/// address) within `window`; further ones answer 429 until the oldest leaves
/// the window. Attempts are kept in the database, so every instance and every
/// restart sees the same count.
///
/// An attempt is *reserved* before its password is hashed and released only
/// when the password was right: the check and the count are one step, so a
/// burst of concurrent guesses cannot all pass the check before any is counted.
/// (Each reservation commits before it counts the reservations committed before
/// it, so the k-th committed sees at least k: at most `maxAttempts` pass.)
///
/// Refusals are remembered in memory, so that a flood from one address costs a
/// dictionary lookup per request, not database statements:
/// - a subject whose *settled* attempts (checked ones, which only age out) fill
///   the limit is refused until the oldest of them leaves the window — exactly
///   what every instance's database check would answer for that whole time;
/// - a subject full only with reservations (some may yet be withdrawn) is refused
///   for at most a second, and forgotten at once when this instance withdraws one
///   of its reservations. (A reservation withdrawn on another instance can leave a
///   refusal here that the database would no longer give, for that second.)
struct AttemptThrottle: Sendable {
    let attempts: AttemptStore
    let clock: any AppClock
    let maxAttempts: Int
    let window: TimeInterval
    /// The 429's code and message.
    var code = "too_many_attempts"
    var message = Sentence("Too many failed logins; try again later.")
    /// Subjects refused, and until when.
    let refused = RefusedSubjects()
    /// How long a refusal caused by reservations is remembered.
    static let provisionalHold: TimeInterval = 1

    static func subjects(email: String, address: String?) -> [String] {
        ["account:" + email] + (address.map { ["address:" + $0] } ?? [])
    }

    /// 429 at once when memory holds a refusal for any subject; nothing is read.
    func refuseIfRemembered(_ subjects: [String]) throws {
        let now = clock.now()
        if let until = refused.latest(of: subjects, after: now) { throw refusal(wait: until.timeIntervalSince(now)) }
    }

    /// Reserves one attempt for every subject; throws 429 with `Retry-After` (and
    /// withdraws the reservation) when any subject is over the limit with it.
    /// - Returns: The attempt, to ``release(_:subjects:)`` when it turns out not to count.
    func reserve(_ subjects: [String]) async throws -> UUID {
        try refuseIfRemembered(subjects)
        let attempt = UUID()
        let now = clock.now()
        let since = now.addingTimeInterval(-window)
        // Already full without this attempt: refused by a read alone.
        let wait = try await waitIfOver(subjects, limit: maxAttempts - 1, since: since, now: now)
        guard wait == 0 else { throw refusal(wait: wait) }
        try await attempts.reserveAttempt(attempt, subjects: subjects, at: now, purgeBefore: since)
        let waitWithIt = try await waitIfOver(subjects, limit: maxAttempts, since: since, now: now)
        guard waitWithIt == 0 else {
            try await release(attempt, subjects: subjects)
            throw refusal(wait: waitWithIt)
        }
        return attempt
    }

    /// How long until every subject has at most `limit` attempts (0: now); each
    /// subject found full is remembered (see the type's comment).
    private func waitIfOver(_ subjects: [String], limit: Int, since: Date, now: Date) async throws -> TimeInterval {
        var wait: TimeInterval = 0
        // Read before the counts: a reservation withdrawn here after them makes what
        // they show out of date, and the refusal is then not remembered.
        let withdrawals = refused.withdrawals
        for subject in subjects {
            let counted = try await attempts.loginFailures(subject: subject, since: since)
            guard counted.count > limit, let oldest = counted.oldest else { continue }
            let until = oldest.addingTimeInterval(window)
            wait = max(wait, until.timeIntervalSince(now), 1)
            if counted.settled >= maxAttempts, let oldestSettled = counted.oldestSettled {
                refused.remember(subject, until: oldestSettled.addingTimeInterval(window), settled: true, now: now)
            } else {
                refused.remember(
                    subject, until: min(until, now.addingTimeInterval(Self.provisionalHold)), settled: false, now: now,
                    unlessWithdrawnSince: withdrawals)
            }
        }
        return wait
    }

    private func refusal(wait: TimeInterval) -> DomainError {
        .tooManyRequests(retryAfter: max(1, Int(wait.rounded(.up))), code: code, message: message)
    }

    /// Reserves an attempt, then runs `check`; when `check` throws (nothing was
    /// checked: the hashing queue was full, the database away) the reservation is
    /// given back, so that it does not count. The caller then either
    /// ``settle(_:)``s the attempt (it counts) or ``release(_:subjects:)``s it.
    func attempt<R>(_ subjects: [String], _ check: () async throws -> R) async throws -> (id: UUID, result: R) {
        let id = try await reserve(subjects)
        do {
            return (id, try await check())
        } catch {
            try await release(id, subjects: subjects)
            throw error
        }
    }

    /// The attempt counts (a wrong password, a registration made): from now on it
    /// only ages out. Never settle an attempt that may still be released.
    func settle(_ attempt: UUID) async throws {
        try await attempts.settleAttempt(attempt)
    }

    /// Withdraws a reserved attempt (the password was right, nothing was checked, or
    /// the attempt was refused); refusals that reservations caused are forgotten.
    func release(_ attempt: UUID, subjects: [String]) async throws {
        try await attempts.releaseAttempt(attempt)
        refused.withdrew(subjects)
    }

    /// After a successful login: the account's earlier failures are forgiven.
    func recordSuccess(email: String, attempt: UUID, subjects: [String]) async throws {
        try await release(attempt, subjects: subjects)
        try await attempts.clearLoginFailures(subject: "account:" + email)
        refused.forget("account:" + email)
    }
}

/// Subjects a ``AttemptThrottle`` refused, each until when. Bounded: past `capacity`
/// entries the expired ones go, and if that is not enough, all of them (the
/// database still holds every count).
final class RefusedSubjects: Sendable {
    private struct Refusal {
        var until: Date
        var settled: Bool
    }
    private struct State {
        var entries: [String: Refusal] = [:]
        /// Reservations this instance has withdrawn.
        var withdrawals = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// Reservations withdrawn so far (for ``remember(_:until:settled:now:unlessWithdrawnSince:)``).
    var withdrawals: Int { state.withLock { $0.withdrawals } }

    /// The latest refusal still running at `now` among `subjects`.
    func latest(of subjects: [String], after now: Date) -> Date? {
        state.withLock { state in subjects.compactMap { state.entries[$0]?.until }.filter { $0 > now }.max() }
    }

    /// Remembers a refusal; a provisional one (`settled` false) only if no
    /// reservation was withdrawn since `withdrawals` was read, and never over a
    /// settled one still running.
    func remember(_ subject: String, until: Date, settled: Bool, now: Date, unlessWithdrawnSince withdrawals: Int? = nil) {
        state.withLock { state in
            if let withdrawals, state.withdrawals != withdrawals { return }
            if let known = state.entries[subject], known.settled, known.until > now, !settled { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { $0.value.until > now }
                if state.entries.count >= capacity { state.entries.removeAll() }
            }
            state.entries[subject] = Refusal(until: until, settled: settled)
        }
    }

    /// A reservation of `subjects` was withdrawn: their provisional refusals go.
    func withdrew(_ subjects: [String]) {
        state.withLock { state in
            state.withdrawals += 1
            for subject in subjects where state.entries[subject]?.settled == false { state.entries[subject] = nil }
        }
    }

    func forget(_ subject: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: subject) }
    }
}

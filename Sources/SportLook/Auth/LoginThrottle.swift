import Foundation

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
struct LoginThrottle: Sendable {
    let accounts: AccountStore
    let clock: any AppClock
    let maxAttempts: Int
    let window: TimeInterval
    /// The 429's code and message.
    var code = "too_many_attempts"
    var message = "Too many failed logins; try again later."

    static func subjects(email: String, address: String?) -> [String] {
        ["account:" + email] + (address.map { ["address:" + $0] } ?? [])
    }

    /// Reserves one attempt for every subject; throws 429 with `Retry-After` (and
    /// withdraws the reservation) when any subject is over the limit with it.
    /// - Returns: The attempt, to ``release(_:)`` when it turns out not to count.
    func reserve(_ subjects: [String]) async throws -> UUID {
        let attempt = UUID()
        let now = clock.now()
        let since = now.addingTimeInterval(-window)
        try await accounts.reserveAttempt(attempt, subjects: subjects, at: now, purgeBefore: since)
        var wait: TimeInterval = 0
        for subject in subjects {
            let (count, oldest) = try await accounts.loginFailures(subject: subject, since: since)
            if count > maxAttempts, let oldest {
                wait = max(wait, oldest.addingTimeInterval(window).timeIntervalSince(now), 1)
            }
        }
        guard wait == 0 else {
            try await accounts.releaseAttempt(attempt)
            throw APIError.tooManyRequests(retryAfter: Int(wait.rounded(.up)), code: code, message: message)
        }
        return attempt
    }

    /// Reserves an attempt, then runs `check`; when `check` throws (nothing was
    /// checked: the hashing queue was full, the database away) the reservation is
    /// given back, so that it does not count.
    func attempt<R>(_ subjects: [String], _ check: () async throws -> R) async throws -> (id: UUID, result: R) {
        let id = try await reserve(subjects)
        do {
            return (id, try await check())
        } catch {
            try await release(id)
            throw error
        }
    }

    /// Withdraws a reserved attempt (the password was right).
    func release(_ attempt: UUID) async throws {
        try await accounts.releaseAttempt(attempt)
    }

    /// After a successful login: the account's earlier failures are forgiven.
    func recordSuccess(email: String, attempt: UUID) async throws {
        try await accounts.releaseAttempt(attempt)
        try await accounts.clearLoginFailures(subject: "account:" + email)
    }
}

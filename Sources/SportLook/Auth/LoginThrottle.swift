import Foundation

/// Slows password guessing: after `maxFailures` failed logins within `window`
/// for one account, or from one address, further attempts answer 429 until the
/// oldest failure leaves the window. Failures are kept in the database, so every
/// instance and every restart sees the same count.
struct LoginThrottle: Sendable {
    let accounts: AccountStore
    let clock: any AppClock
    let maxFailures: Int
    let window: TimeInterval

    static func subjects(email: String, address: String?) -> [String] {
        ["account:" + email] + (address.map { ["address:" + $0] } ?? [])
    }

    /// Throws 429 with `Retry-After` when any subject is over the limit.
    func check(_ subjects: [String]) async throws {
        let now = clock.now()
        var wait: TimeInterval = 0
        for subject in subjects {
            let (count, oldest) = try await accounts.loginFailures(subject: subject, since: now.addingTimeInterval(-window))
            if count >= maxFailures, let oldest {
                wait = max(wait, oldest.addingTimeInterval(window).timeIntervalSince(now))
            }
        }
        if wait > 0 {
            throw APIError.tooManyRequests(retryAfter: Int(wait.rounded(.up)), code: "too_many_attempts", message: "Too many failed logins; try again later.")
        }
    }

    func recordFailure(_ subjects: [String]) async throws {
        let now = clock.now()
        try await accounts.recordLoginFailure(subjects: subjects, at: now, purgeBefore: now.addingTimeInterval(-window))
    }

    func recordSuccess(email: String) async throws {
        try await accounts.clearLoginFailures(subject: "account:" + email)
    }
}

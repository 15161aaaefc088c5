import Foundation
import SQLKit

/// Sign-in attempts (`login_failures`): what the throttles count, by subject
/// (`account:…`, `address:…`, `register:…`, codes).
struct AttemptStore: Store {
    let database: Database

    /// Reserves one attempt for each subject (before the password is checked);
    /// drops attempts of the same kinds of subject (`account:`, `register:`…)
    /// older than `purgeBefore` — each kind has its own window.
    func reserveAttempt(_ attempt: UUID, subjects: [String], at now: Date, purgeBefore: Date) async throws {
        let rows: [[any Encodable & Sendable]] = subjects.map { [$0, now, attempt, false] }
        let kinds = Set(subjects.map { String($0.prefix(through: $0.firstIndex(of: ":") ?? $0.startIndex)) + "%" })
        try await database.transaction { sql in
            try await sql.raw("INSERT INTO login_failures (subject, failed_at, attempt, settled) VALUES \(BindRows(rows: rows))").run()
            for kind in kinds {
                try await sql.raw("DELETE FROM login_failures WHERE failed_at <= \(bind: purgeBefore) AND subject LIKE \(bind: kind)").run()
            }
        }
    }

    /// Removes a reserved attempt (the password was right, or the attempt was refused).
    func releaseAttempt(_ attempt: UUID) async throws {
        try await database.write { sql in
            try await sql.raw("DELETE FROM login_failures WHERE attempt = \(bind: attempt)").run()
        }
    }

    /// Marks a reserved attempt as checked: from now on it only ages out.
    func settleAttempt(_ attempt: UUID) async throws {
        try await database.write { sql in
            try await sql.raw("UPDATE login_failures SET settled = \(bind: true) WHERE attempt = \(bind: attempt)").run()
        }
    }

    /// Attempts of `subject` after `since` (one exactly `window` old has left it) and
    /// the oldest of them; the same for the settled ones among them.
    func loginFailures(subject: String, since: Date) async throws -> AttemptCount {
        try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT COUNT(*) AS n, MIN(failed_at) AS oldest,
                       SUM(CASE WHEN settled THEN 1 ELSE 0 END) AS settled, MIN(CASE WHEN settled THEN failed_at END) AS oldest_settled
                FROM login_failures WHERE subject = \(bind: subject) AND failed_at > \(bind: since)
                """
            ).first()
            return AttemptCount(
                count: try row?.value("n", as: Int.self) ?? 0, oldest: try row?.optional("oldest", as: Date.self),
                settled: try row?.optional("settled", as: Int.self) ?? 0, oldestSettled: try row?.optional("oldest_settled", as: Date.self))
        }
    }

    func clearLoginFailures(subject: String) async throws {
        try await database.write { sql in
            try await sql.raw("DELETE FROM login_failures WHERE subject = \(bind: subject)").run()
        }
    }
}

/// Attempts of one subject in a throttle's window.
struct AttemptCount: Sendable {
    /// All of them, reservations included, and the oldest.
    var count: Int
    var oldest: Date?
    /// Those already checked (a reservation may yet be withdrawn; these only age out).
    var settled: Int
    var oldestSettled: Date?
}

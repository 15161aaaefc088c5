import Foundation
import SQLKit

/// One-time codes mailed to accounts (`email_codes`), kept as digests: one per
/// account, purpose and request (a reset's request id, as a digest; '' for the rest).
/// A try is counted before the code is compared, and taking it is one statement: two
/// finishes at once cannot both take one code.
struct EmailCodeStore: Sendable {
    /// Live reset codes an account keeps at most (the oldest go first).
    static let liveRequests = 10

    /// Gives the account a new code for `purpose` and `request`, replacing an earlier
    /// one of the same request; an account keeps the newest ``liveRequests`` of a purpose
    /// asked from places it does not know — a code asked from a known place is never
    /// trimmed by strangers' asks (its place's own limits bound those).
    func issue(
        user: UUID, purpose: String, request: String, knownPlace: Bool, digest: String, expiresAt: Date, at now: Date,
        on sql: any SQLDatabase
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO email_codes (user_id, purpose, request, digest, tries, expires_at, created_at, known_place)
            VALUES (\(bind: user), \(bind: purpose), \(bind: request), \(bind: digest), 0, \(bind: expiresAt), \(bind: now), \(bind: knownPlace))
            ON CONFLICT (user_id, purpose, request) DO UPDATE SET digest = excluded.digest, tries = 0,
                expires_at = excluded.expires_at, created_at = excluded.created_at
            """
        ).run()
        try await sql.raw(
            """
            DELETE FROM email_codes WHERE user_id = \(bind: user) AND purpose = \(bind: purpose) AND known_place = \(bind: false) AND request NOT IN (
                SELECT request FROM email_codes WHERE user_id = \(bind: user) AND purpose = \(bind: purpose) AND known_place = \(bind: false)
                ORDER BY created_at DESC, request LIMIT \(bind: Self.liveRequests))
            """
        ).run()
    }

    /// Takes the code when it is the live one of the account, purpose and request (not
    /// expired, fewer than `maxTries` tries). Every call counts a try first, under the
    /// row's lock, so that concurrent guesses cannot all see the same count.
    /// - Returns: Whether the code was taken.
    func take(user: UUID, purpose: String, request: String, digest: String, maxTries: Int, at now: Date, on sql: any SQLDatabase)
        async throws -> Bool
    {
        guard
            let live = try await sql.raw(
                """
                UPDATE email_codes SET tries = tries + 1
                WHERE user_id = \(bind: user) AND purpose = \(bind: purpose) AND request = \(bind: request) AND expires_at > \(bind: now) AND tries < \(bind: maxTries)
                RETURNING digest
                """
            ).first()?.value("digest", as: String.self), live == digest
        else { return false }
        return try await remove(user: user, purpose: purpose, request: request, digest: digest, on: sql)
    }

    /// Takes the code when it is the account's newest live one of `purpose`, whatever its
    /// request, and not voided by `maxTries` wrong tries, counting no try on it (the caller
    /// bounds the guesses elsewhere, so that they cannot use up a request's own tries).
    /// The newest is chosen before its tries are looked at: voiding one's own newer code
    /// never makes an older one the newest.
    /// - Returns: Whether the code was taken.
    func takeNewest(user: UUID, purpose: String, digest: String, maxTries: Int, at now: Date, on sql: any SQLDatabase) async throws
        -> Bool
    {
        guard
            let newest = try await sql.raw(
                """
                SELECT request, digest, tries FROM email_codes
                WHERE user_id = \(bind: user) AND purpose = \(bind: purpose) AND expires_at > \(bind: now)
                ORDER BY created_at DESC, request LIMIT 1
                """
            ).first(), try newest.decode(column: "digest", as: String.self) == digest,
            try newest.decode(column: "tries", as: Int.self) < maxTries
        else { return false }
        let request = try newest.decode(column: "request", as: String.self)
        return try await remove(user: user, purpose: purpose, request: request, digest: digest, on: sql)
    }

    /// Deletes the request's code if it still has this digest (a code issued again
    /// meanwhile is not taken); whether it did.
    private func remove(user: UUID, purpose: String, request: String, digest: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            DELETE FROM email_codes WHERE user_id = \(bind: user) AND purpose = \(bind: purpose) AND request = \(bind: request) AND digest = \(bind: digest)
            RETURNING user_id
            """
        ).first() != nil
    }

    /// Removes expired codes.
    func purge(before now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM email_codes WHERE expires_at <= \(bind: now)").run()
    }
}

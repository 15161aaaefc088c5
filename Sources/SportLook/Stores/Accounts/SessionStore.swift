import Foundation
import SQLKit

/// Sessions: the `access_tokens` table (and the device registrations that go with a
/// session when it ends).
struct SessionStore: Store {
    let database: Database

    struct TokenRecord: Sendable {
        var id: UUID
        var userID: UUID
        var expiresAt: Date
        var revokedAt: Date?
        /// The account's suspension, if staff suspended it.
        var suspendedAt: Date? = nil
        var suspendedUntil: Date? = nil

        func suspended(at now: Date) -> Bool {
            suspensionHolds(since: suspendedAt, until: suspendedUntil, at: now)
        }
    }

    typealias Session = SessionInfo

    func insertToken(id: UUID, userID: UUID, hash: String, userAgent: String?, createdAt: Date, expiresAt: Date, on sql: any SQLDatabase)
        async throws
    {
        try await sql.raw(
            """
            INSERT INTO access_tokens (id, user_id, token_hash, user_agent, created_at, expires_at)
            VALUES (\(bind: id), \(bind: userID), \(bind: hash), \(bind: userAgent), \(bind: createdAt), \(bind: expiresAt))
            """
        ).run()
    }

    func token(hash: String) async throws -> TokenRecord? {
        try await database.read { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT t.id, t.user_id, t.expires_at, t.revoked_at, u.suspended_at, u.suspended_until
                    FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(bind: hash)
                    """
                ).first()
            else { return nil }
            return TokenRecord(
                id: try row.value("id"), userID: try row.value("user_id"), expiresAt: try row.value("expires_at"),
                revokedAt: try row.optional("revoked_at"), suspendedAt: try row.optional("suspended_at"),
                suspendedUntil: try row.optional("suspended_until"))
        }
    }

    /// Revokes one of the user's live tokens; `false` if there is no such live token.
    func revokeToken(_ id: UUID, of userID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        let rows = try await sql.raw(
            """
            UPDATE access_tokens SET revoked_at = \(bind: now)
            WHERE id = \(bind: id) AND user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
            RETURNING id
            """
        ).all()
        return !rows.isEmpty
    }

    func sessions(of userID: UUID, at now: Date) async throws -> [Session] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, created_at, expires_at, last_used_at, user_agent FROM access_tokens
                WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
                ORDER BY created_at DESC, id
                """
            ).all().map { row in
                Session(
                    id: try row.value("id"), createdAt: try row.value("created_at"), expiresAt: try row.value("expires_at"),
                    lastUsedAt: try row.optional("last_used_at"), userAgent: try row.optional("user_agent"))
            }
        }
    }

    /// Token uses one statement writes at most.
    static let usesPerStatement = 500

    /// Writes when each token was last used (never moving a time back), a statement and
    /// a transaction per ``usesPerStatement``. Ten thousand sockets connecting once made
    /// ten thousand round trips in one transaction; then twenty statements in one, which
    /// still held the writer long enough, every half minute, for the chat messages
    /// queued behind it to be refused as overload (a one-second cluster of refusals
    /// 30 s apart at 1,000 messages/s on both databases). Each transaction now takes
    /// its turn in the writer between others; last-use times are advisory, so one
    /// written without the rest is fine.
    func recordTokenUse(_ uses: [UUID: Date]) async throws {
        guard !uses.isEmpty else { return }
        // In one order everywhere: two instances flushing the same tokens lock their rows alike.
        for chunk in uses.sorted(by: { $0.key < $1.key }).chunks(of: Self.usesPerStatement) {
            try await database.transaction { sql in
                // PostgreSQL types the values by casts (a VALUES list has no column to take them from).
                let (uuid, time): (SQLQueryString, SQLQueryString) = sql.isPostgres ? ("::uuid", "::timestamptz") : ("", "")
                let values = chunk.map { id, at in "(\(bind: id)" + uuid + ", \(bind: at)" + time + ")" as SQLQueryString }
                try await sql.raw(
                    """
                    WITH used (id, at) AS (VALUES \(values.joined(separator: ", ")))
                    UPDATE access_tokens SET last_used_at = used.at FROM used
                    WHERE access_tokens.id = used.id AND (access_tokens.last_used_at IS NULL OR access_tokens.last_used_at < used.at)
                    """
                ).run()
            }
        }
    }

    /// Revokes the user's live tokens beyond the newest `keep` (the oldest end
    /// first); returns the ids revoked.
    func revokeTokensBeyond(_ keep: Int, of userID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        let live = try await sql.raw(
            """
            SELECT id FROM access_tokens WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
            ORDER BY created_at DESC, id DESC
            """
        ).all().map { try $0.value("id", as: UUID.self) }
        let excess = Array(live.dropFirst(keep))
        guard !excess.isEmpty else { return [] }
        try await sql.raw("UPDATE access_tokens SET revoked_at = \(bind: now) WHERE id IN (\(binds: excess))").run()
        try await deleteDevices(sessions: excess, on: sql)
        return excess
    }

    /// Revokes every live token of the user but `except`; returns the ids revoked.
    func revokeTokens(of userID: UUID, except: UUID?, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        let ids = try await sql.raw(
            """
            UPDATE access_tokens SET revoked_at = \(bind: now)
            WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now) AND id <> \(bind: except ?? UUID())
            RETURNING id
            """
        ).all().map { try $0.value("id", as: UUID.self) }
        try await deleteDevices(sessions: ids, on: sql)
        return ids
    }

    /// Device registrations made by these sessions stop receiving pushes with them.
    func deleteDevices(sessions: [UUID], on sql: any SQLDatabase) async throws {
        guard !sessions.isEmpty else { return }
        try await sql.raw("DELETE FROM devices WHERE session_id IN (\(binds: sessions))").run()
    }

    /// When a session began, if it is live (its row locked for the rest of the transaction).
    func lockLiveSessionStart(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Date? {
        try await sql.raw(
            """
            UPDATE access_tokens SET revoked_at = revoked_at WHERE id = \(bind: id) AND revoked_at IS NULL AND expires_at > \(bind: now) RETURNING created_at
            """
        ).first()?.value("created_at", as: Date.self)
    }

    /// Whether a session is live, locking its row for the rest of the transaction.
    func lockLiveSession(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await lockLiveSessionStart(id, at: now, on: sql) != nil
    }

    /// Which of the sessions are over (revoked or expired, or none such) at `now`: a
    /// read for each ``Store/idsPerRead``.
    func endedSessions(among ids: [UUID], at now: Date) async throws -> Set<UUID> {
        var ended: Set<UUID> = []
        for chunk in Array(Set(ids)).chunks(of: Self.idsPerRead) {
            let live = try await database.read { sql in
                Set(
                    try await sql.raw(
                        """
                        SELECT id FROM access_tokens WHERE id IN (\(binds: Array(chunk))) AND revoked_at IS NULL AND expires_at > \(bind: now)
                        """
                    ).all().map { try $0.value("id", as: UUID.self) })
            }
            ended.formUnion(Set(chunk).subtracting(live))
        }
        return ended
    }
}

import Foundation
import SQLKit

/// Users, their favourite sports, access tokens and login failures.
struct AccountStore: Sendable {
    let database: Database

    struct Credentials: Sendable {
        var userID: UUID
        /// `nil`: the account has no password (it signs in with a provider).
        var passwordHash: String?
    }

    struct TokenRecord: Sendable {
        var id: UUID
        var userID: UUID
        var expiresAt: Date
        var revokedAt: Date?
    }

    typealias Session = SessionInfo

    // MARK: Users

    /// `passwordHash` empty: no password opens the account. `normalizedEmail` is
    /// `none:<id>` for an account with no email.
    func insertUser(_ user: User, passwordHash: String, normalizedEmail: String, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            INSERT INTO users (id, email, email_normalized, email_verified, name, password_hash, bio, discoverable, version, created_at, updated_at)
            VALUES (\(bind: user.id), \(bind: user.email), \(bind: normalizedEmail), \(bind: user.emailVerified), \(bind: user.name), \(bind: passwordHash),
                    '', \(bind: false), 1, \(bind: user.createdAt), \(bind: user.createdAt))
            """).run()
    }

    /// The live account with this email: its id, the email as written, and whether it is verified.
    func account(normalizedEmail: String, on sql: any SQLDatabase) async throws -> (id: UUID, email: String, emailVerified: Bool)? {
        guard let row = try await sql.raw("SELECT id, email, email_verified FROM users WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL").first() else { return nil }
        return (try row.value("id"), try row.value("email"), try row.value("email_verified"))
    }

    /// After a code sent to the address came back: the email is verified, and with a
    /// new password (a reset) the password is that one.
    func confirmEmail(of userID: UUID, newPasswordHash: String?, at now: Date, on sql: any SQLDatabase) async throws {
        let password: SQLQueryString = newPasswordHash.map { ", password_hash = \(bind: $0)" } ?? ""
        try await sql.raw("""
            UPDATE users SET email_verified = \(bind: true), updated_at = \(bind: now), version = version + 1\(password)
            WHERE id = \(bind: userID) AND deleted_at IS NULL
            """).run()
    }

    /// Whether a password opens the account.
    func hasPassword(_ userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT password_hash FROM users WHERE id = \(bind: userID)").first()?.value("password_hash", as: String.self).isEmpty == false
    }

    func credentials(normalizedEmail: String) async throws -> Credentials? {
        try await database.read { sql in
            guard let row = try await sql.raw("SELECT id, password_hash FROM users WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL").first() else { return nil }
            let hash: String = try row.value("password_hash")
            return Credentials(userID: try row.value("id"), passwordHash: hash.isEmpty ? nil : hash)
        }
    }

    func emailExists(_ normalizedEmail: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM users WHERE email_normalized = \(bind: normalizedEmail)").first() != nil
    }

    static let userColumns = "id, name, email, email_verified, bio, photo_id, photo_variants, lat, lon, discoverable, created_at, version, deleted_at"

    static func decodeUser(_ row: any SQLRow, sports: [String]) throws -> User {
        let lat: Double? = try row.optional("lat"), lon: Double? = try row.optional("lon")
        return User(
            id: try row.value("id"), name: try row.value("name"), email: try row.value("email"), bio: try row.value("bio"),
            photo: MediaRef(id: try row.optional("photo_id"), stored: try row.optional("photo_variants")), sports: sports,
            location: lat.flatMap { la in lon.map { Coordinate(lat: la, lon: $0) } },
            discoverable: try row.value("discoverable"), createdAt: try row.value("created_at"), version: try row.value("version"),
            isDeleted: try row.optional("deleted_at", as: Date.self) != nil, emailVerified: try row.value("email_verified")
        )
    }

    func user(_ id: UUID, on sql: any SQLDatabase) async throws -> User? {
        guard let row = try await sql.raw("SELECT \(unsafeRaw: Self.userColumns) FROM users WHERE id = \(bind: id)").first() else { return nil }
        return try Self.decodeUser(row, sports: try await sports(of: id, on: sql))
    }

    func user(_ id: UUID) async throws -> User? {
        try await database.read { sql in try await user(id, on: sql) }
    }

    func sports(of userID: UUID, on sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT sport_slug FROM user_sports WHERE user_id = \(bind: userID) ORDER BY sport_slug").all().map { try $0.value("sport_slug") }
    }

    func names(of ids: [UUID]) async throws -> [UUID: String] {
        try await database.read { sql in try await names(of: ids, on: sql) }
    }

    func names(of ids: [UUID], on sql: any SQLDatabase) async throws -> [UUID: String] {
        guard !ids.isEmpty else { return [:] }
        var out: [UUID: String] = [:]
        for row in try await sql.raw("SELECT id, name FROM users WHERE id IN (\(binds: Array(Set(ids))))").all() {
            out[try row.value("id")] = try row.value("name")
        }
        return out
    }

    struct ProfileChanges: Sendable {
        var name: String?
        var bio: String?
        var photo: Patch<MediaRef> = .absent
        var sports: [String]?
        var location: Patch<Coordinate> = .absent
        var discoverable: Bool?
    }

    func update(_ id: UUID, _ changes: ProfileChanges, at now: Date, on sql: any SQLDatabase) async throws {
        var assignments: [SQLQueryString] = ["updated_at = \(bind: now)", "version = version + 1"]
        if let name = changes.name { assignments.append("name = \(bind: name)") }
        if let bio = changes.bio { assignments.append("bio = \(bind: bio)") }
        switch changes.photo {
        case .absent: break
        case .null: assignments.append("photo_id = NULL, photo_variants = NULL")
        case .value(let photo): assignments.append("photo_id = \(bind: photo.id), photo_variants = \(bind: photo.stored)")
        }
        switch changes.location {
        case .absent: break
        case .null: assignments.append("lat = NULL, lon = NULL")
        case .value(let c): assignments.append("lat = \(bind: c.lat), lon = \(bind: c.lon)")
        }
        if let discoverable = changes.discoverable { assignments.append("discoverable = \(bind: discoverable)") }
        guard try await sql.raw("UPDATE users SET \(assignments.joined(separator: ", ")) WHERE id = \(bind: id) AND deleted_at IS NULL RETURNING id").first() != nil else {
            throw DomainError.notFound("user")
        }
        if let sports = changes.sports {
            try await sql.raw("DELETE FROM user_sports WHERE user_id = \(bind: id)").run()
            for slug in Set(sports) {
                try await sql.raw("INSERT INTO user_sports (user_id, sport_slug) VALUES (\(bind: id), \(bind: slug))").run()
            }
        }
    }

    // MARK: Tokens

    func insertToken(id: UUID, userID: UUID, hash: String, userAgent: String?, createdAt: Date, expiresAt: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            INSERT INTO access_tokens (id, user_id, token_hash, user_agent, created_at, expires_at)
            VALUES (\(bind: id), \(bind: userID), \(bind: hash), \(bind: userAgent), \(bind: createdAt), \(bind: expiresAt))
            """).run()
    }

    func token(hash: String) async throws -> TokenRecord? {
        try await database.read { sql in
            guard let row = try await sql.raw("SELECT id, user_id, expires_at, revoked_at FROM access_tokens WHERE token_hash = \(bind: hash)").first() else { return nil }
            return TokenRecord(id: try row.value("id"), userID: try row.value("user_id"), expiresAt: try row.value("expires_at"), revokedAt: try row.optional("revoked_at"))
        }
    }

    /// Revokes one of the user's live tokens; `false` if there is no such live token.
    func revokeToken(_ id: UUID, of userID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        let rows = try await sql.raw("""
            UPDATE access_tokens SET revoked_at = \(bind: now)
            WHERE id = \(bind: id) AND user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
            RETURNING id
            """).all()
        return !rows.isEmpty
    }

    func sessions(of userID: UUID, at now: Date) async throws -> [Session] {
        try await database.read { sql in
            try await sql.raw("""
                SELECT id, created_at, expires_at, last_used_at, user_agent FROM access_tokens
                WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
                ORDER BY created_at DESC, id
                """).all().map { row in
                Session(id: try row.value("id"), createdAt: try row.value("created_at"), expiresAt: try row.value("expires_at"),
                        lastUsedAt: try row.optional("last_used_at"), userAgent: try row.optional("user_agent"))
            }
        }
    }

    func recordTokenUse(_ uses: [UUID: Date]) async throws {
        guard !uses.isEmpty else { return }
        try await database.transaction { sql in
            for (id, at) in uses {
                try await sql.raw("UPDATE access_tokens SET last_used_at = \(bind: at) WHERE id = \(bind: id) AND (last_used_at IS NULL OR last_used_at < \(bind: at))").run()
            }
        }
    }

    /// Revokes the user's live tokens beyond the newest `keep` (the oldest end
    /// first); returns the ids revoked.
    func revokeTokensBeyond(_ keep: Int, of userID: UUID, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        let live = try await sql.raw("""
            SELECT id FROM access_tokens WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
            ORDER BY created_at DESC, id DESC
            """).all().map { try $0.value("id", as: UUID.self) }
        let excess = Array(live.dropFirst(keep))
        guard !excess.isEmpty else { return [] }
        try await sql.raw("UPDATE access_tokens SET revoked_at = \(bind: now) WHERE id IN (\(binds: excess))").run()
        try await deleteDevices(sessions: excess, on: sql)
        return excess
    }

    /// Revokes every live token of the user but `except`; returns the ids revoked.
    func revokeTokens(of userID: UUID, except: UUID?, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        let ids = try await sql.raw("""
            UPDATE access_tokens SET revoked_at = \(bind: now)
            WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now) AND id <> \(bind: except ?? UUID())
            RETURNING id
            """).all().map { try $0.value("id", as: UUID.self) }
        try await deleteDevices(sessions: ids, on: sql)
        return ids
    }

    /// Device registrations made by these sessions stop receiving pushes with them.
    func deleteDevices(sessions: [UUID], on sql: any SQLDatabase) async throws {
        guard !sessions.isEmpty else { return }
        try await sql.raw("DELETE FROM devices WHERE session_id IN (\(binds: sessions))").run()
    }

    // MARK: Passwords and deletion

    /// Locks the row of a user not deleted, for the rest of the transaction (login,
    /// password change and deletion each take it first, so they happen one after
    /// the other); `false` if the account is deleted or unknown.
    func lockLive(_ userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("UPDATE users SET version = version WHERE id = \(bind: userID) AND deleted_at IS NULL RETURNING id").first() != nil
    }

    /// When a session began, if it is live (its row locked for the rest of the transaction).
    func lockLiveSessionStart(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Date? {
        try await sql.raw("""
            UPDATE access_tokens SET revoked_at = revoked_at WHERE id = \(bind: id) AND revoked_at IS NULL AND expires_at > \(bind: now) RETURNING created_at
            """).first()?.value("created_at", as: Date.self)
    }

    /// Whether a session is live, locking its row for the rest of the transaction.
    func lockLiveSession(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await lockLiveSessionStart(id, at: now, on: sql) != nil
    }

    /// Whether each session is over (revoked or expired) at `now`; for sockets after a missed bus message.
    func endedSessions(among ids: [UUID], at now: Date) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        return try await database.read { sql in
            let live = Set(try await sql.raw("""
                SELECT id FROM access_tokens WHERE id IN (\(binds: ids)) AND revoked_at IS NULL AND expires_at > \(bind: now)
                """).all().map { try $0.value("id", as: UUID.self) })
            return Set(ids).subtracting(live)
        }
    }

    func passwordHash(of userID: UUID) async throws -> String? {
        try await database.read { sql in
            try await sql.raw("SELECT password_hash FROM users WHERE id = \(bind: userID) AND deleted_at IS NULL").first()?.value("password_hash", as: String.self)
        }
    }

    /// Sets the password if it is still the one the caller checked; `false` otherwise
    /// (it changed meanwhile, or the account was deleted).
    func setPassword(of userID: UUID, from old: String, to hash: String, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("""
            UPDATE users SET password_hash = \(bind: hash), updated_at = \(bind: now)
            WHERE id = \(bind: userID) AND password_hash = \(bind: old) AND deleted_at IS NULL RETURNING id
            """).first() != nil
    }

    /// Erases what is personal in an account and keeps its row, so that chat
    /// messages stay, from "Deleted user": no email, password, bio, photo,
    /// location, sports, devices, invitations, blocks, notifications or
    /// presence (sessions and attendances are ended by the caller).
    func erase(_ userID: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        if let email = try await sql.raw("SELECT email_normalized FROM users WHERE id = \(bind: userID)").first()?.value("email_normalized", as: String.self) {
            try await sql.raw("DELETE FROM login_failures WHERE subject = \(bind: "account:" + email)").run()
        }
        try await sql.raw("""
            UPDATE users SET name = \(bind: Self.deletedName), email = '', email_verified = \(bind: false), email_normalized = \(bind: "deleted:" + userID.lowercased),
                password_hash = '', bio = '', photo_id = NULL, photo_variants = NULL, lat = NULL, lon = NULL, discoverable = \(bind: false),
                deleted_at = \(bind: now), updated_at = \(bind: now), version = version + 1
            WHERE id = \(bind: userID)
            """).run()
        for statement: SQLQueryString in [
            "DELETE FROM user_sports WHERE user_id = \(bind: userID)",
            "DELETE FROM identities WHERE user_id = \(bind: userID)",
            "DELETE FROM email_codes WHERE user_id = \(bind: userID)",
            "DELETE FROM devices WHERE user_id = \(bind: userID)",
            "DELETE FROM invitations WHERE invitee_id = \(bind: userID) OR inviter_id = \(bind: userID)",
            "DELETE FROM blocks WHERE blocker_id = \(bind: userID) OR blocked_id = \(bind: userID)",
            "DELETE FROM notifications WHERE user_id = \(bind: userID)",
            "DELETE FROM chat_reads WHERE user_id = \(bind: userID)",
            "DELETE FROM chat_presence WHERE user_id = \(bind: userID)",
            "UPDATE access_tokens SET user_agent = NULL WHERE user_id = \(bind: userID)",
        ] {
            try await sql.raw(statement).run()
        }
    }

    /// The name a deleted account's messages show.
    static let deletedName = "Deleted user"

    // MARK: Login attempts

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
            let row = try await sql.raw("""
                SELECT COUNT(*) AS n, MIN(failed_at) AS oldest,
                       SUM(CASE WHEN settled THEN 1 ELSE 0 END) AS settled, MIN(CASE WHEN settled THEN failed_at END) AS oldest_settled
                FROM login_failures WHERE subject = \(bind: subject) AND failed_at > \(bind: since)
                """).first()
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

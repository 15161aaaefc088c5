import Foundation
import SQLKit

/// Accounts: the `users` table (profiles, emails, password hashes, deletion) and
/// each user's favourite sports. Sessions are ``SessionStore``'s, sign-in attempts
/// ``AttemptStore``'s.
struct AccountStore: Store {
    let database: Database

    struct Credentials: Sendable {
        var userID: UUID
        /// `nil`: the account has no password (it signs in with a provider).
        var passwordHash: String?
    }

    // MARK: Users

    /// `passwordHash` empty: no password opens the account. `normalizedEmail` is
    /// `none:<id>` for an account with no email.
    func insertUser(_ user: User, passwordHash: String, normalizedEmail: String, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO users (id, email, email_normalized, email_verified, name, password_hash, bio, discoverable, version, created_at, updated_at)
            VALUES (\(bind: user.id), \(bind: user.email), \(bind: normalizedEmail), \(bind: user.emailVerified), \(bind: user.name), \(bind: passwordHash),
                    '', \(bind: false), 1, \(bind: user.createdAt), \(bind: user.createdAt))
            """
        ).run()
        try await recordName(user.name, of: user.id, at: user.createdAt, on: sql)
    }

    /// Flags a name that mixes look-alike scripts inside a word for moderators
    /// (``LookAlikeScripts``), or clears the flag of one that no longer does.
    private func recordName(_ name: String, of userID: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        guard let scripts = LookAlikeScripts.mixed(in: name) else {
            try await sql.raw("DELETE FROM name_flags WHERE user_id = \(bind: userID)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO name_flags (user_id, name, scripts, flagged_at) VALUES (\(bind: userID), \(bind: name), \(bind: scripts.map(\.rawValue).joined(separator: "+")), \(bind: now))
            ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, scripts = excluded.scripts, flagged_at = excluded.flagged_at
            """
        ).run()
    }

    /// Names flagged for moderators, oldest first.
    func flaggedNames(limit: Int) async throws -> [(userID: UUID, name: String, scripts: String, flaggedAt: Date)] {
        try await database.read { sql in
            try await sql.raw("SELECT user_id, name, scripts, flagged_at FROM name_flags ORDER BY flagged_at, user_id LIMIT \(bind: limit)")
                .all().map {
                    (try $0.value("user_id"), try $0.value("name"), try $0.value("scripts"), try $0.value("flagged_at"))
                }
        }
    }

    /// The live account with this email: its id, the email as written, whether it is
    /// verified, and the language it is written to in.
    func account(normalizedEmail: String, on sql: any SQLDatabase) async throws -> (
        id: UUID, email: String, emailVerified: Bool, language: Language
    )? {
        guard
            let row = try await sql.raw(
                """
                SELECT id, email, email_verified, language FROM users
                WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL
                """
            ).first()
        else { return nil }
        return (
            try row.value("id"), try row.value("email"), try row.value("email_verified"),
            Language(rawValue: try row.value("language")) ?? .en
        )
    }

    /// The language each of `users` is written to in (English for an id not found).
    func languages(of users: [UUID], on sql: any SQLDatabase) async throws -> [UUID: Language] {
        guard !users.isEmpty else { return [:] }
        var languages: [UUID: Language] = [:]
        for chunk in users.chunks(of: 500) {
            let rows = try await sql.raw("SELECT id, language FROM users WHERE id IN (\(binds: Array(chunk)))").all()
            for row in rows { languages[try row.value("id")] = Language(rawValue: try row.value("language")) ?? .en }
        }
        return languages
    }

    /// After a code sent to the address came back: the email is verified, and with a
    /// new password (a reset) the password is that one.
    func confirmEmail(of userID: UUID, newPasswordHash: String?, at now: Date, on sql: any SQLDatabase) async throws {
        let password: SQLQueryString = newPasswordHash.map { ", password_hash = \(bind: $0)" } ?? ""
        try await sql.raw(
            """
            UPDATE users SET email_verified = \(bind: true), updated_at = \(bind: now), version = version + 1\(password)
            WHERE id = \(bind: userID) AND deleted_at IS NULL
            """
        ).run()
    }

    /// Sets (or, nil, removes) the digest of the user's calendar feed secret.
    func setCalendarFeed(_ digest: String?, of userID: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET calendar_feed = \(bind: digest) WHERE id = \(bind: userID) AND deleted_at IS NULL").run()
    }

    /// The live account whose calendar feed has this digest.
    func calendarFeedOwner(_ digest: String) async throws -> (id: UUID, name: String)? {
        try await database.read { sql in
            guard
                let row = try await sql.raw("SELECT id, name FROM users WHERE calendar_feed = \(bind: digest) AND deleted_at IS NULL")
                    .first()
            else { return nil }
            return (try row.value("id"), try row.value("name"))
        }
    }

    /// Keeps the language texts are written to the user in (their requests' `Accept-Language`).
    func setLanguage(_ language: Language, of userID: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE users SET language = \(bind: language.rawValue) WHERE id = \(bind: userID) AND language <> \(bind: language.rawValue)"
        ).run()
    }

    /// Whether a password opens the account.
    func hasPassword(_ userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT password_hash FROM users WHERE id = \(bind: userID)").first()?.value("password_hash", as: String.self)
            .isEmpty == false
    }

    func credentials(normalizedEmail: String) async throws -> Credentials? {
        try await database.read { sql in
            guard
                let row = try await sql.raw(
                    "SELECT id, password_hash FROM users WHERE email_normalized = \(bind: normalizedEmail) AND deleted_at IS NULL"
                ).first()
            else { return nil }
            let hash: String = try row.value("password_hash")
            return Credentials(userID: try row.value("id"), passwordHash: hash.isEmpty ? nil : hash)
        }
    }

    func emailExists(_ normalizedEmail: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM users WHERE email_normalized = \(bind: normalizedEmail)").first() != nil
    }

    static let userColumns =
        "id, name, email, email_verified, bio, photo_id, photo_variants, lat, lon, discoverable, created_at, version, deleted_at, reminders, language, calendar_feed, limited_at, suspended_at, suspended_until"

    static func decodeUser(_ row: any SQLRow, sports: [String], levels: [String: Level] = [:]) throws -> User {
        let lat: Double? = try row.optional("lat")
        let lon: Double? = try row.optional("lon")
        return User(
            id: try row.value("id"), name: try row.value("name"), email: try row.value("email"), bio: try row.value("bio"),
            photo: MediaRef(id: try row.optional("photo_id"), stored: try row.optional("photo_variants")), sports: sports,
            location: lat.flatMap { la in lon.map { Coordinate(lat: la, lon: $0) } },
            discoverable: try row.value("discoverable"), createdAt: try row.value("created_at"), version: try row.value("version"),
            isDeleted: try row.optional("deleted_at", as: Date.self) != nil, emailVerified: try row.value("email_verified"),
            reminders: try row.value("reminders"), language: Language(rawValue: try row.value("language")) ?? .en,
            hasCalendarFeed: try row.optional("calendar_feed", as: String.self) != nil, levels: levels,
            limited: try row.optional("limited_at", as: Date.self) != nil, suspendedAt: try row.optional("suspended_at"),
            suspendedUntil: try row.optional("suspended_until")
        )
    }

    func user(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> User? {
        try await reading(on: sql) { [self] sql in
            guard let row = try await sql.raw("SELECT \(unsafeRaw: Self.userColumns) FROM users WHERE id = \(bind: id)").first() else {
                return nil
            }
            return try Self.decodeUser(
                row, sports: try await sports(of: id, on: sql), levels: try await PlayerStore.levels(of: [id], on: sql)[id] ?? [:])
        }
    }

    func sports(of userID: UUID, on sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT sport_slug FROM user_sports WHERE user_id = \(bind: userID) ORDER BY sport_slug").all().map {
            try $0.value("sport_slug")
        }
    }

    /// Users' names, by id: a read for each ``Store/idsPerRead``.
    func names(of ids: [UUID], on sql: (any SQLDatabase)? = nil) async throws -> [UUID: String] {
        var out: [UUID: String] = [:]
        for chunk in Array(Set(ids)).chunks(of: Self.idsPerRead) {
            let rows = try await reading(on: sql) { sql in
                try await sql.raw("SELECT id, name FROM users WHERE id IN (\(binds: Array(chunk)))").all()
                    .map { (try $0.value("id", as: UUID.self), try $0.value("name", as: String.self)) }
            }
            for (id, name) in rows { out[id] = name }
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
        var reminders: Bool?
        var language: Language?
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
        if let reminders = changes.reminders { assignments.append("reminders = \(bind: reminders)") }
        if let language = changes.language { assignments.append("language = \(bind: language.rawValue)") }
        guard
            try await sql.raw(
                "UPDATE users SET \(assignments.joined(separator: ", ")) WHERE id = \(bind: id) AND deleted_at IS NULL RETURNING id"
            ).first() != nil
        else {
            throw DomainError.notFound(.user)
        }
        if let name = changes.name { try await recordName(name, of: id, at: now, on: sql) }
        if let sports = changes.sports {
            try await sql.raw("DELETE FROM user_sports WHERE user_id = \(bind: id)").run()
            for slug in Set(sports) {
                try await sql.raw("INSERT INTO user_sports (user_id, sport_slug) VALUES (\(bind: id), \(bind: slug))").run()
            }
        }
    }

    // MARK: Passwords and deletion

    /// Locks the row of a user not deleted, for the rest of the transaction (login,
    /// password change and deletion each take it first, so they happen one after
    /// the other); `false` if the account is deleted or unknown.
    /// Whether staff limited the person.
    func isLimited(_ userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM users WHERE id = \(bind: userID) AND limited_at IS NOT NULL").first() != nil
    }

    func lockLive(_ userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("UPDATE users SET version = version WHERE id = \(bind: userID) AND deleted_at IS NULL RETURNING id").first()
            != nil
    }

    func passwordHash(of userID: UUID) async throws -> String? {
        try await database.read { sql in
            try await sql.raw("SELECT password_hash FROM users WHERE id = \(bind: userID) AND deleted_at IS NULL").first()?.value(
                "password_hash", as: String.self)
        }
    }

    /// Sets the password if it is still the one the caller checked; `false` otherwise
    /// (it changed meanwhile, or the account was deleted).
    func setPassword(of userID: UUID, from old: String, to hash: String, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE users SET password_hash = \(bind: hash), updated_at = \(bind: now)
            WHERE id = \(bind: userID) AND password_hash = \(bind: old) AND deleted_at IS NULL RETURNING id
            """
        ).first() != nil
    }

    /// Erases what is personal in an account and keeps its row, so that chat
    /// messages stay, from "Deleted user": no email, password, bio, photo,
    /// location, sports, devices, invitations, blocks, notifications or
    /// presence (sessions and attendances are ended by the caller).
    func erase(_ userID: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        if let email = try await sql.raw("SELECT email_normalized FROM users WHERE id = \(bind: userID)").first()?.value(
            "email_normalized", as: String.self)
        {
            try await sql.raw("DELETE FROM login_failures WHERE subject = \(bind: "account:" + email)").run()
        }
        // A copy of their data goes too: no link opens it after the account is gone.
        try await sql.raw("DELETE FROM data_exports WHERE user_id = \(bind: userID)").run()
        try await sql.raw(
            """
            UPDATE users SET name = \(bind: Self.deletedName), email = '', email_verified = \(bind: false), email_normalized = \(bind: "deleted:" + userID.lowercased),
                password_hash = '', bio = '', gender = NULL, photo_id = NULL, photo_variants = NULL, lat = NULL, lon = NULL, discoverable = \(bind: false),
                staff_role = NULL, deleted_at = \(bind: now), updated_at = \(bind: now), version = version + 1
            WHERE id = \(bind: userID)
            """
        ).run()
        for statement: SQLQueryString in [
            "DELETE FROM user_sports WHERE user_id = \(bind: userID)",
            "DELETE FROM identities WHERE user_id = \(bind: userID)",
            "DELETE FROM email_codes WHERE user_id = \(bind: userID)",
            "DELETE FROM devices WHERE user_id = \(bind: userID)",
            "DELETE FROM attendance_records WHERE user_id = \(bind: userID)",
            "DELETE FROM user_levels WHERE user_id = \(bind: userID)",
            "DELETE FROM invitations WHERE invitee_id = \(bind: userID) OR inviter_id = \(bind: userID)",
            "DELETE FROM blocks WHERE blocker_id = \(bind: userID) OR blocked_id = \(bind: userID)",
            "DELETE FROM event_bans WHERE user_id = \(bind: userID)",
            "DELETE FROM event_maybes WHERE user_id = \(bind: userID)",
            "DELETE FROM name_flags WHERE user_id = \(bind: userID)",
            "UPDATE users SET calendar_feed = NULL WHERE id = \(bind: userID)",
            "DELETE FROM known_sign_ins WHERE user_id = \(bind: userID)",
            "DELETE FROM notifications WHERE user_id = \(bind: userID)",
            "DELETE FROM chat_reads WHERE user_id = \(bind: userID)",
            "DELETE FROM chat_presence WHERE user_id = \(bind: userID)",
            // Their votes go; their open polls close (their jobs then do nothing).
            "DELETE FROM chat_poll_votes WHERE user_id = \(bind: userID)",
            """
            UPDATE chat_polls SET closed_at = \(bind: now) WHERE closed_at IS NULL AND EXISTS (
                SELECT 1 FROM chat_messages m WHERE m.room_id = chat_polls.room_id AND m.seq = chat_polls.seq AND m.sender_id = \(bind: userID))
            """,
            "UPDATE access_tokens SET user_agent = NULL WHERE user_id = \(bind: userID)",
        ] {
            try await sql.raw(statement).run()
        }
    }

    /// The name a deleted account's messages show.
    static let deletedName = "Deleted user"
}

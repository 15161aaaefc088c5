import Foundation
import SQLKit

/// Provider accounts linked to users, and the ID tokens already used.
struct IdentityStore: Store {
    let database: Database

    /// The user a provider account signs in as.
    func user(provider: IdentityProvider, subject: String, on sql: any SQLDatabase) async throws -> UUID? {
        try await sql.raw("SELECT user_id FROM identities WHERE provider = \(bind: provider.rawValue) AND subject = \(bind: subject)")
            .first()?.value("user_id", as: UUID.self)
    }

    func insert(_ identity: ProviderIdentity, userID: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO identities (provider, subject, user_id, email, created_at)
            VALUES (\(bind: identity.provider.rawValue), \(bind: identity.subject), \(bind: userID), \(bind: identity.email), \(bind: now))
            """
        ).run()
    }

    func identities(of userID: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [LinkedIdentity] {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT provider, email, created_at FROM identities WHERE user_id = \(bind: userID) ORDER BY provider").all()
                .compactMap(Self.decode)
        }
    }

    private static func decode(_ row: any SQLRow) throws -> LinkedIdentity? {
        guard let provider = IdentityProvider(rawValue: try row.value("provider")) else { return nil }
        return LinkedIdentity(provider: provider, email: try row.optional("email"), createdAt: try row.value("created_at"))
    }

    /// Removes the user's account with `provider`; `false` if there was none.
    /// Unlinks every provider account of a user.
    func deleteAll(of userID: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM identities WHERE user_id = \(bind: userID)").run()
    }

    func delete(_ provider: IdentityProvider, of userID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "DELETE FROM identities WHERE user_id = \(bind: userID) AND provider = \(bind: provider.rawValue) RETURNING subject"
        ).first() != nil
    }

    /// The user's account with `provider`, as linked (at most one per provider).
    func identity(of userID: UUID, provider: IdentityProvider, on sql: any SQLDatabase) async throws -> LinkedIdentity? {
        try await sql.raw(
            "SELECT provider, email, created_at FROM identities WHERE user_id = \(bind: userID) AND provider = \(bind: provider.rawValue)"
        )
        .first().flatMap(Self.decode)
    }

    /// Records a token (by its nonce, or itself) as used until `expiresAt`, and forgets
    /// those that expired; `false` when it was used before.
    func useToken(_ digest: String, expiresAt: Date, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("DELETE FROM used_tokens WHERE expires_at < \(bind: now)").run()
        return try await sql.raw(
            """
            INSERT INTO used_tokens (digest, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
            ON CONFLICT (digest) DO NOTHING RETURNING digest
            """
        ).first() != nil
    }
}

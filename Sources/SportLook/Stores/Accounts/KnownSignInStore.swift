import Foundation
import SQLKit

/// The devices and addresses each account has signed in from (`known_sign_ins`),
/// kept as digests.
struct KnownSignInStore: Store {
    let database: Database

    enum Kind: String, Sendable {
        case device, address
    }

    /// How many of each kind an account keeps; older ones are forgotten.
    static let keptPerKind = 20

    /// Records (or refreshes) a place the user signed in from, in the caller's transaction.
    func record(user: UUID, _ kind: Kind, digest: String, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO known_sign_ins (user_id, kind, digest, last_used_at) VALUES (\(bind: user), \(bind: kind.rawValue), \(bind: digest), \(bind: now))
            ON CONFLICT (user_id, kind, digest) DO UPDATE SET last_used_at = excluded.last_used_at
            """
        ).run()
        try await sql.raw(
            """
            DELETE FROM known_sign_ins WHERE user_id = \(bind: user) AND kind = \(bind: kind.rawValue) AND digest NOT IN (
                SELECT digest FROM known_sign_ins WHERE user_id = \(bind: user) AND kind = \(bind: kind.rawValue)
                ORDER BY last_used_at DESC, digest LIMIT \(bind: Self.keptPerKind))
            """
        ).run()
    }

    /// Whether any of `digests` (by kind) was used by the account with this email since `since`.
    func isKnown(normalizedEmail: String, _ digests: [(Kind, String)], since: Date) async throws -> Bool {
        try await !known(normalizedEmail: normalizedEmail, digests, since: since).isEmpty
    }

    /// The kinds among `digests` the account with this email used since `since`.
    func known(normalizedEmail: String, _ digests: [(Kind, String)], since: Date) async throws -> Set<Kind> {
        guard !digests.isEmpty else { return [] }
        return try await database.read { sql in
            let alternatives = SQLList(
                digests.map { kind, digest in
                    SQLQueryString("(k.kind = \(bind: kind.rawValue) AND k.digest = \(bind: digest))")
                }, separator: SQLRaw(" OR "))
            return Set(
                try await sql.raw(
                    """
                    SELECT DISTINCT k.kind FROM known_sign_ins k JOIN users u ON u.id = k.user_id
                    WHERE u.email_normalized = \(bind: normalizedEmail) AND u.deleted_at IS NULL AND k.last_used_at > \(bind: since) AND (\(alternatives))
                    """
                ).all().compactMap { Kind(rawValue: try $0.value("kind")) })
        }
    }

    /// Records (or refreshes) the network the user signed in from, in clear (an IPv4 /24,
    /// an IPv6 /48: what staff see of an account); the ``keptPerKind`` latest are kept.
    func record(user: UUID, network: String, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO sign_in_networks (user_id, network, last_used_at) VALUES (\(bind: user), \(bind: network), \(bind: now))
            ON CONFLICT (user_id, network) DO UPDATE SET last_used_at = excluded.last_used_at
            """
        ).run()
        try await sql.raw(
            """
            DELETE FROM sign_in_networks WHERE user_id = \(bind: user) AND network NOT IN (
                SELECT network FROM sign_in_networks WHERE user_id = \(bind: user) ORDER BY last_used_at DESC, network LIMIT \(bind: Self.keptPerKind))
            """
        ).run()
    }

    /// The networks the user signed in from, the latest first.
    func networks(of user: UUID, on sql: any SQLDatabase) async throws -> [(network: String, lastUsedAt: Date)] {
        try await sql.raw(
            "SELECT network, last_used_at FROM sign_in_networks WHERE user_id = \(bind: user) ORDER BY last_used_at DESC, network"
        ).all().map { (try $0.value("network"), try $0.value("last_used_at")) }
    }

    /// Forgets the account's devices, addresses and networks.
    func forget(user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM known_sign_ins WHERE user_id = \(bind: user)").run()
        try await sql.raw("DELETE FROM sign_in_networks WHERE user_id = \(bind: user)").run()
    }
}

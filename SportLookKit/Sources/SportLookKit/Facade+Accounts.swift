import Foundation
import SportLookAPI

/// The signed-in person's own account, as they see it.
public struct Profile: Hashable, Sendable, Identifiable {
    public var id: Person.ID
    public var name: String
    public var email: String
    public var emailVerified: Bool
    public var bio: String
    /// Whether others may find them nearby.
    public var discoverable: Bool
    /// `en` or `da`: the language of their notifications and mail.
    public var language: String
    public var createdAt: Date

    init(_ profile: Components.Schemas.PrivateProfile) throws {
        id = try .parse(profile.id)
        name = profile.name
        email = profile.email ?? ""
        emailVerified = profile.emailVerified
        bio = profile.bio
        discoverable = profile.discoverable
        language = profile.language.rawValue
        createdAt = profile.createdAt
    }
}

/// A signed-in session of the account (a device).
public struct SignedInSession: Hashable, Sendable, Identifiable {
    public typealias ID = Identifier<SignedInSession>
    public var id: ID
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var userAgent: String?
    /// The session this client uses.
    public var isCurrent: Bool
}

/// How reliably someone shows up: their games and how each ended, over the record's window.
public struct ReliabilityRecord: Hashable, Sendable {
    public var games: Int
    public var attended: Int
    public var noShows: Int
    public var lateCancellations: Int
    public var excused: Int
}

extension SportLookClient {
    /// Signing up, in and out, mailed codes.
    public var auth: Auth { Auth(client: self) }
    /// The signed-in person's own account.
    public var me: Me { Me(client: self) }

    /// Signing up, in and out, mailed codes (the token is kept in ``credentials``).
    public struct Auth: Sendable {
        let client: SportLookClient

        @discardableResult
        public func register(name: String, email: String, password: String) async throws -> SignIn {
            try await client.register(name: name, email: email, password: password)
        }

        @discardableResult
        public func logIn(email: String, password: String) async throws -> SignIn {
            try await client.logIn(email: email, password: password)
        }

        @discardableResult
        public func signIn(with provider: Provider, idToken: String, nonce: String? = nil, name: String? = nil) async throws -> SignIn {
            try await client.signIn(with: provider, idToken: idToken, nonce: nonce, name: name)
        }

        @discardableResult
        public func signIn(facebookAccessToken: String, name: String? = nil) async throws -> SignIn {
            try await client.signIn(facebookAccessToken: facebookAccessToken, name: name)
        }

        public func requestEmailVerification() async throws { try await client.requestEmailVerification() }

        public func verifyEmail(code: String) async throws { try await client.verifyEmail(code: code) }

        public func requestPasswordReset(email: String) async throws -> PasswordResetRequest {
            try await client.requestPasswordReset(email: email)
        }

        public func resetPassword(_ request: PasswordResetRequest, code: String, newPassword: String) async throws {
            try await client.resetPassword(request, code: code, newPassword: newPassword)
        }

        public func logOut() async throws { try await client.logOut() }
    }

    /// The signed-in person's own account.
    public struct Me: Sendable {
        let client: SportLookClient

        public func profile() async throws -> Profile {
            try Profile(try await client.call { try await $0.getMe().ok.body.json })
        }

        /// Changes what is given; the rest stays.
        @discardableResult
        public func update(name: String? = nil, bio: String? = nil, discoverable: Bool? = nil) async throws -> Profile {
            try Profile(
                try await client.call {
                    try await $0.updateMe(body: .json(.init(name: name, bio: bio, discoverable: discoverable))).ok.body.json
                })
        }

        /// Changes the password; the other sessions end.
        public func changePassword(current: String, new: String) async throws {
            _ = try await client.call {
                try await $0.changePassword(body: .json(.init(currentPassword: current, newPassword: new))).noContent
            }
        }

        /// The account's sessions, newest first.
        public func sessions() async throws -> [SignedInSession] {
            try await client.call { try await $0.listSessions().ok.body.json }.items.map {
                SignedInSession(
                    id: try .parse($0.id), createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, userAgent: $0.userAgent,
                    isCurrent: $0.current)
            }
        }

        /// Ends one session (a lost phone).
        public func endSession(_ id: SignedInSession.ID) async throws {
            _ = try await client.call { try await $0.revokeSession(path: .init(id: id.description)).noContent }
        }

        /// Ends every session but this one.
        public func endOtherSessions() async throws {
            _ = try await client.call { try await $0.revokeOtherSessions().noContent }
        }

        /// How reliably the signed-in person shows up.
        public func record() async throws -> ReliabilityRecord {
            let record = try await client.call { try await $0.myRecord().ok.body.json }
            return ReliabilityRecord(
                games: record.games, attended: record.attended, noShows: record.noShows, lateCancellations: record.lateCancellations,
                excused: record.excused)
        }

        /// Deletes the account and everything of it; the client is signed out.
        public func deleteAccount() async throws {
            _ = try await client.call { try await $0.deleteMe().noContent }
            await client.credentials.set(token: nil)
        }
    }
}

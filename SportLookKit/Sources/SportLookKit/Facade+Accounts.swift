import Foundation
internal import SportLookAPI

/// The signed-in person's own account, as they see it.
public struct Profile: Hashable, Sendable, Codable, Identifiable {
    public var id: Person.ID
    /// Their name, as others see it.
    public var name: String
    /// Their email (empty for an account made with a provider that gave none).
    public var email: String
    /// Whether the email was verified with a mailed code.
    public var emailVerified: Bool
    /// What they say about themselves.
    public var bio: String
    /// Whether others may find them nearby.
    public var discoverable: Bool
    /// `en` or `da`: the language of their notifications and mail.
    public var language: String
    /// When the account was made.
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
public struct SignedInSession: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<SignedInSession>
    public var id: ID
    /// When it was signed in.
    public var createdAt: Date
    /// When it was last used.
    public var lastUsedAt: Date?
    /// The app or browser it signed in with.
    public var userAgent: String?
    /// The session this client uses.
    public var isCurrent: Bool
}

/// How reliably someone shows up: their games and how each ended, over the record's window.
public struct ReliabilityRecord: Hashable, Sendable, Codable {
    /// Games counted (at most the last 20 over, of the last 365 days).
    public var games: Int
    /// Games they came to.
    public var attended: Int
    /// Games they did not come to.
    public var noShows: Int
    /// Games they left late.
    public var lateCancellations: Int
    /// Games they were excused from.
    public var excused: Int

    init(games: Int, attended: Int, noShows: Int, lateCancellations: Int, excused: Int) {
        self.games = games
        self.attended = attended
        self.noShows = noShows
        self.lateCancellations = lateCancellations
        self.excused = excused
    }

    init(_ record: Components.Schemas.RecordSummary) {
        self.init(
            games: record.games, attended: record.attended, noShows: record.noShows, lateCancellations: record.lateCancellations,
            excused: record.excused)
    }
}

extension SportLookClient {
    /// Signing up, in and out, mailed codes.
    public var auth: Auth { Auth(client: self) }
    /// The signed-in person's own account.
    public var me: Me { Me(client: self) }

    /// Signing up, in and out, mailed codes (the token is kept in ``credentials``).
    public struct Auth: Sendable {
        let client: SportLookClient

        /// Makes an account and signs in to it.
        @discardableResult
        public func register(name: String, email: String, password: String) async throws -> SignIn {
            try await client.register(name: name, email: email, password: password)
        }

        /// Signs in with email and password (this device's key is sent, so that strangers guessing the password elsewhere cannot lock it out).
        @discardableResult
        public func logIn(email: String, password: String) async throws -> SignIn {
            try await client.logIn(email: email, password: password)
        }

        /// Signs in with a provider's OpenID Connect ID token (Sign in with Apple, Google, Facebook Limited Login); the first sign-in makes the account.
        @discardableResult
        public func signIn(with provider: Provider, idToken: String, nonce: String? = nil, name: String? = nil) async throws -> SignIn {
            try await client.signIn(with: provider, idToken: idToken, nonce: nonce, name: name)
        }

        /// Signs in with a classic Facebook Login access token.
        @discardableResult
        public func signIn(facebookAccessToken: String, name: String? = nil) async throws -> SignIn {
            try await client.signIn(facebookAccessToken: facebookAccessToken, name: name)
        }

        /// Mails a code that verifies the signed-in account's email.
        public func requestEmailVerification() async throws { try await client.requestEmailVerification() }

        /// Verifies the signed-in account's email with the mailed code.
        public func verifyEmail(code: String) async throws { try await client.verifyEmail(code: code) }

        /// Mails a code that sets a new password (the answer is the same whether or not the email has an account).
        public func requestPasswordReset(email: String) async throws -> PasswordResetRequest {
            try await client.requestPasswordReset(email: email)
        }

        /// Sets a new password with the mailed code; every session of the account ends (sign in again).
        public func resetPassword(_ request: PasswordResetRequest, code: String, newPassword: String) async throws {
            try await client.resetPassword(request, code: code, newPassword: newPassword)
        }

        /// Ends this session on the server and forgets the token (the device key stays).
        public func logOut() async throws { try await client.logOut() }
    }

    /// The signed-in person's own account.
    public struct Me: Sendable {
        let client: SportLookClient

        /// The signed-in person's account.
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

import Crypto
import Foundation

/// Sign-in with Apple, Google and Facebook, and the provider accounts linked to a user.
extension AccountService {
    /// What a client sends to sign in, or to link, with a provider.
    struct ProviderCredential: Decodable, Sendable {
        var provider: String?
        /// An OpenID Connect ID token (Apple, Google, Facebook Limited Login).
        var idToken: String?
        /// A classic Facebook Login access token.
        var accessToken: String?
        /// The nonce the client had the provider put in the ID token.
        var nonce: String?
        /// The name to give a new account (Apple tells the app, not the token, once).
        var name: String?
    }

    struct ProviderSignIn: Sendable {
        var issued: Issued
        /// The sign-in made a new account.
        var created: Bool
    }

    /// Signs in with a provider: the provider account's user, or a new account; an
    /// account with the same email is joined only when both sides' emails are verified
    /// (409 `account_exists` otherwise: sign in there and link from the session).
    func signIn(with credential: ProviderCredential, address: String?, userAgent: String?) async throws -> ProviderSignIn {
        var v = Validator()
        let name = credential.name.flatMap { v.name($0) }
        try v.throwIfInvalid()
        let verified = try await verify(credential, address: address)
        let now = clock.now()
        let signedIn: ProviderSignIn?
        do {
            signedIn = try await signIn(verified, name: name, userAgent: userAgent, address: address, at: now)
        } catch  where Database.isUniqueViolation(error) {
            // A first sign-in of the same person (or email) at the same moment made the
            // account: this one now finds it (and a token used meanwhile is refused).
            signedIn = try await signIn(verified, name: name, userAgent: userAgent, address: address, at: now)
        }
        guard let signedIn else { throw DomainError.invalidCredentials }
        remember(signedIn.issued)
        return signedIn
    }

    private func signIn(_ verified: VerifiedCredential, name: String?, userAgent: String?, address: String?, at now: Date) async throws
        -> ProviderSignIn?
    {
        let replayKey = verified.replayKey
        let identity = verified.identity
        let (issued, created): (Issued?, Bool) = try await write { [accounts, identities] sql, changes in
            try await use(replayKey, until: identity.expiresAt, at: now, on: sql)
            if let linked = try await identities.user(provider: identity.provider, subject: identity.subject, on: sql) {
                guard try await accounts.lockLive(linked, on: sql) else { throw DomainError.invalidCredentials }
                return (
                    try await openSession(for: linked, userAgent: userAgent, address: address, at: now, on: sql, changes: &changes), false
                )
            }
            // `check` kept the email only if it is one.
            let email = identity.email
            let normalized = email.map(Self.normalize(email:))
            if let normalized, let existing = try await accounts.account(normalizedEmail: normalized, on: sql) {
                guard identity.emailVerified && existing.emailVerified else {
                    throw DomainError.conflict(
                        "account_exists",
                        Sentence(
                            "An account already uses this email. Sign in to it and link \(identity.provider.rawValue) from there (POST /v1/me/identities)."
                        )
                    )
                }
                guard try await accounts.lockLive(existing.id, on: sql) else { throw DomainError.invalidCredentials }
                // The account has another account of this provider (a person deleted and made again there).
                guard try await identities.identity(of: existing.id, provider: identity.provider, on: sql) == nil else {
                    throw DomainError.conflict(
                        "account_exists",
                        Sentence("An account already uses this email and has another \(identity.provider.rawValue) account linked.")
                    )
                }
                try await identities.insert(identity, userID: existing.id, at: now, on: sql)
                return (
                    try await openSession(for: existing.id, userAgent: userAgent, address: address, at: now, on: sql, changes: &changes),
                    false
                )
            }
            // A new account: the provider's email only when it vouches for it.
            let id = UUID()
            let kept = identity.emailVerified ? email : nil
            try await abuse?.check(registrationFrom: address, email: email ?? "", on: sql)
            let user = User(
                id: id, name: name ?? Self.newAccountName(identity, email: kept), email: kept ?? "", bio: "", photo: nil, sports: [],
                location: nil, discoverable: false, createdAt: now, emailVerified: kept != nil)
            try await accounts.insertUser(
                user, passwordHash: "", normalizedEmail: kept.map(Self.normalize(email:)) ?? "none:" + id.lowercased, on: sql)
            try await identities.insert(identity, userID: id, at: now, on: sql)
            try await abuse?.registered(from: address, on: sql)
            return (try await openSession(for: id, userAgent: userAgent, address: address, at: now, on: sql, changes: &changes), true)
        }
        return issued.map { ProviderSignIn(issued: $0, created: created) }
    }

    /// Links a provider account to the caller; `true` when it is new (the same account
    /// linked again changes nothing). Only from a session begun in the last
    /// ``recentSession`` (a stolen old token cannot give its thief a way in for ever).
    func link(_ credential: ProviderCredential, to caller: Identity, address: String?) async throws -> (LinkedIdentity, created: Bool) {
        let verified = try await verify(credential, address: address)
        let now = clock.now()
        do {
            return try await link(verified, to: caller, at: now)
        } catch  where Database.isUniqueViolation(error) {
            throw DomainError.conflict(
                "identity_taken",
                Sentence("This \(verified.identity.provider.rawValue) account was just linked to another SportLook account."))
        }
    }

    /// How recent a session must be to link or remove a provider account.
    static let recentSession: TimeInterval = 15 * 60

    private func requireRecent(_ caller: Identity, at now: Date, on sql: DatabaseSession) async throws {
        guard let began = try await sessions.lockLiveSessionStart(caller.tokenID, at: now, on: sql) else { throw DomainError.unauthorized }
        guard now.timeIntervalSince(began) <= Self.recentSession else {
            throw DomainError(
                .forbidden, code: "reauthentication_required",
                message: Sentence("Sign in again (within 15 minutes) to change how this account signs in."))
        }
        guard try await accounts.lockLive(caller.userID, on: sql) else { throw DomainError.unauthorized }
    }

    private func link(_ verified: VerifiedCredential, to caller: Identity, at now: Date) async throws -> (LinkedIdentity, created: Bool) {
        try await write { [identities] sql, _ in
            let identity = verified.identity
            try await requireRecent(caller, at: now, on: sql)
            if let owner = try await identities.user(provider: identity.provider, subject: identity.subject, on: sql) {
                guard owner == caller.userID else {
                    throw DomainError.conflict(
                        "identity_taken", Sentence("This \(identity.provider.rawValue) account signs in to another SportLook account."))
                }
                guard let linked = try await identities.identity(of: caller.userID, provider: identity.provider, on: sql) else {
                    throw DomainError.notFound(.linkedAccount)
                }
                return (linked, false)
            }
            if try await identities.identity(of: caller.userID, provider: identity.provider, on: sql) != nil {
                throw DomainError.conflict(
                    "provider_linked", Sentence("Another \(identity.provider.rawValue) account is linked already; remove it first."))
            }
            try await use(verified.replayKey, until: identity.expiresAt, at: now, on: sql)
            try await identities.insert(identity, userID: caller.userID, at: now, on: sql)
            return (LinkedIdentity(provider: identity.provider, email: identity.email, createdAt: now), true)
        }
    }

    func linkedIdentities(of userID: UUID) async throws -> [LinkedIdentity] {
        try await identities.identities(of: userID)
    }

    /// Removes a linked provider account; refused for the last way to sign in.
    func unlink(_ providerName: String, from caller: Identity) async throws {
        guard let provider = IdentityProvider(rawValue: providerName) else { throw DomainError.notFound(.linkedAccount) }
        let now = clock.now()
        try await write { [accounts, identities] sql, _ in
            try await requireRecent(caller, at: now, on: sql)
            let linked = try await identities.identities(of: caller.userID, on: sql)
            guard linked.contains(where: { $0.provider == provider }) else { throw DomainError.notFound(.linkedAccount) }
            let hasPassword = try await accounts.hasPassword(caller.userID, on: sql)
            guard linked.count > 1 || hasPassword else {
                throw DomainError.conflict(
                    "last_sign_in_method", Sentence("This is the only way to sign in to the account; link another provider first."))
            }
            _ = try await identities.delete(provider, of: caller.userID, on: sql)
        }
    }

    /// A checked credential: who it names, and what marks it used (an ID token's nonce,
    /// or the token itself; none for a classic Facebook access token, which is meant
    /// to be used many times).
    struct VerifiedCredential: Sendable {
        var identity: ProviderIdentity
        var replayKey: String?
    }

    /// The person the credential names, after every check (401 otherwise). Refused
    /// credentials count against the address like failed logins (`LOGIN_MAX_FAILURES` in
    /// `LOGIN_WINDOW`, then 429): each costs the provider a look (keys, Graph API).
    private func verify(_ credential: ProviderCredential, address: String?) async throws -> VerifiedCredential {
        var v = Validator()
        var provider: IdentityProvider?
        if let name = credential.provider {
            provider = IdentityProvider(rawValue: name)
            if provider == nil { v.fail("provider", Sentence("must be apple, google or facebook")) }
        } else {
            v.fail("provider", Sentence("is required"))
        }
        switch (credential.idToken, credential.accessToken) {
        case (nil, nil): v.fail("id_token", Sentence("is required (or access_token, for classic Facebook Login)"))
        case (.some, .some): v.fail("access_token", Sentence("send either id_token or access_token, not both"))
        case (nil, .some) where provider != nil && provider != .facebook:
            v.fail("access_token", Sentence("is for Facebook only; send the id_token"))
        default: break
        }
        if let nonce = credential.nonce, nonce.isEmpty || nonce.utf8.count > 512 { v.fail("nonce", Sentence("must be 1 to 512 bytes")) }
        try v.throwIfInvalid()
        guard let provider else { throw DomainError.validation(v.fields) }
        let enabled = credential.idToken != nil ? verifier.enabled.contains(provider) : verifier.acceptsFacebookAccessTokens
        guard enabled else {
            throw DomainError(
                .invalid, code: "provider_not_enabled",
                message: Sentence("Sign-in with \(provider.rawValue) is not enabled on this server."),
                fields: ["provider": Sentence("is not enabled")])
        }
        guard let address else { return try await check(credential, from: provider) }
        let subjects = ["provider:" + address]
        try throttle.refuseIfRemembered(subjects)
        let (attempt, outcome) = try await throttle.attempt(subjects) { () async throws -> Result<VerifiedCredential, DomainError> in
            do {
                return .success(try await check(credential, from: provider))
            } catch let refusal as DomainError where refusal.kind == .rejectedCredentials {
                return .failure(refusal)
            }
        }
        switch outcome {
        case .success(let verified):
            try await throttle.release(attempt, subjects: subjects)
            return verified
        case .failure(let refusal):
            try await throttle.settle(attempt)
            throw refusal
        }
    }

    /// The provider's checks, then the nonce's.
    private func check(_ credential: ProviderCredential, from provider: IdentityProvider) async throws -> VerifiedCredential {
        var identity: ProviderIdentity
        do {
            if let token = credential.idToken {
                identity = try await verifier.verify(idToken: token, from: provider)
            } else {
                identity = try await verifier.verify(facebookAccessToken: credential.accessToken ?? "")
            }
        } catch let problem as IdentityTokenProblem {
            switch problem {
            case .invalid(let reason):
                throw DomainError(
                    .rejectedCredentials, code: "invalid_token", message: Sentence("The provider's token is refused: \(reason)."))
            case .expired:
                throw DomainError(
                    .rejectedCredentials, code: "token_expired",
                    message: Sentence("The provider's token has expired; sign in with the provider again."))
            case .providerUnavailable(let reason):
                throw DomainError(
                    .unavailable, code: "provider_unavailable",
                    message: Sentence("The provider cannot be asked right now (\(reason)); try again shortly."), retryAfter: 5)
            }
        }
        // The nonce: the client's must be the token's (Apple's tokens carry its SHA-256 in
        // hex, so the nonce itself is not in the token for a thief to copy), and a token
        // that has one is refused without it.
        switch (credential.nonce, identity.nonce) {
        case (nil, nil): break
        case (let sent?, let claimed?):
            let expected = provider == .apple ? SHA256.hash(data: Array(sent.utf8)).hexString : sent
            guard claimed == expected else {
                throw DomainError(.rejectedCredentials, code: "nonce_mismatch", message: Sentence("The nonce is not the one in the token."))
            }
        case (nil, .some):
            throw DomainError(.rejectedCredentials, code: "nonce_mismatch", message: Sentence("The token carries a nonce; send it."))
        case (.some, nil): throw DomainError(.rejectedCredentials, code: "nonce_mismatch", message: Sentence("The token carries no nonce."))
        }
        // Only an email that is one is kept (the token's claim is any text).
        if let email = identity.email, !Self.validEmail(email) {
            identity.email = nil
            identity.emailVerified = false
        }
        let replayKey = credential.idToken.map { token in
            identity.nonce.map { "nonce\n\($0)" } ?? "token\n" + SHA256.hash(data: Array(token.utf8)).hexString
        }
        return VerifiedCredential(identity: identity, replayKey: replayKey.map { "\(provider.rawValue)\n\($0)" })
    }

    /// An ID token signs in (or links) once: its nonce, or the token itself, is kept
    /// until the token expires.
    private func use(_ replayKey: String?, until expiresAt: Date, at now: Date, on sql: DatabaseSession) async throws {
        guard let replayKey else { return }
        let digest = SHA256.hash(data: Array(replayKey.utf8)).hexString
        guard try await identities.useToken(digest, expiresAt: expiresAt, at: now, on: sql) else {
            throw DomainError(
                .rejectedCredentials, code: "token_reused",
                message: Sentence("This token has been used already; sign in with the provider again."))
        }
    }

    /// A new account's name when neither the client nor the token gives one.
    private static func newAccountName(_ identity: ProviderIdentity, email: String?) -> String {
        let candidate = identity.name ?? email.map { String($0.prefix(while: { $0 != "@" })) } ?? ""
        var v = Validator()
        return v.name(candidate) ?? "SportLook member"
    }
}

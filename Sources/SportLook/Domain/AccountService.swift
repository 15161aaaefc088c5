import Foundation
import SQLKit

/// Registration, login, sessions and profiles.
struct AccountService: Sendable {
    let database: Database
    let accounts: AccountStore
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    let throttle: LoginThrottle
    let tokens: TokenAuthenticator
    let sports: SportCatalog
    let bus: Bus
    let write: Writer
    let clock: any AppClock
    let tokenTTL: TimeInterval

    struct Issued: Sendable {
        var user: User
        var token: String
        var expiresAt: Date
    }

    static func normalize(email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    static func validEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64,
              parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..")
        else { return false }
        return !email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "\0" || $0 == "<" || $0 == ">" })
    }

    func register(name: String?, email: String?, password: String?, userAgent: String?) async throws -> Issued {
        var v = Validator()
        let name = v.text(name, "name", 1...80)
        let email = email?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let email { v.check(Self.validEmail(email), "email", "must be an email address") } else { v.fail("email", "is required") }
        if let password {
            if let problem = policy.problem(with: password, email: email) { v.fail("password", problem) }
        } else {
            v.fail("password", "is required")
        }
        try v.throwIfInvalid()
        guard let name, let email, let password else { throw APIError.validation(v.fields) }
        let normalized = Self.normalize(email: email)
        let hash = try await hasher.hash(password)
        let now = clock.now()
        let user = User(id: UUID(), name: name, email: email, bio: "", imageURL: nil, sports: [], location: nil, discoverable: false, createdAt: now)
        let token = AccessToken.generate()
        let expiresAt = now.addingTimeInterval(tokenTTL)
        do {
            try await database.transaction { [accounts] sql in
                if try await accounts.emailExists(normalized, on: sql) { throw APIError.conflict("email_taken", "An account already uses this email.") }
                try await accounts.insertUser(user, passwordHash: hash, normalizedEmail: normalized, on: sql)
                try await accounts.insertToken(id: UUID(), userID: user.id, hash: AccessToken.digest(token), userAgent: userAgent, createdAt: now, expiresAt: expiresAt, on: sql)
            }
        } catch where Database.isUniqueViolation(error) {
            throw APIError.conflict("email_taken", "An account already uses this email.")
        }
        return Issued(user: user, token: token, expiresAt: expiresAt)
    }

    func login(email: String?, password: String?, address: String?, userAgent: String?) async throws -> Issued {
        var v = Validator()
        if email == nil { v.fail("email", "is required") }
        if password == nil { v.fail("password", "is required") }
        try v.throwIfInvalid()
        guard let email, let password else { throw APIError.validation(v.fields) }
        let normalized = Self.normalize(email: email)
        let subjects = LoginThrottle.subjects(email: normalized, address: address)
        try await throttle.check(subjects)
        let credentials = normalized.count <= 254 ? try await accounts.credentials(normalizedEmail: normalized) : nil
        // Same bcrypt work and same answer whether the email is unknown or the password wrong.
        let ok = password.utf8.count <= 72 && !password.utf8.contains(0)
            ? try await hasher.verify(password, against: credentials?.passwordHash)
            : false
        guard ok, let credentials else {
            try await throttle.recordFailure(subjects)
            throw APIError.invalidCredentials
        }
        try await throttle.recordSuccess(email: normalized)
        let now = clock.now()
        let token = AccessToken.generate()
        let expiresAt = now.addingTimeInterval(tokenTTL)
        let user: User? = try await database.transaction { [accounts] sql in
            try await accounts.insertToken(id: UUID(), userID: credentials.userID, hash: AccessToken.digest(token), userAgent: userAgent, createdAt: now, expiresAt: expiresAt, on: sql)
            return try await accounts.user(credentials.userID, on: sql)
        }
        guard let user else { throw APIError.invalidCredentials }
        return Issued(user: user, token: token, expiresAt: expiresAt)
    }

    /// Revokes a session of the caller (their current one on logout).
    func revoke(session: UUID, of userID: UUID) async throws {
        let now = clock.now()
        let revoked = try await database.transaction { [accounts, bus] sql in
            let revoked = try await accounts.revokeToken(session, of: userID, at: now, on: sql)
            if revoked { try await bus.notify([.session(session)], on: sql) }
            return revoked
        }
        guard revoked else { throw APIError.notFound("session") }
        tokens.forget(tokenID: session)
    }

    func sessions(of identity: Identity) async throws -> [AccountStore.Session] {
        let unwritten = tokens.unwrittenUse()
        return try await accounts.sessions(of: identity.userID, at: clock.now()).map { session in
            var session = session
            if let seen = unwritten[session.id], seen > (session.lastUsedAt ?? .distantPast) { session.lastUsedAt = seen }
            return session
        }
    }

    func profile(_ userID: UUID) async throws -> User {
        guard let user = try await accounts.user(userID) else { throw APIError.notFound("user") }
        return user
    }

    struct ProfileInput: Decodable, Sendable {
        var name: Patch<String> = .absent
        var bio: Patch<String> = .absent
        var imageUrl: Patch<String> = .absent
        var sports: Patch<[String]> = .absent
        var location: Patch<LocationInput> = .absent
        var discoverable: Patch<Bool> = .absent

        enum CodingKeys: String, CodingKey { case name, bio, imageUrl, sports, location, discoverable }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.patch(.name)
            bio = try c.patch(.bio)
            imageUrl = try c.patch(.imageUrl)
            sports = try c.patch(.sports)
            location = try c.patch(.location)
            discoverable = try c.patch(.discoverable)
        }
    }

    func updateProfile(_ userID: UUID, _ input: ProfileInput) async throws -> User {
        var v = Validator()
        var changes = AccountStore.ProfileChanges()
        switch input.name {
        case .absent: break
        case .null: v.fail("name", "must not be null")
        case .value(let name): changes.name = v.text(name, "name", 1...80)
        }
        switch input.bio {
        case .absent: break
        case .null: changes.bio = ""
        case .value(let bio): changes.bio = v.text(bio, "bio", 0...1_000)
        }
        switch input.imageUrl {
        case .absent: break
        case .null: changes.imageURL = .null
        case .value(let url): if let url = v.url(url, "image_url") { changes.imageURL = .value(url) }
        }
        switch input.sports {
        case .absent: break
        case .null: changes.sports = []
        case .value(let slugs):
            if slugs.count > 64 { v.fail("sports", "must list at most 64 sports") }
            else if let unknown = slugs.first(where: { sports[$0] == nil }) { v.fail("sports", "unknown sport '\(unknown.prefix(64))'") }
            else { changes.sports = slugs }
        }
        switch input.location {
        case .absent: break
        case .null: changes.location = .null
        case .value(let location):
            // People are stored at the centre of a ~500 m cell, never exactly.
            if let c = location.validated("location", into: &v) { changes.location = .value(c.snappedForPrivacy) }
        }
        switch input.discoverable {
        case .absent: break
        case .null: v.fail("discoverable", "must be true or false")
        case .value(let flag): changes.discoverable = flag
        }
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [accounts, changes] sql, effects in
            try await accounts.update(userID, changes, at: now, on: sql)
            guard let user = try await accounts.user(userID, on: sql) else { throw APIError.notFound("user") }
            effects.profiles.append(user)
            return user
        }
    }
}

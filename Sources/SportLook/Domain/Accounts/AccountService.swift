import Foundation

/// Registration, login, sessions and profiles.
struct AccountService: Sendable {
    let database: Database
    let accounts: AccountStore
    let sessions: SessionStore
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    let throttle: AttemptThrottle
    /// Registrations per address (`nil`: not limited).
    let registrations: AttemptThrottle?
    let events: EventService
    let tokens: TokenAuthenticator
    let sports: SportCatalog
    let write: Writer
    let clock: any AppClock
    let tokenTTL: TimeInterval
    let media: MediaAttachments
    let identities: IdentityStore
    let verifier: IdentityVerifier
    let known: KnownSignIns
    let groups: GroupService
    /// Blocks on registration, and the abuse panel's counts of registrations and failed sign-ins.
    var abuse: AbuseService? = nil

    struct Issued: Sendable {
        var user: User
        var token: String
        var expiresAt: Date
        var tokenID: UUID
        /// For the client to keep and send with later password sign-ins (``KnownSignIns``).
        var deviceKey: String?
    }

    static func normalize(email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    static func validEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..")
        else { return false }
        return !email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "<" || $0 == ">" })
            && !email.unicodeScalars.contains(where: { TextLimits.isForbidden($0, multiline: false) })
    }

    /// At most this many live sessions per user; a new one ends the oldest.
    static let maxSessions = 100

    /// 429 at once, from memory, for an address already known to be over its
    /// registration limit (see ``AttemptThrottle``); otherwise nothing.
    func refuseRegistrationIfRemembered(address: String?) throws {
        guard let registrations, let address else { return }
        try registrations.refuseIfRemembered(["register:" + address])
    }

    /// Users' names, by id (absent: no such user).
    func names(of ids: [UUID]) async throws -> [UUID: String] {
        try await accounts.names(of: ids)
    }

    /// Those of the sessions that have ended (logged out, revoked, expired).
    func endedSessions(among ids: [UUID]) async throws -> Set<UUID> {
        try await sessions.endedSessions(among: ids, at: clock.now())
    }

    func register(name: String?, email: String?, password: String?, address: String?, userAgent: String?) async throws -> Issued {
        var v = Validator()
        let name = v.name(name)
        let email = email?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let email {
            v.check(Self.validEmail(email), "email", Sentence("must be an email address"))
        } else {
            v.fail("email", Sentence("is required"))
        }
        if let password {
            if let problem = policy.problem(with: password, email: email) { v.fail("password", problem) }
        } else {
            v.fail("password", Sentence("is required"))
        }
        try v.throwIfInvalid()
        guard let name, let email, let password else { throw DomainError.validation(v.fields) }
        try await abuse?.check(registrationFrom: address, email: email)
        // Counted before the hash, kept afterwards (an email already taken counts
        // too): registrations per address. Given back when nothing was tried.
        let hash: String
        if let registrations, let address {
            let registration = try await registrations.attempt(["register:" + address]) { try await hasher.hash(password) }
            try await registrations.settle(registration.id)
            hash = registration.result
        } else {
            hash = try await hasher.hash(password)
        }
        let normalized = Self.normalize(email: email)
        let now = clock.now()
        let user = User(
            id: UUID(), name: name, email: email, bio: "", photo: nil, sports: [], location: nil, discoverable: false, createdAt: now)
        let token = AccessToken.generate()
        let tokenID = UUID()
        let expiresAt = now.addingTimeInterval(tokenTTL)
        let deviceKey: String?
        do {
            deviceKey = try await database.transaction { [accounts, known] sql in
                if try await accounts.emailExists(normalized, on: sql) {
                    throw DomainError.conflict("email_taken", Sentence("An account already uses this email."))
                }
                try await accounts.insertUser(user, passwordHash: hash, normalizedEmail: normalized, on: sql)
                try await abuse?.registered(from: address, on: sql)
                try await sessions.insertToken(
                    id: tokenID, userID: user.id, hash: AccessToken.digest(token), userAgent: userAgent, createdAt: now,
                    expiresAt: expiresAt, on: sql)
                return try await known.record(user.id, deviceKey: true, address: address, at: now, on: sql)
            }
        } catch  where Database.isUniqueViolation(error) {
            throw DomainError.conflict("email_taken", Sentence("An account already uses this email."))
        }
        let issued = Issued(user: user, token: token, expiresAt: expiresAt, tokenID: tokenID, deviceKey: deviceKey)
        remember(issued)
        return issued
    }

    /// A password sign-in. Wrong passwords count against the client's address, and
    /// against the account unless the attempt carries one of its device keys or comes
    /// from one of its addresses (``KnownSignIns``): then against that device and
    /// address instead, so that strangers filling the account's count lock nobody out.
    func login(email: String?, password: String?, deviceKey: String? = nil, address: String?, userAgent: String?) async throws -> Issued {
        let userID = try await checkCredentials(email: email, password: password, deviceKey: deviceKey, address: address)
        let now = clock.now()
        let issued: Issued? = try await write { [accounts] sql, changes in
            // A deletion committed while the password was checked wins.
            guard try await accounts.lockLive(userID, on: sql) else { throw DomainError.invalidCredentials }
            return try await openSession(for: userID, userAgent: userAgent, address: address, at: now, on: sql, changes: &changes)
        }
        guard let issued else { throw DomainError.invalidCredentials }
        remember(issued)
        return issued
    }

    /// The account an email and password open, checked and throttled as a sign-in is
    /// (``login(email:password:deviceKey:address:userAgent:)``), without opening a session:
    /// what a suspended person's appeal is signed with.
    func checkCredentials(email: String?, password: String?, deviceKey: String? = nil, address: String?) async throws -> UUID {
        var v = Validator()
        if email == nil { v.fail("email", Sentence("is required")) }
        if password == nil { v.fail("password", Sentence("is required")) }
        try v.throwIfInvalid()
        guard let email, let password else { throw DomainError.validation(v.fields) }
        let normalized = Self.normalize(email: email)
        // No account has such an email: nothing to check, nothing to count or store.
        guard Self.validEmail(normalized) else { throw DomainError.invalidCredentials }
        let subjects = try await known.subjects(email: normalized, deviceKey: deviceKey, address: address, now: clock.now())
        let (attempt, (credentials, ok)) = try await throttle.attempt(subjects) { [accounts, hasher] in
            let credentials = try await accounts.credentials(normalizedEmail: normalized)
            // Same bcrypt work and same answer whether the email is unknown or the password wrong.
            return (credentials, try await hasher.verify(password, against: credentials?.passwordHash))
        }
        guard ok, let credentials else {
            try await throttle.settle(attempt)
            // Counted for the abuse panel, best effort: a busy database never turns a wrong password into a 503.
            try? await abuse?.failedSignIn(from: address)
            throw DomainError.invalidCredentials
        }
        try await throttle.recordSuccess(email: normalized, attempt: attempt, subjects: subjects)
        return credentials.userID
    }

    /// A new session for the user, in the caller's transaction (beyond ``maxSessions``,
    /// the oldest end); `nil` if the user is gone. ``remember(_:)`` it once committed.
    func openSession(
        for userID: UUID, userAgent: String?, address: String?, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws -> Issued? {
        let token = AccessToken.generate()
        let tokenID = UUID()
        let expiresAt = now.addingTimeInterval(tokenTTL)
        try await sessions.insertToken(
            id: tokenID, userID: userID, hash: AccessToken.digest(token), userAgent: userAgent, createdAt: now, expiresAt: expiresAt,
            on: sql)
        let ended = try await sessions.revokeTokensBeyond(Self.maxSessions, of: userID, at: now, on: sql)
        changes.sessionsEnded(ended)
        guard let user = try await accounts.user(userID, on: sql) else { return nil }
        if user.suspended(at: now) { throw DomainError.accountSuspended(until: user.suspendedUntil) }
        let deviceKey = try await known.record(userID, deviceKey: true, address: address, at: now, on: sql)
        return Issued(user: user, token: token, expiresAt: expiresAt, tokenID: tokenID, deviceKey: deviceKey)
    }

    /// Lets the new session's token in at once, without a database read.
    func remember(_ issued: Issued) {
        // The request that made the session is now its user's: what it wrote, they see on a replica.
        Admission.identify(issued.user.id)
        tokens.remember(issued.token, as: Identity(userID: issued.user.id, tokenID: issued.tokenID, expiresAt: issued.expiresAt))
    }

    /// Keeps `language` as the one texts are written to `user` in, unless it is already
    /// (a sign-in or profile edit's `Accept-Language`); the user as it is then.
    func remember(_ language: Language?, for user: User) async throws -> User {
        guard let language, language != user.language else { return user }
        try await write { [accounts] sql, _ in try await accounts.setLanguage(language, of: user.id, on: sql) }
        var updated = user
        updated.language = language
        return updated
    }

    /// Revokes a session of the caller (their current one on logout): its sockets
    /// close on every instance and its devices stop receiving pushes.
    func revoke(session: UUID, of userID: UUID) async throws {
        let now = clock.now()
        let revoked = try await write { sql, changes in
            guard try await sessions.revokeToken(session, of: userID, at: now, on: sql) else { return false }
            try await sessions.deleteDevices(sessions: [session], on: sql)
            changes.record(.session(id: session))
            return true
        }
        guard revoked else { throw DomainError.notFound(.session) }
    }

    /// Ends every session of the caller but the current one.
    func revokeOtherSessions(of identity: Identity) async throws {
        let now = clock.now()
        try await write { [accounts] sql, changes in
            let ended = try await sessions.revokeTokens(of: identity.userID, except: identity.tokenID, at: now, on: sql)
            changes.sessionsEnded(ended)
            // A calendar feed made in another session ends with it.
            try await accounts.setCalendarFeed(nil, of: identity.userID, on: sql)
        }
    }

    /// Changes the password (the current one is required) and ends every other session.
    func changePassword(of identity: Identity, current: String?, new: String?) async throws {
        var v = Validator()
        if current == nil { v.fail("current_password", Sentence("is required")) }
        if new == nil { v.fail("new_password", Sentence("is required")) }
        try v.throwIfInvalid()
        guard let current, let new else { throw DomainError.validation(v.fields) }
        guard let stored = try await accounts.passwordHash(of: identity.userID) else { throw DomainError.notFound(.user) }
        guard !stored.isEmpty else {
            throw DomainError.conflict("no_password", Sentence("This account has no password: it signs in with Apple, Google or Facebook."))
        }
        let email = try await accounts.user(identity.userID)?.email
        if let problem = policy.problem(with: new, email: email) { throw DomainError.validation(["new_password": problem]) }
        let passwordSubjects = ["password:" + identity.userID.lowercased]
        let (attempt, (ok, hash)) = try await throttle.attempt(passwordSubjects) { [hasher] in
            let ok = try await hasher.verify(current, against: stored)
            return (ok, ok ? try await hasher.hash(new) : "")
        }
        guard ok else {
            try await throttle.settle(attempt)
            throw DomainError(
                .forbidden, code: "wrong_password", message: Sentence("The current password is wrong."),
                fields: ["current_password": Sentence("is wrong")])
        }
        try await throttle.release(attempt, subjects: passwordSubjects)
        let now = clock.now()
        try await write { [accounts] sql, changes in
            // Still this session's to change, and still the password that was checked:
            // of two changes at once, the second finds the first's and stops.
            guard try await sessions.lockLiveSession(identity.tokenID, at: now, on: sql) else { throw DomainError.unauthorized }
            guard try await accounts.setPassword(of: identity.userID, from: stored, to: hash, at: now, on: sql) else {
                throw DomainError.conflict("password_changed", Sentence("The password changed meanwhile; try again with the new one."))
            }
            let ended = try await sessions.revokeTokens(of: identity.userID, except: identity.tokenID, at: now, on: sql)
            changes.sessionsEnded(ended)
            try await accounts.setCalendarFeed(nil, of: identity.userID, on: sql)
        }
    }

    func sessions(of identity: Identity) async throws -> [SessionInfo] {
        let unwritten = tokens.unwrittenUse()
        return try await sessions.sessions(of: identity.userID, at: clock.now()).map { session in
            var session = session
            if let seen = unwritten[session.id], seen > (session.lastUsedAt ?? .distantPast) { session.lastUsedAt = seen }
            return session
        }
    }

    func profile(_ userID: UUID) async throws -> User {
        guard let user = try await accounts.user(userID), !user.isDeleted else { throw DomainError.notFound(.user) }
        return user
    }

    struct ProfileInput: Decodable, Sendable {
        var name: Patch<String> = .absent
        var bio: Patch<String> = .absent
        var photoId: Patch<String> = .absent
        /// Refused when present: images are uploads now (`photo_id`).
        var imageUrl: Patch<String> = .absent
        var sports: Patch<[String]> = .absent
        var location: Patch<LocationInput> = .absent
        var discoverable: Patch<Bool> = .absent
        var reminders: Patch<Bool> = .absent
        var language: Patch<String> = .absent

        enum CodingKeys: String, CodingKey { case name, bio, photoId, imageUrl, sports, location, discoverable, reminders, language }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.patch(.name)
            bio = try c.patch(.bio)
            photoId = try c.patch(.photoId)
            imageUrl = try c.patch(.imageUrl)
            sports = try c.patch(.sports)
            location = try c.patch(.location)
            discoverable = try c.patch(.discoverable)
            reminders = try c.patch(.reminders)
            language = try c.patch(.language)
        }
    }

    func updateProfile(_ userID: UUID, _ input: ProfileInput) async throws -> User {
        var v = Validator()
        var edits = AccountStore.ProfileChanges()
        switch input.name {
        case .absent: break
        case .null: v.fail("name", Sentence("must not be null"))
        case .value(let name): edits.name = v.name(name)
        }
        switch input.bio {
        case .absent: break
        case .null: edits.bio = ""
        case .value(let bio): edits.bio = v.text(bio, "bio", 0...1_000, multiline: true)
        }
        if !input.imageUrl.isAbsent {
            v.fail("image_url", Sentence("is set by the server; upload the photo (POST /v1/media?use=profile) and send photo_id"))
        }
        var photo = Patch<UUID>.absent
        switch input.photoId {
        case .absent: break
        case .null: photo = .null
        case .value(let text): if let id = MediaAttachments.parseID(text, field: "photo_id", into: &v) { photo = .value(id) }
        }
        switch input.sports {
        case .absent: break
        case .null: edits.sports = []
        case .value(let slugs):
            if slugs.count > 64 {
                v.fail("sports", Sentence("must list at most 64 sports"))
            } else if let unknown = slugs.first(where: { sports[$0] == nil }) {
                v.fail("sports", Sentence("unknown sport '\(unknown.prefix(64))'"))
            } else {
                edits.sports = slugs
            }
        }
        switch input.location {
        case .absent: break
        case .null: edits.location = .null
        case .value(let location):
            // People are stored at the centre of a ~500 m cell, never exactly.
            if let c = location.validated("location", into: &v) { edits.location = .value(c.snappedForPrivacy) }
        }
        switch input.discoverable {
        case .absent: break
        case .null: v.fail("discoverable", Sentence("must be true or false"))
        case .value(let flag): edits.discoverable = flag
        }
        switch input.reminders {
        case .absent: break
        case .null: v.fail("reminders", Sentence("must be true or false"))
        case .value(let flag): edits.reminders = flag
        }
        switch input.language {
        case .absent: break
        case .null: v.fail("language", Sentence("must be one of \(Language.allCases.map(\.rawValue).joined(separator: ", "))"))
        case .value(let tag):
            if let language = Language(rawValue: tag) {
                edits.language = language
            } else {
                v.fail("language", Sentence("must be one of \(Language.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        let (user, released) = try await write { [accounts, media, edits, photo] sql, changes in
            var edits = edits
            var released: [String] = []
            if !photo.isAbsent {
                guard let current = try await accounts.user(userID, on: sql), !current.isDeleted else { throw DomainError.notFound(.user) }
                if case .value(let id) = photo, id != current.photo?.id {
                    edits.photo = .value(try await media.attach(id, use: .profile, owner: userID, field: "photo_id", at: now, on: sql))
                } else if case .null = photo {
                    edits.photo = .null
                }
                // A replaced or removed photo is deleted with its variants.
                if !edits.photo.isAbsent, let replaced = current.photo?.id { released = try await media.release([replaced], on: sql) }
            }
            try await accounts.update(userID, edits, at: now, on: sql)
            guard let user = try await accounts.user(userID, on: sql) else { throw DomainError.notFound(.user) }
            changes.profile(user)
            return (user, released)
        }
        await media.removeBlobs(released)
        return user
    }
}

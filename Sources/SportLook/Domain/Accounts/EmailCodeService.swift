import Crypto
import Foundation

/// One-time codes mailed to an account's address: one proves the address to its
/// signed-in owner (`verify`), the other sets a new password (`reset`, which ends
/// every session).
///
/// A code is 6 digits, kept only as a digest, good for 15 minutes and 5 tries. Asking
/// queues a `mail` job holding only the purpose, the email and (for a reset) the
/// digest of the request's id: the job's worker looks the account up, issues the code
/// and mails it. So asking does the same work whether or not an email has an account,
/// always answers 202, and no code is ever stored in clear (a retried mail carries a
/// new code). Asking is limited per email and per client address.
///
/// A reset answers a `reset_id` that only its asker holds, and a mark the mail's
/// subject carries; its code belongs to that request (another request's code, the
/// owner's or a stranger's, lives beside it). Its wrong codes count against the request
/// (5), the client's address, and the email's 30 a day — every place the account does
/// not know together, while a known device (else a known address) has 30 of its own —
/// so strangers cannot use up, replace or lock out the owner's code at a known place.
/// A verification code is the signed-in owner's: one per account, wrong codes counted
/// like logins and per email to 30 a day of their own.
struct EmailCodeService: Sendable {
    enum Purpose: String, Sendable {
        case verify, reset
    }

    let accounts: AccountStore
    let sessions: SessionStore
    let identities: IdentityStore
    let codes: EmailCodeStore
    let jobs: JobStore
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    /// Codes asked for, per email from one client network.
    let requestsPerEmail: AttemptThrottle
    /// Codes asked for, per email in all (what one inbox receives).
    let requestsPerInbox: AttemptThrottle
    /// Codes asked for, per client address.
    let requestsPerAddress: AttemptThrottle
    /// Wrong codes, per email and per client address.
    let guesses: AttemptThrottle
    /// Wrong codes per email in a day.
    let dailyGuesses: AttemptThrottle
    /// A reset makes the address it came from one of the account's (``KnownSignIns``).
    let known: KnownSignIns
    let write: Writer
    let clock: any AppClock
    /// Whether mail can be sent at all (`SMTP_URL` or `MAIL_TRANSPORT=log`).
    let mailEnabled: Bool

    static let lifetime: TimeInterval = 15 * 60
    static let maxTries = 5

    // MARK: Asking

    /// Mails the signed-in user a code for their email, unless it is verified already.
    func startVerification(of identity: Identity, address: String?) async throws {
        try requireMail()
        guard let user = try await accounts.user(identity.userID), !user.isDeleted else { throw DomainError.unauthorized }
        let email = user.email
        guard !email.isEmpty else { throw DomainError.conflict("no_email", Sentence("This account has no email to verify.")) }
        guard !user.emailVerified else { throw DomainError.conflict("email_verified", Sentence("This email is verified already.")) }
        try await request(.verify, normalized: AccountService.normalize(email: email), address: address)
    }

    /// Queues a reset code for the email; what the job does depends on whether it has an
    /// account. Returns the request's id, for the asker to send with the code.
    func startReset(email: String?, deviceKey: String?, address: String?) async throws -> (id: String, mark: String) {
        try requireMail()
        var v = Validator()
        let normalized = check(email, into: &v)
        check(deviceKey: deviceKey, into: &v)
        try v.throwIfInvalid()
        let id = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }.base64URLEncodedString()
        let place = try await known.recognised(email: normalized, deviceKey: deviceKey, address: address, now: clock.now())
        let digest = Self.requestDigest(id)
        try await request(.reset, normalized: normalized, address: address, knownPlace: place, request: digest)
        return (id, Self.mark(ofRequest: digest))
    }

    /// Queues a code's mail, within the limits: per client address; per email from this
    /// network; and per email in all (what one inbox receives) — except from a place the
    /// account knows (a device or address it signed in from), which has a share of its
    /// own: strangers asking for an email's codes use up only theirs.
    private func request(
        _ purpose: Purpose, normalized: String, address: String?, knownPlace: [String]? = nil, request requestDigest: String? = nil
    ) async throws {
        // Counted whether or not an account has the email: the limits say nothing either.
        let inbox =
            knownPlace.map { "code-request-inbox:" + normalized + ":" + $0.joined(separator: ",") } ?? "code-request-inbox:" + normalized
        var limits: [(throttle: AttemptThrottle, subjects: [String])] = [
            (requestsPerEmail, ["code-request:" + normalized + ":" + (address ?? "unknown")]),
            (requestsPerInbox, [inbox]),
        ]
        if let address { limits.insert((requestsPerAddress, ["code-request-address:" + address]), at: 0) }
        var reserved: [(throttle: AttemptThrottle, subjects: [String], attempt: UUID)] = []
        do {
            for limit in limits { reserved.append((limit.throttle, limit.subjects, try await limit.throttle.reserve(limit.subjects))) }
        } catch {
            for taken in reserved { try? await taken.throttle.release(taken.attempt, subjects: taken.subjects) }
            throw error
        }
        for taken in reserved { try await taken.throttle.settle(taken.attempt) }
        let request = MailRequest(
            purpose: purpose.rawValue, email: normalized, request: requestDigest, knownPlace: knownPlace != nil ? true : nil)
        try await write { [jobs] sql, changes in
            try await jobs.enqueue(request, dedupeKey: "mail:\(purpose.rawValue):\(normalized):\(UUID().lowercased)", on: sql)
            changes.record(.jobs)
        }
    }

    /// For a `mail` job: issues a new code to the account the request names and
    /// returns the mail that carries it; nil when there is nothing to send (no such
    /// account, an email verified already).
    func mail(for request: MailRequest) async throws -> MailMessage? {
        guard let purpose = Purpose(rawValue: request.purpose) else { return nil }
        let code = Self.newCode()
        let now = clock.now()
        return try await write { [accounts, codes] sql, _ in
            try await codes.purge(before: now, on: sql)
            guard let account = try await accounts.account(normalizedEmail: request.email, on: sql) else { return nil }
            if purpose == .verify, account.emailVerified { return nil }
            try await codes.issue(
                user: account.id, purpose: purpose.rawValue, request: request.request ?? "", knownPlace: request.knownPlace == true,
                digest: Self.digest(code, user: account.id, purpose: purpose),
                expiresAt: now.addingTimeInterval(Self.lifetime), at: now, on: sql)
            return Self.mail(
                purpose, code: code, to: account.email, in: account.language, mark: request.request.map(Self.mark(ofRequest:)))
        }
    }

    // MARK: Answering

    /// Verifies the signed-in user's email with the code sent to it.
    func finishVerification(of identity: Identity, code: String?, address: String?) async throws {
        var v = Validator()
        check(code: code, into: &v)
        try v.throwIfInvalid()
        guard let email = try await accounts.user(identity.userID)?.email, !email.isEmpty else {
            throw DomainError.conflict("no_email", Sentence("This account has no email to verify."))
        }
        try await take(
            .verify, code: code ?? "", normalized: AccountService.normalize(email: email), request: nil, knownPlace: nil, address: address,
            newPassword: nil)
    }

    /// The deprecation a finish in this shape answers with: the old one (no `reset_id`)
    /// while it still works, nil otherwise.
    func deprecatedReset(resetID: String?) -> Deprecation? {
        resetID == nil && Deprecation.resetWithoutRequest.works(at: clock.now()) ? .resetWithoutRequest : nil
    }

    /// Sets a new password with the code sent to the email (which is then verified
    /// too); every session of the account ends, and every provider linked to it is
    /// unlinked: whoever made the account with someone else's email, or held a session
    /// of it, may have linked their own.
    ///
    /// Without a `reset_id` (an app from before it was asked for), until
    /// ``Deprecation/resetWithoutRequest``'s sunset, the code is taken when it is the
    /// account's newest reset code (and not voided by 5 wrong tries), as it was then. Its
    /// wrong codes count in limits of their own — per email in a window, per email in a
    /// day, and the address's — never against a request's tries, the email's verification
    /// or the daily share of the owner's `reset_id` finishes: a stranger guessing that way
    /// can hold up only the old shape.
    func finishReset(email: String?, code: String?, password: String?, resetID: String?, deviceKey: String?, address: String?) async throws
    {
        let legacy = Deprecation.resetWithoutRequest
        var v = Validator()
        let normalized = check(email, into: &v)
        check(code: code, into: &v)
        if let password {
            if let problem = policy.problem(with: password, email: (email ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) {
                v.fail("password", problem)
            }
        } else {
            v.fail("password", Sentence("is required"))
        }
        check(deviceKey: deviceKey, into: &v)
        if let resetID {
            if resetID.utf8.count > 64 || resetID.isEmpty { v.fail("reset_id", Sentence("must be the reset_id the start answered")) }
        } else if !legacy.works(at: clock.now()) {
            v.fail("reset_id", Sentence("is required: the reset_id POST /v1/auth/password/reset/start answered"))
        }
        try v.throwIfInvalid()
        let place = try await known.recognised(email: normalized, deviceKey: deviceKey, address: address, now: clock.now())
        try await take(
            .reset, code: code ?? "", normalized: normalized, request: resetID.map(Self.requestDigest), knownPlace: place,
            address: address, newPassword: password)
    }

    /// Takes the code and does what it was for, all in one transaction. A wrong one
    /// counts against its request (or, for a verification, the email), the address, and
    /// the email's 30 a day — all strangers' together, while a place the account knows
    /// has its own 30: guessing from everywhere else never locks the owner's home out.
    private func take(
        _ purpose: Purpose, code: String, normalized: String, request: String?, knownPlace: [String]? = nil, address: String?,
        newPassword: String?
    ) async throws {
        // The deprecated reset (no request named) has shares of its own, apart from the
        // verification's and the daily share of resets that name their request.
        let legacy = purpose == .reset && request == nil
        let daily = [
            (legacy ? "code-legacy-day:" : purpose == .verify ? "code-verify-day:" : "code-day:") + normalized
                + (knownPlace.map { ":" + $0.joined(separator: ",") } ?? "")
        ]
        let today = try await dailyGuesses.reserve(daily)
        let own = request.map { "code-request:" + $0 } ?? (legacy ? "code-legacy:" : "code:") + normalized
        let subjects = [own] + (address.map { ["code-address:" + $0] } ?? [])
        let attempt: UUID
        let taken: Bool
        do {
            (attempt, taken) = try await guesses.attempt(subjects) { [hasher, accounts, identities, codes, known, clock, write] in
                var hash: String?
                if let newPassword { hash = try await hasher.hash(newPassword) }
                let now = clock.now()
                return try await write { [hash] sql, changes in
                    guard let account = try await accounts.account(normalizedEmail: normalized, on: sql) else { return false }
                    let digest = Self.digest(code, user: account.id, purpose: purpose)
                    // A reset without its request (the deprecated shape) takes the newest code.
                    let took =
                        if legacy {
                            try await codes.takeNewest(
                                user: account.id, purpose: purpose.rawValue, digest: digest, maxTries: Self.maxTries, at: now, on: sql)
                        } else {
                            try await codes.take(
                                user: account.id, purpose: purpose.rawValue, request: request ?? "", digest: digest,
                                maxTries: Self.maxTries, at: now, on: sql)
                        }
                    guard took else { return false }
                    try await accounts.confirmEmail(of: account.id, newPasswordHash: hash, at: now, on: sql)
                    if hash != nil {
                        // Every provider linked goes too: whoever held a session may have linked their own
                        // (the owner links theirs again after signing in).
                        try await identities.deleteAll(of: account.id, on: sql)
                        let ended = try await sessions.revokeTokens(of: account.id, except: nil, at: now, on: sql)
                        changes.sessionsEnded(ended)
                        // Whoever held a session or knew the account's places before no longer does:
                        // its calendar feed ends, and only the place of this reset stays known.
                        try await accounts.setCalendarFeed(nil, of: account.id, on: sql)
                        try await known.forget(account.id, on: sql)
                        // The owner signs in from here next, whatever strangers are guessing.
                        _ = try await known.record(account.id, deviceKey: false, address: address, at: now, on: sql)
                    }
                    if let user = try await accounts.user(account.id, on: sql) { changes.profile(user) }
                    return true
                }
            }
        } catch {
            try? await dailyGuesses.release(today, subjects: daily)
            throw error
        }
        guard taken else {
            try await guesses.settle(attempt)
            try await dailyGuesses.settle(today)
            throw DomainError(
                .invalid, code: "invalid_code", message: Sentence("The code is wrong, used or expired; ask for a new one."),
                fields: ["code": Sentence("is wrong, used or expired")])
        }
        try await guesses.release(attempt, subjects: subjects)
        try await dailyGuesses.release(today, subjects: daily)
    }

    // MARK: Checks and texts

    private func requireMail() throws {
        guard mailEnabled else {
            throw DomainError(.invalid, code: "mail_not_enabled", message: Sentence("This server sends no mail, so it cannot send codes."))
        }
    }

    /// The normalized email; a problem with it goes into `v`.
    private func check(_ email: String?, into v: inout Validator) -> String {
        if let email {
            v.check(
                AccountService.validEmail(email.trimmingCharacters(in: .whitespacesAndNewlines)), "email",
                Sentence("must be an email address"))
        } else {
            v.fail("email", Sentence("is required"))
        }
        return AccountService.normalize(email: email ?? "")
    }

    private func check(deviceKey: String?, into v: inout Validator) {
        if let deviceKey, deviceKey.utf8.count > 64 { v.fail("device_key", Sentence("must be the device_key a sign-in gave this device")) }
    }

    private func check(code: String?, into v: inout Validator) {
        if let code {
            v.check(
                code.utf8.count == 6 && code.utf8.allSatisfy { (0x30...0x39).contains($0) }, "code",
                Sentence("must be the 6 digits of the mail"))
        } else {
            v.fail("code", Sentence("is required"))
        }
    }

    /// Six random digits.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
    }

    /// What is kept of a reset request's id.
    static func requestDigest(_ id: String) -> String {
        SHA256.hash(data: Array("sportlook-reset-request\n\(id)".utf8)).hexString
    }

    static func digest(_ code: String, user: UUID, purpose: Purpose) -> String {
        SHA256.hash(data: Array("sportlook-code\n\(purpose.rawValue)\n\(user.lowercased)\n\(code)".utf8)).hexString
    }

    /// Four letters naming a reset request (from its digest): the page that asked shows
    /// them and the mail carries them, so the owner takes the code of their own request
    /// among others' (a stranger's asks mail the owner too).
    static func mark(ofRequest digest: String) -> String {
        String(digest.utf8.prefix(4).map { Character(Unicode.Scalar(UInt8(ascii: "A") + $0 % 26)) })
    }

    /// The mail that carries `code`, in the account's language; a reset's names the mark
    /// of the request it answers.
    static func mail(_ purpose: Purpose, code: String, to address: String, in language: Language, mark: String?) -> MailMessage {
        let arguments: [String: MessageArgument] = ["code": .text(code), "minutes": .number(lifetime / 60), "mark": .text(mark ?? "")]
        let (subject, text): (Catalogue.Key, Catalogue.Key) =
            switch purpose {
            case .verify: (.verifyMailSubject, .verifyMailText)
            case .reset where mark == nil: (.resetMailUnmarkedSubject, .resetMailUnmarkedText)
            case .reset: (.resetMailSubject, .resetMailText)
            }
        return MailMessage(
            to: address, subject: Catalogue.text(subject, arguments, in: language), text: Catalogue.text(text, arguments, in: language))
    }
}

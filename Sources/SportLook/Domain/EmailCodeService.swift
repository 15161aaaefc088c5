import Crypto
import Foundation

/// One-time codes mailed to an account's address: one proves the address
/// (`verify`), the other sets a new password (`reset`, which ends every session).
///
/// A code is 6 digits, kept only as a digest, good for 15 minutes and 5 tries; a
/// new one replaces the last. Asking for codes is limited per email and per
/// address, guessing them like logins. No answer tells whether an email has an
/// account: asking always answers 202, a wrong code for an unknown email is as
/// wrong as any other, and both count against the same limits.
struct EmailCodeService: Sendable {
    enum Purpose: String, Sendable {
        case verify, reset
    }

    let accounts: AccountStore
    let codes: EmailCodeStore
    let jobs: JobStore
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    /// Codes asked for, per email (and purpose).
    let requestsPerEmail: LoginThrottle
    /// Codes asked for, per client address.
    let requestsPerAddress: LoginThrottle
    /// Wrong codes, per email and per client address.
    let guesses: LoginThrottle
    let write: Writer
    let clock: any AppClock
    /// Whether mail can be sent at all (`SMTP_URL` or `MAIL_TRANSPORT=log`).
    let mailEnabled: Bool

    static let lifetime: TimeInterval = 15 * 60
    static let maxTries = 5

    /// Mails a code for `purpose` when the email has an account that can use it (a
    /// live account; for `verify`, one whose email is not verified yet).
    func start(_ purpose: Purpose, email: String?, address: String?) async throws {
        let normalized = try checkedEmail(email)
        // Counted whether or not an account has the email: the limits say nothing either.
        let addressSubjects = address.map { ["code-request-address:" + $0] }
        var fromAddress: UUID?
        if let addressSubjects { fromAddress = try await requestsPerAddress.reserve(addressSubjects) }
        let forEmail: UUID
        do {
            forEmail = try await requestsPerEmail.reserve(["code-request:\(purpose.rawValue):" + normalized])
        } catch {
            if let fromAddress, let addressSubjects { try? await requestsPerAddress.release(fromAddress, subjects: addressSubjects) }
            throw error
        }
        if let fromAddress { try await requestsPerAddress.settle(fromAddress) }
        try await requestsPerEmail.settle(forEmail)

        let code = Self.newCode()
        let now = clock.now()
        try await write { [accounts, codes, jobs] sql, effects in
            try await codes.purge(before: now, on: sql)
            guard let account = try await accounts.account(normalizedEmail: normalized, on: sql) else { return }
            if purpose == .verify, account.emailVerified { return }
            try await codes.issue(user: account.id, purpose: purpose.rawValue, digest: Self.digest(code, user: account.id, purpose: purpose),
                                  expiresAt: now.addingTimeInterval(Self.lifetime), at: now, on: sql)
            try await jobs.enqueue(Self.mail(purpose, code: code, to: account.email), dedupeKey: "mail:\(purpose.rawValue):\(account.id.lowercased):\(UUID().lowercased)", on: sql)
            effects.jobs = true
        }
    }

    /// Verifies the email with the code sent to it.
    func finishVerification(email: String?, code: String?, address: String?) async throws {
        var v = Validator()
        let normalized = check(email, into: &v)
        check(code: code, into: &v)
        try v.throwIfInvalid()
        try await take(.verify, code: code ?? "", normalized: normalized, address: address, newPassword: nil)
    }

    /// Sets a new password with the code sent to the email (which is then verified
    /// too); every session of the account ends.
    func finishReset(email: String?, code: String?, password: String?, address: String?) async throws {
        var v = Validator()
        let normalized = check(email, into: &v)
        check(code: code, into: &v)
        if let password, let email {
            if let problem = policy.problem(with: password, email: email) { v.fail("password", problem) }
        } else if password == nil {
            v.fail("password", "is required")
        }
        try v.throwIfInvalid()
        try await take(.reset, code: code ?? "", normalized: normalized, address: address, newPassword: password)
    }

    /// Takes the code (counting a wrong one against the email and the address) and
    /// does what it was for, all in one transaction.
    private func take(_ purpose: Purpose, code: String, normalized: String, address: String?, newPassword: String?) async throws {
        let subjects = ["code:" + normalized] + (address.map { ["code-address:" + $0] } ?? [])
        let (attempt, taken) = try await guesses.attempt(subjects) { [hasher, accounts, codes, clock, write] in
            var hash: String?
            if let newPassword { hash = try await hasher.hash(newPassword) }
            let now = clock.now()
            return try await write { [hash] sql, effects in
                guard let account = try await accounts.account(normalizedEmail: normalized, on: sql) else { return false }
                guard try await codes.take(user: account.id, purpose: purpose.rawValue, digest: Self.digest(code, user: account.id, purpose: purpose),
                                           maxTries: Self.maxTries, at: now, on: sql)
                else { return false }
                try await accounts.confirmEmail(of: account.id, newPasswordHash: hash, at: now, on: sql)
                if hash != nil {
                    let ended = try await accounts.revokeTokens(of: account.id, except: nil, at: now, on: sql)
                    effects.messages += ended.map(BusMessage.session)
                }
                if let user = try await accounts.user(account.id, on: sql) { effects.profiles.append(user) }
                return true
            }
        }
        guard taken else {
            try await guesses.settle(attempt)
            throw DomainError(.invalid, code: "invalid_code", message: "The code is wrong, used or expired; ask for a new one.", fields: ["code": "is wrong, used or expired"])
        }
        try await guesses.release(attempt, subjects: subjects)
    }

    private func checkedEmail(_ email: String?) throws -> String {
        guard mailEnabled else {
            throw DomainError(.invalid, code: "mail_not_enabled", message: "This server sends no mail, so it cannot send codes.")
        }
        var v = Validator()
        let normalized = check(email, into: &v)
        try v.throwIfInvalid()
        return normalized
    }

    /// The normalized email; a problem with it goes into `v`.
    private func check(_ email: String?, into v: inout Validator) -> String {
        if let email {
            v.check(AccountService.validEmail(email.trimmingCharacters(in: .whitespacesAndNewlines)), "email", "must be an email address")
        } else {
            v.fail("email", "is required")
        }
        return AccountService.normalize(email: email ?? "")
    }

    private func check(code: String?, into v: inout Validator) {
        if let code {
            v.check(code.utf8.count == 6 && code.utf8.allSatisfy { (0x30...0x39).contains($0) }, "code", "must be the 6 digits of the mail")
        } else {
            v.fail("code", "is required")
        }
    }

    /// Six random digits.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
    }

    static func digest(_ code: String, user: UUID, purpose: Purpose) -> String {
        SHA256.hash(data: Array("sportlook-code\n\(purpose.rawValue)\n\(user.lowercased)\n\(code)".utf8)).hexString
    }

    static func mail(_ purpose: Purpose, code: String, to address: String) -> MailMessage {
        let minutes = Int(lifetime / 60)
        switch purpose {
        case .verify:
            return MailMessage(to: address, subject: "Your SportLook verification code", text: """
                Your code to verify this email address for SportLook:

                    \(code)

                It works once, within \(minutes) minutes. If you did not ask for it, you can ignore this mail.
                """)
        case .reset:
            return MailMessage(to: address, subject: "Your SportLook password reset code", text: """
                Someone, we hope you, asked to set a new password for the SportLook account of this address. Your code:

                    \(code)

                It works once, within \(minutes) minutes. If you did not ask for it, ignore this mail: your password stays as it is.
                """)
        }
    }
}

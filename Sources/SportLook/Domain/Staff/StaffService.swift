import Foundation

/// Who is staff, decided here once: giving and taking roles, each recorded in the
/// audit log with who did it and why. Taking a role ends the person's sessions, so no
/// session goes on with powers it no longer has.
struct StaffService: Sendable {
    let store: StaffStore
    let sessions: SessionStore
    let write: Writer
    let clock: any AppClock

    /// Gives the account with `email` the staff role `role` (replacing another). Only an
    /// admin, or the command line, may.
    @discardableResult
    func grant(_ role: StaffRole, to email: String, by actor: AuditActor, reason: String) async throws -> AuditEntry {
        try await change(email, to: role, by: actor, reason: reason)
    }

    /// Takes the account's staff role away and ends its sessions.
    @discardableResult
    func revoke(from email: String, by actor: AuditActor, reason: String) async throws -> AuditEntry {
        try await change(email, to: nil, by: actor, reason: reason)
    }

    /// The person's staff role now (read from the database on every call: a role taken
    /// away stops at once).
    func role(of user: UUID) async throws -> StaffRole? {
        try await write.database.read { [store] sql in try await store.role(of: user, on: sql) }
    }

    /// Every member of staff.
    func staff() async throws -> [(id: UUID, name: String, email: String, role: StaffRole)] {
        try await write.database.read { [store] sql in try await store.staff(on: sql) }
    }

    /// The audit log, newest first.
    func log(action: String? = nil, targetID: String? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        try await write.database.read { [store] sql in
            try await store.entries(action: action, targetID: targetID, limit: min(max(limit, 1), 1_000), on: sql)
        }
    }

    /// Why staff did something, as the audit log keeps it: said, in at most 1,000 bytes.
    static func reason(_ text: String?) throws -> String {
        var v = Validator()
        guard let reason = v.text(text, "reason", 1...1_000, maxBytes: 1_000, multiline: true) else {
            throw DomainError.invalidParameter("reason", Sentence("must say why, in at most 1,000 bytes, without control characters"))
        }
        return reason
    }

    /// The actor's name, if an admin now (their row locked and read in the transaction);
    /// the command line always may. 403 `admins_only` for anyone else.
    static func requireAdmin(_ actor: AuditActor, staff: StaffStore, on sql: DatabaseSession) async throws -> String {
        guard let id = actor.id else { return actor.label }
        guard let account = try await staff.lock([id], on: sql)[id], account.role == .admin else {
            throw DomainError.forbidden("admins_only", Sentence("Only an admin may do this."))
        }
        return account.name
    }

    /// A person acting must be a live admin (as read in `locked`); the command line may.
    private static func requireAdmin(_ actor: AuditActor, in locked: [UUID: StaffStore.Account]) throws {
        guard let id = actor.id else { return }
        guard locked[id]?.role == .admin else {
            throw DomainError.forbidden("admins_only", Sentence("Only an admin gives or takes staff roles."))
        }
    }

    private func change(_ email: String, to role: StaffRole?, by actor: AuditActor, reason: String) async throws -> AuditEntry {
        let reason = try Self.reason(reason)
        let now = clock.now()
        return try await write { [store, sessions] sql, changes in
            guard let found = try await store.account(normalizedEmail: AccountService.normalize(email: email), on: sql) else {
                if actor.id != nil {
                    let locked = try await store.lock(Set([actor.id].compactMap { $0 }), on: sql)
                    try Self.requireAdmin(actor, in: locked)
                }
                throw DomainError.notFound(.account)
            }
            // The actor and the account, locked and read again: two admins changing each
            // other at once go one after the other.
            let locked = try await store.lock(Set([found.id] + [actor.id].compactMap { $0 }), on: sql)
            try Self.requireAdmin(actor, in: locked)
            guard let account = locked[found.id] else { throw DomainError.notFound(.account) }
            if role != nil, !account.emailVerified {
                throw DomainError.conflict("email_not_verified", Sentence("A staff role goes only to an account whose email is verified."))
            }
            if account.role == role {
                throw role == nil
                    ? DomainError.conflict("not_staff", Sentence("The account has no staff role."))
                    : DomainError.conflict("unchanged", Sentence("The account has that role already."))
            }
            let actorName = actor.id.flatMap { locked[$0]?.name } ?? actor.label
            try await store.setRole(role, of: account.id, on: sql)
            if role == nil || account.role == .admin {
                // Powers taken away: no session goes on with them.
                changes.sessionsEnded(try await sessions.revokeTokens(of: account.id, except: nil, at: now, on: sql))
            }
            return try await store.record(
                role == nil ? "staff_revoked" : "staff_granted", by: actor, name: actorName, target: ("user", account.id.lowercased),
                reason: reason, details: ["role": role?.rawValue ?? "none", "was": account.role?.rawValue ?? "none"], at: now, on: sql)
        }
    }
}

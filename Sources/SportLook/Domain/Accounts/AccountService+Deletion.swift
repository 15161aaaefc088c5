import Foundation

/// Deleting an account: by its owner, or by staff on the owner's written request.
extension AccountService {
    /// Deletes the caller's account: every session ends, the upcoming events they
    /// organise are cancelled (attendees are told), their places are given up,
    /// invitations and personal data are erased, they leave every group (a group they
    /// owned passes on); chat messages stay, from "Deleted user".
    func deleteAccount(of identity: Identity) async throws {
        try await deleteAccount(identity.userID)
    }

    /// Deletes an account (``deleteAccount(of:)``); `first` runs at the start of the same
    /// transaction (a member of staff's check and audit row, when staff erase it on the
    /// person's request).
    func deleteAccount(_ id: UUID, first: (@Sendable (DatabaseSession) async throws -> Void)? = nil) async throws {
        let now = clock.now()
        let released = try await write { [accounts, events, media, groups] sql, changes in
            try await first?(sql)
            guard try await accounts.lockLive(id, on: sql) else { throw DomainError.notFound(.user) }
            try await events.withdraw(id, at: now, on: sql, changes: &changes)
            try await groups.leaveAll(id, at: now, on: sql, changes: &changes)
            // Every upload goes: photos, covers (past events keep no picture of theirs).
            let released = try await media.release(try await media.store.owned(by: id, on: sql), on: sql)
            let ended = try await sessions.revokeTokens(of: id, except: nil, at: now, on: sql)
            try await accounts.erase(id, at: now, on: sql)
            changes.sessionsEnded(ended)
            if let erased = try await accounts.user(id, on: sql) { changes.profile(erased) }
            return released
        }
        await media.removeBlobs(released)
    }
}

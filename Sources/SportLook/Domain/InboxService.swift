import Foundation

/// The notification inbox and the devices pushes go to.
struct InboxService: Sendable {
    let store: InboxStore
    let clock: any AppClock

    /// The user's notifications, newest first (only unread ones if asked); `more` when a next page exists.
    func list(user: UUID, unreadOnly: Bool, cursor: TimeCursor?, limit: Int) async throws -> (items: [InboxItem], more: Bool) {
        try await store.list(user: user, unreadOnly: unreadOnly, cursor: cursor, limit: limit)
    }

    /// One entry, by id.
    func item(_ id: UUID) async throws -> InboxItem? {
        try await store.item(id)
    }

    /// Marks the listed notifications read, or all of them when `ids` is nil.
    func markRead(user: UUID, ids: [UUID]?) async throws {
        try await store.markRead(user: user, ids: ids, at: clock.now())
    }

    /// Registers a device of the caller's session for pushes.
    func registerDevice(user: UUID, session: UUID, platform: String?, token: String?) async throws -> (platform: String, token: String) {
        var v = Validator()
        if platform == nil { v.fail("platform", "is required") }
        else if !["ios", "android", "web"].contains(platform!) { v.fail("platform", "must be one of ios, android, web") }
        let token = v.text(token, "token", 1...4_096, maxBytes: 4_096)
        try v.throwIfInvalid()
        guard let platform, let token else { throw DomainError.validation(v.fields) }
        try await store.register(user: user, session: session, platform: platform, token: token, at: clock.now())
        return (platform, token)
    }

    /// Removes one of the user's devices; 404 when the user has no such device.
    func removeDevice(user: UUID, token: String) async throws {
        guard !token.isEmpty, try await store.removeDevice(user: user, token: token) else { throw DomainError.notFound("device") }
    }
}

import Foundation
import Synchronization

/// Reading a room: membership, history, read markers, and what the socket hub asks.
extension ChatService {
    // MARK: Reading

    /// The room, if the user may read it: an event's room is public to know about
    /// (403 for those not taking part), a conversation is not (404).
    @discardableResult
    func requireMember(_ roomID: UUID, _ user: UUID) async throws -> Room {
        try await requireMember(roomID, user, found: store.membership(room: roomID, user: user))
    }

    /// ``requireMember(_:_:)`` for a socket subscribing, read with the others subscribing at once.
    func requireMemberSubscribing(_ roomID: UUID, _ user: UUID) async throws -> Room {
        try await requireMember(roomID, user, found: subscribing.call(ChatStore.Asked(room: roomID, user: user), ()))
    }

    /// Those the user blocked, for a socket subscribing, read with the others subscribing at once.
    func blockedBySubscribing(_ user: UUID) async throws -> Set<UUID> {
        try await blockLists.call(user, ()) ?? []
    }

    private func requireMember(_ roomID: UUID, _ user: UUID, found: (room: Room, member: Bool)?) async throws -> Room {
        guard let (room, member) = found else { throw DomainError.notFound(.room) }
        guard member else {
            if room.kind == .event { try await access.requireRoom(roomID, for: user) }
            throw Self.refusal(room)
        }
        return room
    }

    enum Direction: Sendable {
        /// Between two seqs (both excluded), ascending.
        case between(Int64, Int64)
        case after(Int64)
        case before(Int64)
        case latest
    }

    /// A page of history, ascending by `seq`, without messages of people the reader blocked.
    /// The page may come from a replica; who may read it is decided from memory for a
    /// live game's room (``EventAccess/takesPart(inRoomOf:_:)``), else on the primary.
    func history(of roomID: UUID, for user: UUID, direction: Direction, limit: Int) async throws -> Page<ChatMessage> {
        if try await !access.takesPart(inRoomOf: roomID, user) { try await requireMember(roomID, user) }
        // Whom the reader blocked is theirs alone to write: a replica past their own
        // commits has it (read-your-writes), so it may come from one.
        let blocked = try await Database.lagTolerant { try await safety.blockedBy(user) }
        let items: [ChatMessage]
        var next: String?
        switch direction {
        case .between(let low, let high):
            let rows = try await Database.lagTolerant { try await store.messages(room: roomID, after: low, limit: limit + 1) }.filter {
                $0.seq < high
            }
            items = Array(rows.prefix(limit))
            if rows.count > limit, let last = items.last { next = ChatCursor(after: last.seq).cursor }
        case .after(let seq):
            let rows = try await Database.lagTolerant { try await store.messages(room: roomID, after: seq, limit: limit + 1) }
            items = Array(rows.prefix(limit))
            if rows.count > limit, let last = items.last { next = ChatCursor(after: last.seq).cursor }
        case .before(let seq):
            let rows = try await Database.lagTolerant { try await store.messages(room: roomID, before: seq, limit: limit + 1) }
            items = Array(rows.suffix(limit))
            if rows.count > limit, let first = items.first { next = ChatCursor(before: first.seq).cursor }
        case .latest:
            let rows = try await Database.lagTolerant { try await store.messages(room: roomID, before: .max, limit: limit + 1) }
            items = Array(rows.suffix(limit))
            if rows.count > limit, let first = items.first { next = ChatCursor(before: first.seq).cursor }
        }
        return Page(items: items.compactMap { Blocks.view($0, hiding: blocked, viewer: user) }, nextCursor: next)
    }

    /// Moves the reader's marker to `seq` and tells the room (and the reader's other
    /// devices); `false`, and nothing announced, when it was already there or further.
    @discardableResult
    func markRead(_ roomID: UUID, user: UUID, seq: Int64) async throws -> Bool {
        let room = try await requireMember(roomID, user)
        guard seq >= 0, seq <= room.lastMessageSeq else {
            throw DomainError.invalidParameter("seq", Sentence("must be between 0 and the last message's seq (\(room.lastMessageSeq))"))
        }
        guard try await reads.markRead(room: roomID, user: user, seq: seq, at: clock.now()) else { return false }
        try await write.feed.publish([.read(room: roomID, user: user, seq: seq)])
        return true
    }

    // MARK: For the socket hub

    /// Up to `limit` messages of the room after `seq`, ascending (no membership check: the hub's own read).
    func messages(of roomID: UUID, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        try await store.messages(room: roomID, after: seq, limit: limit)
    }

    /// Up to `limit` messages changed after change number `change`, in change order.
    func changes(of roomID: UUID, after change: Int64, limit: Int) async throws -> [ChatMessage] {
        try await store.changes(room: roomID, after: change, limit: limit)
    }

    /// The room's counters; nil for no such room.
    func room(_ roomID: UUID) async throws -> Room? {
        try await store.room(roomID)
    }

    /// The room and whether the user takes part in it; nil for no such room.
    func membership(_ roomID: UUID, _ user: UUID) async throws -> (room: Room, member: Bool)? {
        try await store.membership(room: roomID, user: user)
    }

    /// Those the user blocked (their messages are not shown to the user).
    func blockedBy(_ user: UUID) async throws -> Set<UUID> {
        try await safety.blockedBy(user)
    }

    /// The user has the room open on this instance (no push for its messages).
    func present(_ user: UUID, in roomID: UUID, instance: String) async throws {
        try await presenceWrites.call(PresenceStore.Entry(instance: instance, user: user, room: roomID), true)
    }

    func absent(_ user: UUID, from roomID: UUID, instance: String) async throws {
        try await presenceWrites.call(PresenceStore.Entry(instance: instance, user: user, room: roomID), false)
    }

    /// Keeps this instance's presence alive (one row) and drops the instances gone for
    /// five minutes with their presence rows.
    func heartbeat(instance: String) async throws {
        let now = Date()
        try await presence.heartbeat(instance: instance, at: now, staleBefore: now.addingTimeInterval(-300))
    }
}

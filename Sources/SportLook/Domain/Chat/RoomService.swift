import Foundation

/// Conversations between two people, the chats list, and muting.
struct RoomService: Sendable {
    let store: RoomStore
    let chat: ChatStore
    let reads: ReadMarkerStore
    let safety: SafetyStore
    let accounts: AccountStore
    let write: Writer
    let clock: any AppClock

    /// The pair's one conversation, made on first asking (`created` true). Not with
    /// oneself, a deleted account, or someone either of the two blocked.
    func start(with other: UUID, by user: UUID) async throws -> (conversation: Conversation, created: Bool) {
        guard other != user else { throw DomainError.validation(["user_id": Sentence("must be someone else")]) }
        let now = clock.now()
        return try await write { [store, accounts] sql, changes in
            guard let person = try await accounts.user(other, on: sql), !person.isDeleted else { throw DomainError.notFound(.user) }
            if try await safety.eitherBlocked(user, other, on: sql) {
                throw DomainError.forbidden("blocked", Sentence("You cannot write to each other."))
            }
            var result = try await store.findOrCreate(between: user, and: other, at: now, on: sql)
            if result.created { changes.record(.roomState(user: user, room: result.conversation.roomID)) }
            result.conversation.sharesAnEvent = try await store.shareAnEvent(
                user, other, endedAfter: ChatService.sharingSince(now), on: sql)
            return result
        }
    }

    /// A conversation the user is part of.
    func conversation(_ room: UUID, for user: UUID) async throws -> Conversation {
        try await store.reading(on: nil) { [store, clock] sql in
            guard var conversation = try await store.conversation(room: room, on: sql), conversation.includes(user),
                let other = conversation.other(than: user)
            else { throw DomainError.notFound(.conversation) }
            conversation.sharesAnEvent = try await store.shareAnEvent(
                user, other.id, endedAfter: ChatService.sharingSince(clock.now()), on: sql)
            return conversation
        }
    }

    /// The one asked answers a message request: accept (both write freely) or
    /// decline (the sender cannot write again unless the one asked does).
    func answer(_ room: UUID, by user: UUID, accept: Bool) async throws -> Conversation {
        try await write { [store, chat, clock] sql, changes in
            // In the room's lock: an answer and a message of the one asked take turns.
            _ = try await chat.lockRoom(room, on: sql)
            guard let conversation = try await store.conversation(room: room, on: sql), conversation.includes(user) else {
                throw DomainError.notFound(.conversation)
            }
            let wanted: ConversationState = accept ? .open : .declined
            if conversation.state == wanted { return conversation }
            guard [.requested, .declined].contains(conversation.state), let asker = conversation.requestedBy, asker != user else {
                throw DomainError.conflict("no_request", Sentence("There is no message request for you to answer in this conversation."))
            }
            let requestedBy: UUID? = accept ? nil : asker
            try await store.setState(room: room, wanted, requestedBy: requestedBy, on: sql)
            for person in conversation.people { changes.record(.roomState(user: person.id, room: room)) }
            var updated = conversation
            updated.state = wanted
            updated.requestedBy = requestedBy
            if let other = conversation.other(than: user) {
                updated.sharesAnEvent = try await store.shareAnEvent(
                    user, other.id, endedAfter: ChatService.sharingSince(clock.now()), on: sql)
            }
            return updated
        }
    }

    /// A page of the user's rooms, most recent activity first.
    func list(for user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<RoomListing> {
        let sharingSince = ChatService.sharingSince(clock.now())
        // The list may come from a replica (the caller's own changes are there).
        let rows = try await Database.lagTolerant {
            try await store.listing(user: user, after: cursor, limit: limit + 1, sharingSince: sharingSince)
        }
        let items = try await seen(Array(rows.prefix(limit)), by: user)
        let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.room.lastActivityAt, id: $0.room.id).cursor } : nil
        return Page(items: items, nextCursor: next)
    }

    /// The user's view of these rooms (those they are in), for live updates.
    func listings(_ rooms: [UUID], for user: UUID) async throws -> [RoomListing] {
        try await seen(
            try await store.listing(
                user: user, after: nil, limit: rooms.count, only: rooms, sharingSince: ChatService.sharingSince(clock.now())), by: user)
    }

    /// The listings as `user` sees them: the last messages without what of the people
    /// they blocked they carry (the store already chose a last message not theirs).
    private func seen(_ listings: [RoomListing], by user: UUID) async throws -> [RoomListing] {
        guard listings.contains(where: { $0.lastMessage != nil }) else { return listings }
        // The reader's own blocks: a replica past their commits has them (read-your-writes).
        let hidden = try await Database.lagTolerant { try await safety.blockedBy(user) }
        // A poll is not there for the people its author blocked (``Blocks/view(_:hiding:viewer:)``).
        let polls = listings.contains { $0.lastMessage?.isPoll == true }
        let blockers = polls ? try await safety.blockedEitherWay(user).subtracting(hidden) : []
        guard !hidden.isEmpty || !blockers.isEmpty else { return listings }
        return listings.map { listing in
            var seen = listing
            seen.lastMessage = listing.lastMessage.flatMap { message in
                message.isPoll && blockers.contains(message.sender.id) ? nil : Blocks.view(message, hiding: hidden, viewer: user)
            }
            return seen
        }
    }

    /// The rooms the user is in.
    func roomIDs(of user: UUID) async throws -> Set<UUID> {
        try await store.roomIDs(of: user)
    }

    /// The longest mute for a time; beyond, one mutes until unmuting.
    static let longestMute: TimeInterval = 366 * 86_400

    /// The farthest a mute reaches: muting "until unmuted" stores this.
    static let indefinitely = Date(timeIntervalSince1970: 253_402_300_799)

    /// Mutes the room for the user until `until` (nil: until unmuted); pushes stop,
    /// except for messages that mention them.
    func mute(_ room: UUID, user: UUID, until: Date?) async throws {
        let now = clock.now()
        if let until, until <= now || until > now.addingTimeInterval(Self.longestMute) {
            throw DomainError.validation(["until": Sentence("must be in the future, within a year (leave it out to mute until unmuted)")])
        }
        try await requireMember(room, user)
        try await reads.mute(room: room, user: user, until: until ?? Self.indefinitely, at: now)
        try await write.feed.publish([.roomState(user: user, room: room)])
    }

    func unmute(_ room: UUID, user: UUID) async throws {
        try await requireMember(room, user)
        try await reads.mute(room: room, user: user, until: nil, at: clock.now())
        try await write.feed.publish([.roomState(user: user, room: room)])
    }

    private func requireMember(_ room: UUID, _ user: UUID) async throws {
        guard let (found, member) = try await chat.membership(room: room, user: user) else { throw DomainError.notFound(.room) }
        guard member else { throw ChatService.refusal(found) }
    }
}

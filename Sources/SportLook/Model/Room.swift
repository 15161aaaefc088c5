import Foundation

/// What a chat room belongs to: an event (the room has the event's id), a
/// conversation between two people, or a group (the room has the group's id).
enum RoomKind: String, Sendable, Hashable {
    case event, conversation, group
}

/// A chat room, as stored: its message and change counters.
struct Room: Sendable, Hashable {
    var id: UUID
    var kind: RoomKind
    /// The event of an event's room (the same id).
    var eventID: UUID?
    /// The last message's `seq` (messages are numbered 1, 2, 3… without gaps).
    var lastMessageSeq: Int64
    /// The last edit's or deletion's number (its own sequence, per room).
    var lastChangeSeq: Int64
    var lastActivityAt: Date
}

/// Where a conversation stands. `new`: nobody wrote yet. `requested`: a first
/// message from someone who shares no event with the other, waiting for them.
/// `open`: both write freely. `declined`: the other said no; the sender cannot write.
enum ConversationState: String, Sendable, Hashable {
    case new, requested, open, declined
}

/// A two-person conversation.
struct Conversation: Sendable, Hashable {
    var roomID: UUID
    /// The two people, in id order.
    var people: [UserSummary]
    var createdBy: UUID
    var state: ConversationState
    /// Who sent the request, while `requested` or `declined`.
    var requestedBy: UUID?
    var createdAt: Date
    /// The two are both going to (or organising) an event that is not long over: they
    /// write freely while it lasts (``ChatService/sharedEventGrace``).
    var sharesAnEvent = false

    /// Whether `user` may send now (blocks aside): not while their own request waits,
    /// unless the two share an event, and never after it was declined.
    func maySend(_ user: UUID) -> Bool {
        guard requestedBy == user else { return true }
        switch state {
        case .declined: return false
        case .requested: return sharesAnEvent
        case .new, .open: return true
        }
    }

    /// The other person, seen from `user`.
    func other(than user: UUID) -> UserSummary? { people.first { $0.id != user } }

    func includes(_ user: UUID) -> Bool { people.contains { $0.id == user } }
}

/// A room as one member sees it in their chats list.
struct RoomListing: Sendable, Hashable {
    var room: Room
    /// The event, for an event's room.
    var event: RoomEvent?
    /// The conversation, for a conversation.
    var conversation: Conversation?
    var lastMessage: ChatMessage?
    /// The group, for a group's room.
    var group: RoomGroup? = nil
    /// Messages after the member's read marker, from others, not deleted.
    var unreadCount: Int
    /// Until when the member muted the room; `distantFuture` until unmuted.
    var mutedUntil: Date?
    var lastReadSeq: Int64
}

/// What a chats list shows of a group.
struct RoomGroup: Sendable, Hashable {
    var id: UUID
    var name: String
}

/// What a chats list shows of an event.
struct RoomEvent: Sendable, Hashable {
    var id: UUID
    var title: String
    var startsAt: Date
    var status: EventStatus
}

import Foundation

/// A chat message, in its current state (edited, deleted, reacted to).
struct ChatMessage: Sendable, Hashable {
    var id: UUID
    var roomID: UUID
    /// The event, when the room is an event's.
    var eventID: UUID?
    var seq: Int64
    var sender: UserSummary
    var clientID: String
    /// Empty when the message is an image only, or deleted.
    var body: String
    var createdAt: Date
    var attachment: ChatAttachment? = nil
    /// The message this one answers.
    var replyTo: ChatReply? = nil
    /// Room members the message mentions.
    var mentions: [UUID] = []
    /// The room's change number of the last edit, deletion or reaction (0: none).
    var changeSeq: Int64 = 0
    var editedAt: Date? = nil
    /// A deleted message keeps its seq; its body and image are gone.
    var deletedAt: Date? = nil
    /// Reactions, by emoji in the order of the allowed set, with who reacted.
    var reactions: [ChatReaction] = []
    /// Whether the message is a poll (its `poll` is read with it).
    var isPoll: Bool = false
    var poll: ChatPoll? = nil
}

/// The image a chat message carries: its variants and the largest one's size (so a
/// client lays the message out before the image arrives).
struct ChatAttachment: Sendable, Hashable {
    var image: MediaRef
    var width: Int
    var height: Int
}

/// A quoted preview of the message a reply answers.
struct ChatReply: Sendable, Hashable {
    var seq: Int64
    var sender: UserSummary
    /// The start of its text; empty when that message was deleted or is an image.
    var preview: String
    var deleted: Bool
}

/// One emoji on a message and the people who put it there.
struct ChatReaction: Sendable, Hashable {
    var emoji: String
    var users: [UUID]
}

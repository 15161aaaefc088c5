import Foundation
internal import SportLookAPI

/// A chat message in its current state, as the socket and the history carry it.
///
/// Messages of a room are numbered by ``seq`` (1, 2, 3… with none skipped); each change to
/// one (an edit, a reaction, a vote, a deletion) gives it a new ``changeSeq``.
public struct Message: Hashable, Sendable, Codable, Identifiable {
    /// A message's id.
    public typealias ID = Identifier<Message>

    /// The message a reply answers, quoted.
    public struct Reply: Hashable, Sendable, Codable {
        /// The answered message's number in the room.
        public var seq: Int
        /// Who wrote it.
        public var sender: Person
        /// The start of its text (empty once it is deleted).
        public var preview: String
        /// Whether it was deleted since.
        public var isDeleted: Bool
    }

    /// One reaction on the message and who put it there.
    public struct Reactions: Hashable, Sendable, Codable {
        /// The emoji.
        public var reaction: Reaction
        /// How many put it there.
        public var count: Int
        /// Who put it there.
        public var people: [Person.ID]
    }

    /// The message's id.
    public var id: ID
    /// Its room.
    public var room: String
    /// The game of the room, for a game's chat.
    public var event: Event.ID?
    /// Its number in the room.
    public var seq: Int
    /// Who wrote it.
    public var sender: Person
    /// Its text (empty once deleted, or for an image alone).
    public var body: String
    /// The id its sender gave it, so that sending it twice stores it once.
    public var clientID: String
    /// When it was sent.
    public var createdAt: Date
    /// The image it carries.
    public var attachment: Attachment?
    /// The message it answers.
    public var replyTo: Reply?
    /// The people it mentions.
    public var mentions: [Person.ID]
    /// Its reactions, in the order of ``Reaction``'s cases.
    public var reactions: [Reactions]
    /// The room's change number of its latest change.
    public var changeSeq: Int
    /// When it was last edited.
    public var editedAt: Date?
    /// Whether it was deleted (it stays in the history, without its text).
    public var isDeleted: Bool
    /// When it was deleted.
    public var deletedAt: Date?
    /// The poll it asks, for a poll.
    public var poll: Poll?

    init(_ message: Components.Schemas.ChatMessage) throws {
        id = try .parse(message.id)
        room = message.roomId
        event = try message.eventId.map(Event.ID.parse)
        seq = message.seq
        sender = try Person(message.sender)
        body = message.body
        clientID = message.clientId
        createdAt = message.createdAt
        attachment = try message.attachment.map { try Attachment($0.value1) }
        replyTo = try message.replyTo.map {
            Reply(seq: $0.seq, sender: try Person($0.sender), preview: $0.preview, isDeleted: $0.deleted)
        }
        mentions = try message.mentions.map(Person.ID.parse)
        reactions = try message.reactions.compactMap { given in
            guard let reaction = Reaction(rawValue: given.emoji.rawValue) else { return nil }
            return Reactions(reaction: reaction, count: given.count, people: try given.userIds.map(Person.ID.parse))
        }
        changeSeq = message.changeSeq
        editedAt = message.editedAt
        isDeleted = message.deleted
        deletedAt = message.deletedAt
        poll = try message.poll.map { try Poll($0.value1) }
    }
}

/// The image a message carries. Its links are signed and stop working at ``expiresAt``:
/// read the history again for fresh ones.
public struct Attachment: Hashable, Sendable, Codable, Identifiable {
    /// The photo's id.
    public var id: Photo.ID
    /// The largest variant's width in pixels.
    public var width: Int
    /// The largest variant's height in pixels.
    public var height: Int
    /// Each variant's link by its name (its longest side in pixels: `"2048"`, `"320"`…).
    public var urls: [String: String]
    /// When the links stop working.
    public var expiresAt: Date

    init(_ attachment: Components.Schemas.ChatAttachment) throws {
        id = try .parse(attachment.id)
        width = attachment.width
        height = attachment.height
        urls = attachment.urls.additionalProperties
        expiresAt = attachment.expiresAt
    }
}

/// A poll in a chat message: a question with 2–10 answers or time slots.
public struct Poll: Hashable, Sendable, Codable {
    /// What the answers are.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// Answers in words.
        case choice
        /// Time slots (a closed one can become a game or a weekly series).
        case time
    }

    /// One answer and who chose it.
    public struct Option: Hashable, Sendable, Codable {
        /// Its position (what a vote names).
        public var position: Int
        /// Its words.
        public var label: String
        /// A time slot's start.
        public var startsAt: Date?
        /// A time slot's end.
        public var endsAt: Date?
        /// How many chose it.
        public var count: Int
        /// The first 20 who chose it (empty for an anonymous poll).
        public var people: [Person.ID]
    }

    /// Answers in words or time slots.
    public var kind: Kind
    /// Whether several answers may be chosen.
    public var multiple: Bool
    /// Whether who voted for what stays hidden.
    public var anonymous: Bool
    /// A sign-up list: each answer may be taken by one person.
    public var onePerOption: Bool
    /// When it closes.
    public var closesAt: Date
    /// Whether it has closed.
    public var isClosed: Bool
    /// When it closed.
    public var closedAt: Date?
    /// The answers, in order.
    public var options: [Option]
    /// How many people voted.
    public var votersCount: Int
    /// The positions the signed-in person chose.
    public var myVotes: [Int]
    /// The game a closed time poll became.
    public var event: Event.ID?
    /// The weekly series a closed time poll became.
    public var series: Series.ID?

    init(_ poll: Components.Schemas.Poll) throws {
        kind = Kind(rawValue: poll.kind.rawValue) ?? .choice
        multiple = poll.multiple
        anonymous = poll.anonymous
        onePerOption = poll.onePerOption
        closesAt = poll.closesAt
        isClosed = poll.closed
        closedAt = poll.closedAt
        options = try poll.options.map {
            Option(
                position: $0.position, label: $0.label, startsAt: $0.startsAt, endsAt: $0.endsAt, count: $0.count,
                people: try $0.userIds.map(Person.ID.parse))
        }
        votersCount = poll.votersCount
        myVotes = poll.myVotes
        event = try poll.eventId.map(Event.ID.parse)
        series = try poll.seriesId.map(Series.ID.parse)
    }

    /// The poll with `votes` applied: counts, voters and the signed-in person's choice
    /// (a `poll_votes` frame changes only those; a sign-up list's takers too).
    public func with(_ votes: PollVotes) -> Poll {
        var poll = self
        for index in poll.options.indices where index < votes.counts.count {
            poll.options[index].count = votes.counts[index]
            if poll.onePerOption, index < votes.takenBy.count {
                // A sign-up list's slot: its taker now, or no one once it was given up.
                poll.options[index].people = votes.takenBy[index].flatMap(Person.ID.init).map { [$0] } ?? []
            }
        }
        poll.votersCount = votes.votersCount
        poll.myVotes = votes.myVotes
        return poll
    }
}

/// A chats-list entry: a room the signed-in person may read, with its unread count and
/// its last message.
public struct ChatRoom: Hashable, Sendable, Codable, Identifiable {
    /// What the room belongs to.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// A game's chat.
        case event
        /// A two-person conversation.
        case conversation
        /// A group's chat.
        case group
    }

    /// The room's id (what ``ChatSession`` and ``SportLookClient/Chat`` take).
    public var id: String
    /// What it belongs to.
    public var kind: Kind
    /// What the list shows: the game's title, the group's name, the other person's name.
    public var title: String
    /// The game, for a game's chat.
    public var event: Event.ID?
    /// Whether that game was cancelled.
    public var eventCancelled: Bool
    /// The group, for a group's chat.
    public var group: Group.ID?
    /// The conversation, for a two-person conversation.
    public var conversation: Conversation?
    /// The number of its newest message.
    public var lastSeq: Int
    /// Its newest change number.
    public var lastChangeSeq: Int
    /// How far the signed-in person read.
    public var lastReadSeq: Int
    /// Messages after that, of others.
    public var unreadCount: Int
    /// When something last happened in it (the list's order, newest first).
    public var lastActivityAt: Date
    /// Its newest message.
    public var lastMessage: Message?
    /// Whether its notifications are silenced.
    public var muted: Bool
    /// Until when, when not for good.
    public var mutedUntil: Date?

    init(_ room: Components.Schemas.RoomListing) throws {
        id = room.id
        kind = Kind(rawValue: room.kind.rawValue) ?? .event
        title = room.title
        event = try room.event.map { try Event.ID.parse($0.id) }
        eventCancelled = room.event?.status == .cancelled
        group = try room.group.map { try Group.ID.parse($0.id) }
        conversation = try room.conversation.map { try Conversation($0.value1) }
        lastSeq = room.lastSeq
        lastChangeSeq = room.lastChangeSeq
        lastReadSeq = room.lastReadSeq
        unreadCount = room.unreadCount
        lastActivityAt = room.lastActivityAt
        lastMessage = try room.lastMessage.map { try Message($0.value1) }
        muted = room.muted
        mutedUntil = room.mutedUntil
    }
}

/// An uploaded photo and its sizes.
public struct Photo: Hashable, Sendable, Codable, Identifiable {
    /// A photo's id (what `photoID`, `coverID` and `attachmentID` arguments take).
    public typealias ID = Identifier<Photo>

    /// What a photo is for.
    public enum Use: String, Hashable, Sendable, Codable, CaseIterable {
        /// A profile picture.
        case profile
        /// A game's or a group's cover.
        case cover
        /// An image in a chat message.
        case chat
    }

    /// One size of the photo.
    public struct Variant: Hashable, Sendable, Codable {
        /// Its name: its longest side in pixels (`"1280"`, `"480"`…).
        public var name: String
        /// In pixels.
        public var width: Int
        /// In pixels.
        public var height: Int
        /// Its size in bytes.
        public var bytes: Int
        /// Where it is.
        public var url: String
    }

    /// The photo's id.
    public var id: ID
    /// What it is for.
    public var use: Use
    /// The largest variant's width in pixels.
    public var width: Int
    /// The largest variant's height in pixels.
    public var height: Int
    /// Its sizes, smallest first.
    public var variants: [Variant]
    /// When it was uploaded.
    public var createdAt: Date

    init(_ media: Components.Schemas.Media) throws {
        id = try .parse(media.id)
        use = Use(rawValue: media.use.rawValue) ?? .chat
        width = media.width
        height = media.height
        variants = media.variants.map { Variant(name: $0.name, width: $0.width, height: $0.height, bytes: $0.bytes, url: $0.url) }
        createdAt = media.createdAt
    }
}

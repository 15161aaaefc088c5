import Foundation

/// A chat message as the socket and the history carry it.
public struct ChatMessage: Sendable, Hashable, Decodable {
    public struct Sender: Sendable, Hashable, Decodable {
        public var id: UUID
        public var name: String
    }

    public struct Reaction: Sendable, Hashable, Decodable {
        public var emoji: String
        public var count: Int
        public var mine: Bool
    }

    public var id: UUID
    public var roomID: UUID
    /// The message's number in its room: 1, 2, 3… without gaps.
    public var seq: Int64
    public var sender: Sender
    /// The text; empty once deleted.
    public var body: String
    /// The sender's idempotency key: sent twice, stored once.
    public var clientID: String
    public var createdAt: Date
    public var editedAt: Date?
    public var deleted: Bool
    /// The room's change number of the message's last edit, reaction or deletion (0: none).
    public var changeSeq: Int64
    public var reactions: [Reaction]

    enum CodingKeys: String, CodingKey {
        case id, seq, sender, body, deleted, reactions
        case roomID = "room_id", clientID = "client_id", createdAt = "created_at", editedAt = "edited_at", changeSeq = "change_seq"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UUID.self, forKey: .id)
        roomID = try c.decode(UUID.self, forKey: .roomID)
        seq = try c.decode(Int64.self, forKey: .seq)
        sender = try c.decode(Sender.self, forKey: .sender)
        body = try c.decode(String.self, forKey: .body)
        clientID = try c.decode(String.self, forKey: .clientID)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        editedAt = try c.decodeIfPresent(Date.self, forKey: .editedAt)
        deleted = try c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        changeSeq = try c.decodeIfPresent(Int64.self, forKey: .changeSeq) ?? 0
        reactions = try c.decodeIfPresent([Reaction].self, forKey: .reactions) ?? []
    }
}

/// What a room's stream tells its reader, each once, in the order it happened.
public enum ChatEvent: Sendable, Hashable {
    /// A new message (seq after every one delivered before, none skipped).
    case message(ChatMessage)
    /// A message delivered before, as it is now: edited or reacted to.
    case edited(ChatMessage)
    /// A message delivered before was deleted (it stays, without its body).
    case deleted(ChatMessage)
    /// One of this session's messages was stored with this seq (its `message` event comes too).
    case sent(clientID: String, seq: Int64)
    /// A message of this session was refused for good (not retried): `code` and the server's words.
    case refused(clientID: String, code: String, message: String)
    case typing(user: UUID, name: String)
    /// Someone read the room up to `seq`.
    case read(user: UUID, seq: Int64)
    /// The server ended the subscription (`not_attending`, `not_a_member`…); the session does not resume it.
    case ended(reason: String)
}

/// One frame the server sends, decoded (the kinds the session acts on).
struct ServerFrame: Decodable {
    var type: String
    var roomID: UUID?
    var message: ChatMessage?
    var afterChange: Int64?
    var clientID: String?
    var seq: Int64?
    var lastSeq: Int64?
    var lastChangeSeq: Int64?
    var reason: String?
    var code: String?
    var text: String?
    var retryAfter: Double?
    var user: Person?
    var room: RoomEntry?

    struct Person: Decodable {
        var id: UUID
        var name: String?
    }

    enum CodingKeys: String, CodingKey {
        case type, message, seq, reason, code, user, room
        case roomID = "room_id", afterChange = "after_change", clientID = "client_id", lastSeq = "last_seq", lastChangeSeq = "last_change_seq"
        case retryAfter = "retry_after"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        roomID = try c.decodeIfPresent(UUID.self, forKey: .roomID)
        afterChange = try c.decodeIfPresent(Int64.self, forKey: .afterChange)
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        seq = try c.decodeIfPresent(Int64.self, forKey: .seq)
        lastSeq = try c.decodeIfPresent(Int64.self, forKey: .lastSeq)
        lastChangeSeq = try c.decodeIfPresent(Int64.self, forKey: .lastChangeSeq)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        code = try c.decodeIfPresent(String.self, forKey: .code)
        retryAfter = try c.decodeIfPresent(Double.self, forKey: .retryAfter)
        user = try c.decodeIfPresent(Person.self, forKey: .user)
        room = try c.decodeIfPresent(RoomEntry.self, forKey: .room)
        // A `message` frame carries the message; an `error` frame a sentence under "message".
        if type == "error" {
            text = try c.decodeIfPresent(String.self, forKey: .message)
        } else {
            message = try c.decodeIfPresent(ChatMessage.self, forKey: .message)
        }
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamps.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }
        return decoder
    }()
}

/// A chats-list entry as `watch_rooms` keeps it live.
public struct RoomEntry: Sendable, Hashable, Decodable {
    public var id: UUID
    /// `event`, `conversation` or `group`.
    public var kind: String
    public var title: String
    public var unreadCount: Int
    public var lastSeq: Int64
    public var muted: Bool

    enum CodingKeys: String, CodingKey {
        case id, kind, title, muted
        case unreadCount = "unread_count", lastSeq = "last_seq"
    }
}

/// A change to the chats list.
public enum RoomListEvent: Sendable, Hashable {
    case updated(RoomEntry)
    case removed(UUID)
}

/// RFC 3339 date-times as the server writes them (with milliseconds) or without fractions.
enum Timestamps {
    static func parse(_ text: String) -> Date? {
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? fractional.parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

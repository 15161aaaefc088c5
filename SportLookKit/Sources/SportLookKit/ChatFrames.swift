import Foundation
internal import SportLookAPI

/// What a room's stream tells its reader, each once, in the order it happened.
public enum ChatEvent: Sendable, Hashable {
    /// A new message (seq after every one delivered before, none skipped).
    case message(Message)
    /// A message delivered before, as it is now: edited or reacted to.
    case edited(Message)
    /// A message delivered before was deleted (it stays, without its body).
    case deleted(Message)
    /// Only the votes of a poll delivered before changed: its counts now.
    case pollVotes(PollVotes)
    /// One of this session's messages was stored with this seq (its `message` event comes too).
    case sent(clientID: String, seq: Int)
    /// A message of this session was refused for good (not retried): `code` and the server's words.
    case refused(clientID: String, code: String, message: String)
    /// Someone is typing (their id and name); typing frames come every few seconds while they type.
    case typing(user: String, name: String)
    /// Someone read the room up to `seq`.
    case read(user: String, seq: Int)
    /// The server ended the subscription (`not_attending`, `not_a_member`…); the session does not resume it.
    case ended(reason: String)
}

/// A poll's votes as they are now (`poll_votes`): the rest of its message is as delivered.
public struct PollVotes: Sendable, Hashable, Codable {
    /// The poll's message.
    public var seq: Int
    /// The message's change number with these votes (its `change_seq`).
    public var changeSeq: Int
    /// The votes of each option, in the options' order.
    public var counts: [Int]
    /// Who took each option of a sign-up list (nil elsewhere: who voted comes with the message).
    public var takenBy: [String?]
    /// How many people voted.
    public var votersCount: Int
    /// The positions this user chose.
    public var myVotes: [Int]

    enum CodingKeys: String, CodingKey {
        case seq, counts
        case changeSeq = "after_change", takenBy = "taken_by", votersCount = "voters_count", myVotes = "my_votes"
    }
}

/// One frame the server sends, as JSON has it (``SocketEvent`` is what it means).
struct ServerFrame: Decodable {
    var type: String
    var roomID: String?
    var message: Components.Schemas.ChatMessage?
    var afterChange: Int?
    var clientID: String?
    var seq: Int?
    var reason: String?
    var code: String?
    var text: String?
    var retryAfter: Double?
    var user: Person?
    var room: Components.Schemas.RoomListing?
    var votes: PollVotes?
    var notification: Components.Schemas.Notification?
    var writable: Bool?

    struct Person: Decodable {
        var id: String
        var name: String?
    }

    enum CodingKeys: String, CodingKey {
        case type, message, seq, reason, code, user, room, notification, writable
        case roomID = "room_id", afterChange = "after_change", clientID = "client_id"
        case retryAfter = "retry_after"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        roomID = try c.decodeIfPresent(String.self, forKey: .roomID)
        afterChange = try c.decodeIfPresent(Int.self, forKey: .afterChange)
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        seq = try c.decodeIfPresent(Int.self, forKey: .seq)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        code = try c.decodeIfPresent(String.self, forKey: .code)
        retryAfter = try c.decodeIfPresent(Double.self, forKey: .retryAfter)
        user = try c.decodeIfPresent(Person.self, forKey: .user)
        room = try c.decodeIfPresent(Components.Schemas.RoomListing.self, forKey: .room)
        notification = try c.decodeIfPresent(Components.Schemas.Notification.self, forKey: .notification)
        writable = try c.decodeIfPresent(Bool.self, forKey: .writable)
        if type == "poll_votes" { votes = try PollVotes(from: decoder) }
        // A `message` frame carries the message; an `error` frame a sentence under "message".
        if type == "error" {
            text = try c.decodeIfPresent(String.self, forKey: .message)
        } else {
            message = try c.decodeIfPresent(Components.Schemas.ChatMessage.self, forKey: .message)
        }
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamps.parse(text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }
        return decoder
    }()
}

/// A change to the chats list.
public enum RoomListEvent: Sendable, Hashable {
    /// An entry as it is now: a new message, a read on another device, a request or its answer, a mute.
    case updated(ChatRoom)
    /// The room (its id) is no longer in the list.
    case removed(String)
}

/// RFC 3339 date-times as the server writes them (with milliseconds) or without fractions.
enum Timestamps {
    static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let whole = Date.ISO8601FormatStyle()

    static func parse(_ text: String) -> Date? {
        if let date = try? fractional.parse(text) { return date }
        return try? whole.parse(text)
    }
}

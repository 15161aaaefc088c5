import Foundation
internal import SportLookAPI

/// One frame the chat socket (`GET /v1/ws`) sends, decoded once. A kind this version of
/// the package does not know (a newer server's) is ``unknown(type:)``, never an error.
public enum SocketEvent: Sendable, Hashable {
    /// A subscription began: the room's history after the asked position follows.
    case subscribed(room: String)
    /// A subscription ended: `requested` (the app's `unsubscribe`), `not_attending`,
    /// `not_a_member`, `unavailable` (the membership could not be checked: ask again)…
    case unsubscribed(room: String, reason: String)
    /// A message, in its current state; `afterChange` is the room's change number it
    /// accounts for, when the frame says so.
    case message(Message, afterChange: Int?)
    /// A message delivered before, as it is now (an edit or a reaction).
    case edited(Message, afterChange: Int?)
    /// A message delivered before was deleted.
    case deleted(Message, afterChange: Int?)
    /// A poll's votes alone changed (asked for with `poll_votes` on `subscribe`).
    case pollVotes(room: String, PollVotes)
    /// A message of this socket was stored (or had been, under the same `client_id`).
    case sent(clientID: String, seq: Int?)
    /// A frame was refused: its code, the server's words, and what it named.
    case error(SocketError)
    /// Someone is typing in a room.
    case typing(room: String, user: String, name: String)
    /// Someone read a room up to `seq`.
    case read(room: String, user: String, seq: Int)
    /// `watch_rooms` took effect: changes to the chats list follow.
    case watchingRooms
    /// A chats-list entry as it is now.
    case roomUpdated(ChatRoom)
    /// A room left the chats list.
    case roomRemoved(room: String)
    /// A new notification in the user's inbox.
    case notification(InboxItem)
    /// Whether the database takes writes (messages are refused with `read_only` while it does not).
    case database(writable: Bool)
    /// A room's message this package could not read (a newer server's field values): the
    /// session ends the room's stream rather than skip it (``ChatEvent/ended(reason:)``
    /// with `unreadable_message`); update the app.
    case unreadable(room: String, type: String)
    /// A frame of a kind this package does not know, or one it could not read.
    case unknown(type: String)

    /// Decodes one text frame; never fails (what cannot be read is ``unknown(type:)``).
    public init(decoding text: String) {
        guard let frame = try? ServerFrame.decoder.decode(ServerFrame.self, from: Data(text.utf8)) else {
            let kind = try? JSONDecoder().decode(FrameType.self, from: Data(text.utf8))
            if let kind, let room = kind.roomID, ServerFrame.messageTypes.contains(kind.type) {
                self = .unreadable(room: room, type: kind.type)
            } else {
                self = .unknown(type: kind?.type ?? "")
            }
            return
        }
        self = frame.event ?? .unknown(type: frame.type)
    }

    /// A frame's type, and its room (named by the frame, or by the message it carries).
    private struct FrameType: Decodable {
        var type: String
        var roomID: String?

        enum CodingKeys: String, CodingKey {
            case type, message
            case roomID = "room_id"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decode(String.self, forKey: .type)
            let message = try? c.nestedContainer(keyedBy: CodingKeys.self, forKey: .message)
            roomID =
                (try? c.decodeIfPresent(String.self, forKey: .roomID)) ?? (try? message?.decodeIfPresent(String.self, forKey: .roomID))
                ?? nil
        }
    }
}

/// A refusal on the socket (`error`).
public struct SocketError: Sendable, Hashable {
    /// `overloaded`, `rate_limited`, `unavailable` and `read_only` pass: the frame may be
    /// sent again after ``retryAfter``. Others (`not_found`, `forbidden`, `invalid_frame`…) do not.
    public var code: String
    /// The server's words.
    public var message: String
    /// The room the refused frame named.
    public var room: String?
    /// The refused message's `client_id`.
    public var clientID: String?
    /// Seconds to wait before sending again.
    public var retryAfter: Double?

    /// A refusal with its code and words.
    public init(code: String, message: String, room: String? = nil, clientID: String? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.room = room
        self.clientID = clientID
        self.retryAfter = retryAfter
    }

    /// Whether the same frame is worth sending again after ``retryAfter``.
    public var passes: Bool { Self.passing.contains(code) }

    static let passing: Set<String> = ["overloaded", "rate_limited", "unavailable", "read_only"]
}

/// One frame an app may send on the chat socket.
public enum SocketCommand: Sendable, Hashable {
    /// Follow a room from a position (`afterChange` nil: every message in its current state).
    case subscribe(room: String, afterSeq: Int, afterChange: Int?, pollVotes: Bool)
    /// Stop following a room.
    case unsubscribe(room: String)
    /// Send a message (the same `clientID` is stored once, however often it is sent).
    case message(room: String, clientID: String, body: String, replyTo: Int? = nil, attachmentID: String? = nil, mentions: [String] = [])
    /// The user is typing.
    case typing(room: String)
    /// The user read the room up to `seq`.
    case read(room: String, seq: Int)
    /// Follow the chats list.
    case watchRooms

    /// The frame as JSON text.
    public var text: String {
        var fields: [String: Any]
        switch self {
        case .subscribe(let room, let afterSeq, let afterChange, let pollVotes):
            fields = ["type": "subscribe", "room_id": room, "after_seq": afterSeq]
            if let afterChange { fields["after_change"] = afterChange }
            if pollVotes { fields["poll_votes"] = true }
        case .unsubscribe(let room): fields = ["type": "unsubscribe", "room_id": room]
        case .message(let room, let clientID, let body, let replyTo, let attachmentID, let mentions):
            fields = ["type": "message", "room_id": room, "client_id": clientID, "body": body]
            if let replyTo { fields["reply_to"] = replyTo }
            if let attachmentID { fields["attachment_id"] = attachmentID }
            if !mentions.isEmpty { fields["mentions"] = mentions }
        case .typing(let room): fields = ["type": "typing", "room_id": room]
        case .read(let room, let seq): fields = ["type": "read", "room_id": room, "seq": seq]
        case .watchRooms: fields = ["type": "watch_rooms"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

extension ServerFrame {
    /// The frames that carry a room's message.
    static let messageTypes: Set<String> = ["message", "message_edited", "message_deleted"]

    /// The frame's message as the package's model, or the room of one it cannot read.
    private func typed(_ make: (Message) -> SocketEvent) -> SocketEvent? {
        guard let message else { return nil }
        guard let typed = try? Message(message) else { return .unreadable(room: message.roomId, type: type) }
        return make(typed)
    }

    /// The frame as a typed event; nil for a known kind missing what it must carry.
    var event: SocketEvent? {
        switch type {
        case "subscribed": return roomID.map { .subscribed(room: $0) }
        case "unsubscribed":
            guard let roomID, let reason else { return nil }
            return .unsubscribed(room: roomID, reason: reason)
        case "message": return typed { .message($0, afterChange: afterChange) }
        case "message_edited": return typed { .edited($0, afterChange: afterChange) }
        case "message_deleted": return typed { .deleted($0, afterChange: afterChange) }
        case "poll_votes":
            guard let roomID, let votes else { return nil }
            return .pollVotes(room: roomID, votes)
        case "sent": return clientID.map { .sent(clientID: $0, seq: seq) }
        case "error":
            return .error(
                SocketError(code: code ?? "error", message: text ?? "", room: roomID, clientID: clientID, retryAfter: retryAfter))
        case "typing":
            guard let roomID, let user else { return nil }
            return .typing(room: roomID, user: user.id, name: user.name ?? "")
        case "read":
            guard let roomID, let user, let seq else { return nil }
            return .read(room: roomID, user: user.id, seq: seq)
        case "watching_rooms": return .watchingRooms
        case "room_updated": return room.flatMap { try? ChatRoom($0) }.map { .roomUpdated($0) }
        case "room_removed": return roomID.map { .roomRemoved(room: $0) }
        case "notification": return notification.flatMap { try? InboxItem($0) }.map { .notification($0) }
        case "database": return writable.map { .database(writable: $0) }
        default: return .unknown(type: type)
        }
    }
}

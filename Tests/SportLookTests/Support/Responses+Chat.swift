import Foundation
import SportLookAPI

@testable import SportLook

/// Chat, people, safety and media as the tests read them (socket frames: `Responses+Frames.swift`).
extension API {
    struct ChatMessage: Decodable, Sendable {
        var id: String
        var roomID: String
        /// The event, for an event's room (null in a conversation).
        @Nullable var eventID: String?
        var seq: Int
        var sender: UserSummary
        var body: String
        var clientID: String
        var createdAt: String
        /// The image the message carries (null for text only).
        @Nullable var attachment: ChatImage?
        @Nullable var replyTo: ChatReply?
        var mentions: [String]
        var reactions: [ChatReaction]
        var changeSeq: Int
        @Nullable var editedAt: String?
        var deleted: Bool
        @Nullable var deletedAt: String?
        @Nullable var poll: Poll?

        enum CodingKeys: String, CodingKey {
            case id, seq, sender, body, attachment, mentions, reactions, deleted, poll
            case roomID = "room_id"
            case eventID = "event_id"
            case clientID = "client_id"
            case createdAt = "created_at"
            case replyTo = "reply_to"
            case changeSeq = "change_seq"
            case editedAt = "edited_at"
            case deletedAt = "deleted_at"
        }
    }

    struct ChatReply: Decodable, Sendable {
        var seq: Int
        var sender: UserSummary
        var preview: String
        var deleted: Bool
    }

    struct ChatReaction: Decodable, Sendable {
        var emoji: String
        var count: Int
        var userIDs: [String]

        enum CodingKeys: String, CodingKey {
            case emoji, count
            case userIDs = "user_ids"
        }
    }

    /// An entry of `GET /v1/me/rooms`.
    struct RoomEntry: Decodable, Sendable {
        struct EventSummary: Decodable, Sendable {
            var id: String
            var title: String
            var startsAt: String
            var status: String

            enum CodingKeys: String, CodingKey {
                case id, title, status
                case startsAt = "starts_at"
            }
        }
        var id: String
        var kind: String
        var title: String
        @Nullable var event: EventSummary?
        @Nullable var conversation: Conversation?
        var lastSeq: Int
        var lastChangeSeq: Int
        var lastReadSeq: Int
        var unreadCount: Int
        var lastActivityAt: String
        @Nullable var lastMessage: ChatMessage?
        var muted: Bool
        @Nullable var mutedUntil: String?
        /// A group's room: the group.
        @Nullable var group: UserSummary?

        enum CodingKeys: String, CodingKey {
            case id, kind, title, event, conversation, muted, group
            case lastSeq = "last_seq"
            case lastChangeSeq = "last_change_seq"
            case lastReadSeq = "last_read_seq"
            case unreadCount = "unread_count"
            case lastActivityAt = "last_activity_at"
            case lastMessage = "last_message"
            case mutedUntil = "muted_until"
        }
    }

    /// `{id, width, height, urls: {"2048", "320"}, expires_at}`: signed links.
    struct ChatImage: Decodable, Sendable {
        var id: String
        var width: Int
        var height: Int
        var urls: [String: String]
        var expiresAt: String

        enum CodingKeys: String, CodingKey {
            case id, width, height, urls
            case expiresAt = "expires_at"
        }
    }

    /// `GET /v1/me/blocks`' items and a report's answer: the contract's own types.
    typealias Blocked = Components.Schemas.Blocked
    typealias Report = Components.Schemas.Report

    /// `POST /v1/media` and `GET /v1/media/{id}`: the contract's own type.
    typealias Media = Components.Schemas.Media

    /// `GET /ready`.
    struct Readiness: Decodable, Sendable {
        var status: String
        var checks: [String: Bool]
    }
}

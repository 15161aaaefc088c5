import Foundation
import SportLookAPI

@testable import SportLook

/// The frames the server sends on `/v1/ws`, as the tests read them.
extension API {
    /// A frame the server sends on `/v1/ws`: its `type`, and the fields of that type
    /// in the one part named after it (the others are nil). An unknown type fails the decode.
    struct Frame: Decodable, Sendable {
        var type: String
        var subscribed: Subscribed?
        var message: Message?
        /// `message_edited` and `message_deleted`.
        var change: Message?
        var votes: PollVotes?
        var sent: Sent?
        var typing: Typing?
        var read: Read?
        var notification: Notice?
        var unsubscribed: Unsubscribed?
        var roomUpdated: RoomUpdated?
        var roomRemoved: Addressed?
        var error: Failure?
        /// `database`: whether writes are taken.
        var database: Database?

        private enum TypeKey: String, CodingKey { case type }

        init(from decoder: any Decoder) throws {
            type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
            switch type {
            case "subscribed": subscribed = try Subscribed(from: decoder)
            case "message": message = try Message(from: decoder)
            case "message_edited", "message_deleted": change = try Message(from: decoder)
            case "poll_votes": votes = try PollVotes(from: decoder)
            case "sent": sent = try Sent(from: decoder)
            case "typing": typing = try Typing(from: decoder)
            case "read": read = try Read(from: decoder)
            case "notification": notification = try Notice(from: decoder)
            case "unsubscribed": unsubscribed = try Unsubscribed(from: decoder)
            case "room_updated": roomUpdated = try RoomUpdated(from: decoder)
            case "room_removed": roomRemoved = try Addressed(from: decoder)
            case "watching_rooms": break
            case "error": error = try Failure(from: decoder)
            case "database": database = try Database(from: decoder)
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .type, in: try decoder.container(keyedBy: TypeKey.self), debugDescription: "unknown frame type \(type)")
            }
        }

        struct Database: Decodable, Sendable {
            var writable: Bool
        }

        /// Every room frame names its room; an event's room also its event (the same id).
        struct Addressed: Decodable, Sendable {
            var roomID: String
            var eventID: String?

            enum CodingKeys: String, CodingKey {
                case roomID = "room_id"
                case eventID = "event_id"
            }
        }

        struct Subscribed: Decodable, Sendable {
            var roomID: String
            var eventID: String?
            var lastSeq: Int
            var lastChangeSeq: Int

            enum CodingKeys: String, CodingKey {
                case roomID = "room_id"
                case eventID = "event_id"
                case lastSeq = "last_seq"
                case lastChangeSeq = "last_change_seq"
            }
        }

        struct Message: Decodable, Sendable {
            var roomID: String
            var eventID: String?
            var message: ChatMessage
            /// The change position to resume from once this frame is received.
            var afterChange: Int

            enum CodingKeys: String, CodingKey {
                case message
                case roomID = "room_id"
                case eventID = "event_id"
                case afterChange = "after_change"
            }
        }

        /// The sender's acknowledgement of its own message.
        struct Sent: Decodable, Sendable {
            var roomID: String
            var eventID: String?
            var clientID: String
            var seq: Int
            var created: Bool

            enum CodingKeys: String, CodingKey {
                case seq, created
                case roomID = "room_id"
                case eventID = "event_id"
                case clientID = "client_id"
            }
        }

        struct Typing: Decodable, Sendable {
            var roomID: String
            var eventID: String?
            var user: UserSummary

            enum CodingKeys: String, CodingKey {
                case user
                case roomID = "room_id"
                case eventID = "event_id"
            }
        }

        struct Read: Decodable, Sendable {
            struct Reader: Decodable, Sendable { var id: String }
            var roomID: String
            var eventID: String?
            var user: Reader
            var seq: Int

            enum CodingKeys: String, CodingKey {
                case user, seq
                case roomID = "room_id"
                case eventID = "event_id"
            }
        }

        struct Notice: Decodable, Sendable {
            var notification: Notification
        }

        struct Unsubscribed: Decodable, Sendable {
            var roomID: String
            var eventID: String?
            var reason: String

            enum CodingKeys: String, CodingKey {
                case reason
                case roomID = "room_id"
                case eventID = "event_id"
            }
        }

        struct RoomUpdated: Decodable, Sendable {
            var room: RoomEntry
        }

        struct Failure: Decodable, Sendable {
            var code: String
            var message: String
            var roomID: String?
            var eventID: String?
            var clientID: String?
            /// Seconds after which trying again can succeed.
            var retryAfter: Int?

            enum CodingKeys: String, CodingKey {
                case code, message
                case roomID = "room_id"
                case eventID = "event_id"
                case clientID = "client_id"
                case retryAfter = "retry_after"
            }
        }
    }
}

import Foundation
import SportLook

/// What the server sends, as `openapi.yaml` (components/schemas) and the README's
/// realtime section describe it.
///
/// Tests read answers through these types, not through `[String: Any]` and casts:
/// a renamed or retyped field then fails the decode with a message naming the field
/// and the body, instead of turning into a `nil` that an assertion may not notice.
/// Fields the contract requires are non-optional; required but nullable ones are
/// `@Nullable` (present, as a value or null); optional ones are plain optionals.
/// Times and ids stay the text the server sent, so a check compares that text.
///
/// Keys are mapped by explicit `CodingKeys`, not by `.convertFromSnakeCase`: that
/// strategy would rename the keys inside free-form `JSONValue`s too (a notification's
/// `invitation_id` would be read as `invitationId`). `JSONValue` is the service's own.
extension API {
    static let decoder = JSONDecoder()

    /// `{"error": {"code", "message", "fields"?, "request_id"?}}`.
    struct ErrorBody: Decodable, Sendable {
        var error: Problem
    }

    struct Problem: Decodable, Sendable {
        var code: String
        var message: String
        var fields: [String: String]?
        var requestID: String?

        enum CodingKeys: String, CodingKey {
            case code, message, fields
            case requestID = "request_id"
        }
    }

    /// `{"items": [...], "next_cursor"}`; the short complete lists (sessions,
    /// sports, sent invitations) have no `next_cursor`.
    struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
        var items: [Item]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case items
            case nextCursor = "next_cursor"
        }
    }

    struct Location: Decodable, Sendable {
        var lat: Double
        var lon: Double
    }

    /// A sign-in that asked for a session cookie: no token in the body.
    struct CookieSession: Decodable, Sendable {
        var user: PrivateProfile
        var expiresAt: String
        var deviceKey: String

        enum CodingKeys: String, CodingKey {
            case user
            case expiresAt = "expires_at"
            case deviceKey = "device_key"
        }
    }

    struct AuthResult: Decodable, Sendable {
        var user: PrivateProfile
        var accessToken: String
        var tokenType: String
        var expiresAt: String
        var deviceKey: String

        enum CodingKeys: String, CodingKey {
            case user
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresAt = "expires_at"
            case deviceKey = "device_key"
        }
    }

    struct PrivateProfile: Decodable, Sendable {
        var id: String
        var name: String
        @Nullable var email: String?
        var emailVerified: Bool
        var bio: String
        @Nullable var imageURL: String?
        /// Every variant of the uploaded image by name (null without one).
        @Nullable var imageURLs: [String: String]?
        var sports: [String]
        @Nullable var location: Location?
        var discoverable: Bool
        var reminders: Bool
        var language: String
        var createdAt: String

        enum CodingKeys: String, CodingKey {
            case id, name, email, bio, sports, location, discoverable, reminders, language
            case emailVerified = "email_verified"
            case imageURL = "image_url"
            case imageURLs = "image_urls"
            case createdAt = "created_at"
        }
    }

    struct Session: Decodable, Sendable {
        var id: String
        var createdAt: String
        var expiresAt: String
        @Nullable var lastUsedAt: String?
        @Nullable var userAgent: String?
        var current: Bool

        enum CodingKeys: String, CodingKey {
            case id, current
            case createdAt = "created_at"
            case expiresAt = "expires_at"
            case lastUsedAt = "last_used_at"
            case userAgent = "user_agent"
        }
    }

    struct Sport: Decodable, Sendable {
        var slug: String
        var name: String
    }

    struct UserSummary: Decodable, Sendable {
        var id: String
        var name: String
    }

    struct Event: Decodable, Sendable {
        var id: String
        var title: String
        var sport: Sport
        var organiser: UserSummary
        var startsAt: String
        var endsAt: String
        var timeZone: String
        var reminders: [Int]
        var location: Location
        @Nullable var address: String?
        var description: String
        @Nullable var capacity: Int?
        var goingCount: Int
        var waitlistCount: Int
        @Nullable var spotsLeft: Int?
        var status: String
        @Nullable var imageURL: String?
        /// Every variant of the uploaded image by name (null without one).
        @Nullable var imageURLs: [String: String]?
        var createdAt: String
        var updatedAt: String
        @Nullable var myStatus: String?
        var myPosition: Int?
        var iOrganise: Bool?
        /// In nearby and in-box lists.
        var distanceM: Double?
        /// The group it belongs to, and whether its members alone see it.
        @Nullable var groupID: String?
        var membersOnly: Bool
        /// What playing costs (null: free).
        @Nullable var price: Price?

        struct Price: Decodable, Sendable, Hashable {
            var amount: Int
            var currency: String
            var split: Bool
            var lateCancelHours: Int
            enum CodingKeys: String, CodingKey { case amount, currency, split, lateCancelHours = "late_cancel_hours" }
        }

        enum CodingKeys: String, CodingKey {
            case id, title, sport, organiser, location, address, description, capacity, status, reminders, price
            case groupID = "group_id"
            case membersOnly = "members_only"
            case startsAt = "starts_at"
            case endsAt = "ends_at"
            case timeZone = "time_zone"
            case goingCount = "going_count"
            case waitlistCount = "waitlist_count"
            case spotsLeft = "spots_left"
            case imageURL = "image_url"
            case imageURLs = "image_urls"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
            case myStatus = "my_status"
            case myPosition = "my_position"
            case iOrganise = "i_organise"
            case distanceM = "distance_m"
        }
    }

    /// The caller's place after joining.
    struct Joined: Decodable, Sendable {
        var status: String
        var position: Int?
    }

    struct Ban: Decodable, Sendable {
        var user: UserSummary
        var bannedAt: String

        enum CodingKeys: String, CodingKey {
            case user
            case bannedAt = "banned_at"
        }
    }

    struct Attendee: Decodable, Sendable {
        var id: String
        var name: String
        @Nullable var imageURL: String?
        /// Every variant of the uploaded image by name (null without one).
        @Nullable var imageURLs: [String: String]?
        var status: String
        @Nullable var position: Int?
        var isOrganiser: Bool

        enum CodingKeys: String, CodingKey {
            case id, name, status, position
            case imageURL = "image_url"
            case imageURLs = "image_urls"
            case isOrganiser = "is_organiser"
        }
    }

    struct Invitation: Decodable, Sendable {
        var id: String
        var eventID: String
        var inviter: UserSummary
        var invitee: UserSummary
        var status: String
        var createdAt: String
        @Nullable var respondedAt: String?
        /// After accepting.
        var attendance: Joined?
        /// In the invitee's list.
        var event: Event?

        enum CodingKeys: String, CodingKey {
            case id, inviter, invitee, status, attendance, event
            case eventID = "event_id"
            case createdAt = "created_at"
            case respondedAt = "responded_at"
        }
    }

    struct Notification: Decodable, Sendable {
        var id: String
        var kind: String
        /// What it says, in the recipient's language.
        @Nullable var title: String?
        @Nullable var body: String?
        var createdAt: String
        @Nullable var readAt: String?
        /// Free-form, by kind.
        var data: [String: JSONValue]

        enum CodingKeys: String, CodingKey {
            case id, kind, data, title, body
            case createdAt = "created_at"
            case readAt = "read_at"
        }
    }

}

/// A field the contract requires but allows to be null. A plain optional would also
/// accept the key being absent; this decodes with `decode`, not `decodeIfPresent`,
/// so a missing key fails the decode while `null` reads as `nil`.
@propertyWrapper
struct Nullable<Value: Decodable & Sendable>: Decodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

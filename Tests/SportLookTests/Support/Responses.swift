import Foundation
import SportLookAPI

@testable import SportLook

/// What the server sends, as `openapi.yaml` (components/schemas) and the README's
/// realtime section describe it.
///
/// Tests read answers through typed values, not through `[String: Any]` and casts: a
/// renamed or retyped field then fails the decode with a message naming the field and
/// the body, instead of turning into a `nil` that an assertion may not notice. The
/// contract's own types come from it (SportLookKit's `SportLookAPI`, generated from
/// openapi.yaml), so a test reads exactly what a client generated from the contract
/// reads: times as dates, statuses as their enumerations. Every answer the suite
/// receives is also held against openapi.yaml strictly in CI (scripts/contract-check:
/// required fields present, null only where allowed, formats), which a generated type's
/// decoding leaves to it. Written by hand are only the shapes it does not name (the
/// error envelope, the generic page, the two shapes of a sign-in's answer); chat
/// messages, rooms, socket frames, polls, uploads, blocks, reports, readiness and the
/// staff routes' rows are the contract's.
extension API {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        // The contract's times: RFC 3339 in UTC, with milliseconds.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
            }
            return date
        }
        return decoder
    }()

    typealias Attendee = Components.Schemas.Attendee
    typealias Ban = Components.Schemas.Ban
    typealias Conversation = Components.Schemas.Conversation
    typealias Event = Components.Schemas.Event
    typealias Invitation = Components.Schemas.Invitation
    typealias Joined = Components.Schemas.Joined
    typealias Location = Components.Schemas.Location
    typealias Notification = Components.Schemas.Notification
    typealias PersonNearby = Components.Schemas.PersonNearby
    typealias PrivateProfile = Components.Schemas.PrivateProfile
    typealias PublicProfile = Components.Schemas.PublicProfile
    typealias Session = Components.Schemas.Session
    typealias Sport = Components.Schemas.Sport
    typealias UserSummary = Components.Schemas.UserSummary

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

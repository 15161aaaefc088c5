import Foundation

/// Any JSON value (for notification data, which differs by kind).
public enum JSONValue: Sendable, Hashable, Codable {
    case string(String), number(Double), bool(Bool), object([String: JSONValue]), array([JSONValue]), null

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .null: try c.encodeNil()
        }
    }

    func write(to json: inout JSONWriter) {
        switch self {
        case .string(let s): json.value(s)
        case .number(let n): if n == n.rounded(), abs(n) < 1e15 { json.value(Int(n)) } else { json.value(n) }
        case .bool(let b): json.value(b)
        case .null: json.null()
        case .array(let a):
            json.arrayStart()
            for v in a { v.write(to: &json) }
            json.arrayEnd()
        case .object(let o):
            json.objectStart()
            for (k, v) in o.sorted(by: { $0.key < $1.key }) {
                json.key(k)
                v.write(to: &json)
            }
            json.objectEnd()
        }
    }

    static func id(_ uuid: UUID) -> JSONValue { .string(uuid.lowercased) }
    static func person(_ id: UUID, _ name: String) -> JSONValue { .object(["id": .id(id), "name": .string(name)]) }
}

/// What people are told about.
public enum NotificationKind: String, Sendable, CaseIterable {
    case invitation
    case invitationAccepted = "invitation_accepted"
    case waitlistPromoted = "waitlist_promoted"
    case eventUpdated = "event_updated"
    case eventCancelled = "event_cancelled"
    case chatMessage = "chat_message"
    case reminder
    /// Enough players are going: the game happens.
    case gameOn = "game_on"
    /// A freed place is offered, for a while.
    case waitlistOffer = "waitlist_offer"
    /// The offer ran out.
    case waitlistOfferExpired = "waitlist_offer_expired"
    /// Someone asks to join a group (to its admins).
    case groupRequest = "group_request"
    /// An admin accepted the request: a member now.
    case groupRequestAccepted = "group_request_accepted"
    /// An admin refused the request.
    case groupRequestRefused = "group_request_refused"
    /// A group's admin made an event (to its members who did not mute the group).
    case groupEvent = "group_event"
    /// Staff acted on the person or their content: what, why, until when.
    case moderation = "moderation"
    /// Staff decided on a report the person made.
    case reportOutcome = "report_outcome"
    /// Staff decided an appeal the person made.
    case appealDecided = "appeal_decided"
    /// The person's data export is ready to download, until it expires.
    case dataExportReady = "data_export_ready"
    /// The organiser published the teams (or a newcomer was put on one): which is theirs.
    case teamsPublished = "teams_published"
    /// A rebalance after someone left or joined moved the person to another team.
    case teamMoved = "team_moved"
    /// A player of another team entered the score: confirm or dispute it.
    case resultEntered = "result_entered"
    /// A player who cannot come offers their place to the person, as a substitute.
    case substituteOffer = "substitute_offer"
    /// Someone took the place the person asked a substitute for.
    case substituteFound = "substitute_found"
    /// A poll in one of the person's rooms closes soon and they have not answered.
    case pollReminder = "poll_reminder"
    /// The person's poll closed.
    case pollClosed = "poll_closed"
    /// The person still owes money at a game (up to three reminders).
    case paymentDue = "payment_due"
    /// A player says they paid the organiser: confirm or decline it.
    case paymentClaimed = "payment_claimed"
}

/// One notification for one person: what a job delivers.
public struct NotificationMessage: Sendable, Hashable, Codable {
    /// The recipient.
    public var userID: UUID
    public var kind: String
    /// For the push notification.
    public var title: String
    public var body: String
    /// Structured details for the app.
    public var data: [String: JSONValue]
    /// Unread notifications with the same key collapse into one.
    public var collapseKey: String?

    /// What the inbox keeps of the body: not a chat message's preview (the message may be
    /// edited or removed; the room holds it), whose title names the room.
    var keptBody: String? { kind == NotificationKind.chatMessage.rawValue ? nil : body }

    init(to userID: UUID, _ kind: NotificationKind, title: String, body: String, data: [String: JSONValue], collapseKey: String? = nil) {
        self.userID = userID
        self.kind = kind.rawValue
        self.title = title
        self.body = body
        self.data = data
        self.collapseKey = collapseKey
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", kind, title, body, data, collapseKey = "collapse_key"
    }

    var encoded: String {
        String(decoding: (try? JSONEncoder.sorted.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Whether its details name one of `people` (a sender, an inviter, an organiser…):
    /// the rule a block applies to the recipient's inbox (``SafetyStore/block(_:by:at:on:)``
    /// removes the rows whose data holds the blocked person's id).
    func names(_ people: Set<UUID>) -> Bool {
        guard !people.isEmpty else { return false }
        let json = dataJSON
        return people.contains { json.contains("\"" + $0.lowercased + "\"") }
    }

    var dataJSON: String {
        var json = JSONWriter()
        JSONValue.object(data).write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

extension JSONEncoder {
    static let sorted: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

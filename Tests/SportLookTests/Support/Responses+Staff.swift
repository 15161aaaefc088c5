import Foundation

@testable import SportLook

/// The staff routes' answers as the tests read them.
extension API {
    struct StaffPerson: Decodable, Sendable, Equatable {
        var id: String
        var name: String
    }

    struct ModeratedMessage: Decodable, Sendable {
        var roomID: String
        var seq: Int
        var sender: StaffPerson
        var body: String
        @Nullable var deletedAt: String?

        enum CodingKeys: String, CodingKey {
            case seq, sender, body
            case roomID = "room_id"
            case deletedAt = "deleted_at"
        }
    }

    struct ModeratedAccount: Decodable, Sendable {
        var id: String
        var name: String
        var limited: Bool
        @Nullable var suspendedAt: String?
        @Nullable var suspendedUntil: String?
        var reportsReceived: Int
        var reportsMade: Int

        enum CodingKeys: String, CodingKey {
            case id, name, limited
            case suspendedAt = "suspended_at"
            case suspendedUntil = "suspended_until"
            case reportsReceived = "reports_received"
            case reportsMade = "reports_made"
        }
    }

    struct ReportedEvent: Decodable, Sendable {
        var id: String
        var title: String
        var status: String
        var organiser: StaffPerson
    }

    struct ReportedGroup: Decodable, Sendable {
        var id: String
        var name: String
        var memberCount: Int
        var owner: StaffPerson

        enum CodingKeys: String, CodingKey {
            case id, name, owner
            case memberCount = "member_count"
        }
    }

    struct ReportContext: Decodable, Sendable {
        var kind: String
        var message: ModeratedMessage?
        var around: [ModeratedMessage]?
        var asReported: [String: JSONValue]?
        var event: ReportedEvent?
        var group: ReportedGroup?
        var photo: ReportedPhoto?
        var user: ModeratedAccount?

        enum CodingKeys: String, CodingKey {
            case kind, message, around, event, group, photo, user
            case asReported = "as_reported"
        }
    }

    struct ReportedPhoto: Decodable, Sendable {
        var id: String
        var shownOn: String
        var personID: String?
        var eventID: String?
        var roomID: String?
        var seq: Int?
        var urls: [String: String]
        var owner: StaffPerson

        enum CodingKeys: String, CodingKey {
            case id, seq, urls, owner
            case shownOn = "shown_on"
            case personID = "person_id"
            case eventID = "event_id"
            case roomID = "room_id"
        }
    }

    struct QueuedReport: Decodable, Sendable {
        var id: String
        var reporter: StaffPerson
        var reason: String
        @Nullable var details: String?
    }

    struct ReportGroup: Decodable, Sendable {
        var targetType: String
        var targetID: String
        @Nullable var subject: StaffPerson?
        var oldestAt: String
        var dueAt: String
        var reports: [QueuedReport]
        var context: ReportContext

        enum CodingKeys: String, CodingKey {
            case subject, reports, context
            case targetType = "target_type"
            case targetID = "target_id"
            case oldestAt = "oldest_at"
            case dueAt = "due_at"
        }
    }

    struct AuditRow: Decodable, Sendable {
        var id: String
        @Nullable var actorID: String?
        var actor: String
        var action: String
        var targetType: String
        var targetID: String
        var reason: String
        var details: [String: String]

        enum CodingKeys: String, CodingKey {
            case id, actor, action, reason, details
            case actorID = "actor_id"
            case targetType = "target_type"
            case targetID = "target_id"
        }
    }

    struct ReportDecision: Decodable, Sendable {
        var resolved: Int
        var action: AuditRow
    }

    struct StaffMember: Decodable, Sendable {
        var id: String
        var name: String
        var email: String
        var role: String
    }
}

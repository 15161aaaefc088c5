import Foundation

/// An invitation to an event.
struct Invitation: Sendable, Hashable {
    enum Status: String, Sendable, CaseIterable { case pending, accepted, declined, revoked }

    var id: UUID
    var eventID: UUID
    var inviter: UserSummary
    var invitee: UserSummary
    var status: Status
    var createdAt: Date
    var respondedAt: Date?
}

import Foundation

/// A report of a user, an event or a chat message.
struct SafetyReport: Sendable {
    var id: UUID
    var reporterID: UUID
    var targetType: String
    var targetID: UUID
    var reason: String
    var details: String?
    var status: String
    var createdAt: Date
    /// A reported message as it read when reported (JSON), kept after a deletion.
    var content: String? = nil
}

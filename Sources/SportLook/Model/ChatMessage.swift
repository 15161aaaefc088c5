import Foundation

/// A chat message.
struct ChatMessage: Sendable, Hashable {
    var id: UUID
    var eventID: UUID
    var seq: Int64
    var sender: UserSummary
    var clientID: String
    var body: String
    var createdAt: Date
}

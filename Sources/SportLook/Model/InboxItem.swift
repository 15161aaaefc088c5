import Foundation

/// One entry of someone's notification inbox; `data` is the notification's JSON object.
struct InboxItem: Sendable {
    var id: UUID
    var kind: String
    /// What it says, in the recipient's language (nil on rows older than the texts).
    var title: String?
    var body: String?
    var data: String
    var createdAt: Date
    var readAt: Date?
}

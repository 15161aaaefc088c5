import Foundation

/// One entry of someone's notification inbox; `data` is the notification's JSON object.
struct InboxItem: Sendable {
    var id: UUID
    var kind: String
    var data: String
    var createdAt: Date
    var readAt: Date?
}

import Foundation

/// One of a user's signed-in sessions, as the user sees it.
struct SessionInfo: Sendable {
    var id: UUID
    var createdAt: Date
    var expiresAt: Date
    var lastUsedAt: Date?
    var userAgent: String?
}

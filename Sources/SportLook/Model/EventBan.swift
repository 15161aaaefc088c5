import Foundation

/// Someone an event's organiser banned from it, and since when.
struct EventBan: Sendable, Hashable {
    var user: UserSummary
    var bannedAt: Date
}

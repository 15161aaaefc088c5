import Foundation

/// Someone banned — from an event by its organiser, or from a group by an admin — and since when.
struct Ban: Sendable, Hashable {
    var user: UserSummary
    var bannedAt: Date
}

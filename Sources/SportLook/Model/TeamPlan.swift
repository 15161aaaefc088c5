import Foundation

/// How the people going are split into teams.
enum TeamMethod: String, Sendable, Hashable, CaseIterable {
    /// By strength: each player's level in the event's sport, corrected by results.
    case balanced
    case random
}

/// An event organiser's teams: how many, how made, and when published (by hand, or by
/// a job `publishMinutes` before the start).
struct TeamPlan: Sendable, Hashable {
    var eventID: UUID
    var count: Int
    var method: TeamMethod
    var publishMinutes: Int?
    var publishedAt: Date?
    var updatedAt: Date
}

/// A person going, with their team (numbered from 0) once they have one.
struct TeamMember: Sendable, Hashable {
    var user: UserSummary
    var team: Int?
    /// Fixed to `team` by the organiser: never moved by a rebalance.
    var fixed: Bool
    /// Their level in the event's sport, if they gave one.
    var level: Level?
    /// Their rating in hundredths, which results move within the level (nil without a level).
    var rating: Int? = nil
}

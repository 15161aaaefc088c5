import Foundation

/// Where an entered score stands: waiting for another team's answer, confirmed,
/// disputed (it counts for nothing), or standing because nobody answered in time.
enum ResultStatus: String, Sendable, Hashable {
    case pending, confirmed, disputed, stood

    /// Whether the score counts (and, in a competitive game, moves levels).
    var counts: Bool { self == .confirmed || self == .stood }
}

/// A game's score, one number per team (numbered from 0), as a player entered it.
struct GameResult: Sendable, Hashable {
    var eventID: UUID
    var scores: [Int]
    var enteredBy: UserSummary?
    var enteredTeam: Int
    var enteredAt: Date
    var status: ResultStatus
    var answeredBy: UserSummary?
    var answeredAt: Date?
    /// When it moved levels (a competitive game's counting result, once).
    var appliedAt: Date?
}

/// One move of a person's level in a sport, by a game's result.
struct LevelChange: Sendable, Hashable {
    var sport: String
    var eventID: UUID?
    var eventTitle: String?
    /// Hundredths of a level.
    var before: Int
    var after: Int
    var at: Date
}

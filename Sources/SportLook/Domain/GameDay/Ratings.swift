import Foundation

/// How a result moves levels: an Elo-style update on the 0–7 scale, kept in hundredths.
///
/// A team's rating is the mean of its players'. Against each other team, a team expects
/// `1 / (1 + 10^((them − us) / spread))` and scores 1 for a win, ½ for a draw, 0 for a
/// loss; a player moves by their step times the mean of (scored − expected) over the
/// other teams. The step is larger while a player has few rated games, the move is
/// capped per game, and the rating stays within 0…700. The level people see and filter
/// by is the rating in the level's half steps.
enum Ratings {
    struct Player: Sendable, Hashable {
        var id: UUID
        /// Hundredths of a level, 0…700.
        var rating: Int
        /// Rated games before this one.
        var games: Int
        /// Whether they have a level in the sport: someone without one weighs in their
        /// team's strength (at a stand-in rating) but gets no rating from the game.
        var rated: Bool = true
    }

    /// A level's distance that makes the stronger side expected to win about 76% of games.
    static let spread = 200.0
    /// The most one game moves a rating (half a level).
    static let cap = 50
    static let range = 0...700

    /// The step of a player with `games` rated games before this one.
    static func step(games: Int) -> Double {
        switch games {
        case ..<5: 80
        case ..<15: 50
        default: 30
        }
    }

    /// Each rated player's new rating after `teams` scored `scores` (same order).
    static func update(teams: [[Player]], scores: [Int]) -> [UUID: Int] {
        precondition(teams.count == scores.count && teams.count >= 2)
        let strength = teams.map { team in team.isEmpty ? 0 : Double(team.reduce(0) { $0 + $1.rating }) / Double(team.count) }
        var out: [UUID: Int] = [:]
        for (t, team) in teams.enumerated() {
            var surprise = 0.0
            for o in teams.indices where o != t {
                let expected = 1 / (1 + pow(10, (strength[o] - strength[t]) / spread))
                let scored = scores[t] > scores[o] ? 1.0 : scores[t] == scores[o] ? 0.5 : 0
                surprise += scored - expected
            }
            surprise /= Double(teams.count - 1)
            for player in team where player.rated {
                let move = max(-cap, min(cap, Int((step(games: player.games) * surprise).rounded())))
                out[player.id] = max(range.lowerBound, min(range.upperBound, player.rating + move))
            }
        }
        return out
    }

    /// The level shown for a rating: its nearest half step.
    static func level(_ rating: Int) -> Level { Level(halves: Int((Double(rating) / 50).rounded())) }
}

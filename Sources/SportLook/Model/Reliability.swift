import Foundation

/// What became of a person's place at a game.
public enum Outcome: String, Sendable, Hashable, CaseIterable {
    /// Checked in near the place, or marked so by the organiser.
    case attended
    /// Marked so by the organiser: going, and did not come.
    case noShow = "no_show"
    /// Left within `LATE_CANCEL_HOURS` of the start.
    case lateCancel = "late_cancel"
    /// Marked so by the organiser: did not come, for a reason the organiser accepts.
    case excused
}

/// A person's record: their last ``Reliability/games`` games that are over, of the last
/// ``Reliability/window``, with an outcome — latest first.
public struct Reliability: Sendable, Hashable {
    public static let games = 20
    public static let window: TimeInterval = 365 * 86_400

    public struct Game: Sendable, Hashable {
        public var eventID: UUID
        public var title: String
        public var startsAt: Date
        public var outcome: Outcome
    }

    public var entries: [Game]

    /// Which games count: only real ones, so that a record cannot be laundered with
    /// throwaway games (a game made by a new account that started a minute ago and
    /// ends in a few seconds). A game counts when it lasted at least ``minimumLength``,
    /// was made at least ``minimumLead`` before its start, and its organiser's account
    /// was at least ``organiserAge`` old when it started (the lead is measured from the
    /// last change of its times). Every outcome follows the same rule: a game that does not
    /// count neither cleans a record nor stains it. Of the real ones, ``counted(_:)`` says
    /// which count.
    public static let minimumLength: TimeInterval = 30 * 60
    public static let minimumLead: TimeInterval = 3_600
    public static let organiserAge: TimeInterval = 7 * 86_400

    /// A game that may count, as ``counted(_:)`` weighs it.
    public struct Candidate: Sendable, Hashable {
        public var game: Game
        public var endsAt: Date
        public var organiser: UUID
    }

    /// The games that count, of `candidates` latest first (each one real: see
    /// ``minimumLength``): at most ``games`` of them, and of the games one organiser held
    /// on one day, or of games that overlap in time, one — the worst outcome among them. A
    /// person is at one game at a time, and twenty games made at once by one organiser (or
    /// one a day by another) cannot wash out a no-show.
    public static func counted(_ candidates: [Candidate]) -> [Game] {
        var kept: [(candidate: Candidate, day: Int)] = []
        for candidate in candidates {
            let day = Int((candidate.game.startsAt.timeIntervalSince1970 / 86_400).rounded(.down))
            let same = kept.firstIndex { other in
                (other.candidate.organiser == candidate.organiser && other.day == day)
                    || (other.candidate.game.startsAt < candidate.endsAt && candidate.game.startsAt < other.candidate.endsAt)
            }
            if let i = same {
                if candidate.game.outcome.weight > kept[i].candidate.game.outcome.weight { kept[i].candidate = candidate }
                continue
            }
            guard kept.count < games else { break }
            kept.append((candidate, day))
        }
        return kept.map(\.candidate.game)
    }

    /// How many of the latest `last` games had `outcome`.
    public func count(_ outcome: Outcome, last: Int = Reliability.games) -> Int {
        entries.prefix(last).filter { $0.outcome == outcome }.count
    }
}

extension Outcome {
    /// How much an outcome weighs against a player, for games that overlap: a no-show
    /// most, then a late cancellation; attended and excused nothing.
    var weight: Int {
        switch self {
        case .noShow: 2
        case .lateCancel: 1
        case .attended, .excused: 0
        }
    }
}

/// An event's bar for joining: at most `maxNoShows` no-shows in the player's last
/// `lastGames` games.
public struct RecordRule: Sendable, Hashable, Codable {
    public var lastGames: Int
    public var maxNoShows: Int

    static let lastGamesRange = 1...Reliability.games
}

/// One line of the organiser's attendance sheet.
struct SheetRow: Sendable, Hashable {
    var user: UserSummary
    /// Going now; false once they left.
    var going: Bool
    var checkedInAt: Date?
    var mark: Outcome?
    var lateCancelledAt: Date?

    /// The mark, else a check-in, else a late cancellation.
    var outcome: Outcome? { mark ?? (checkedInAt != nil ? .attended : lateCancelledAt != nil ? .lateCancel : nil) }
}

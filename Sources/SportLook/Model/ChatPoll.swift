import Foundation

/// A poll: a chat message whose body is the question, with 2–10 options (or time
/// slots) people vote on until it closes.
struct ChatPoll: Sendable, Hashable {
    enum Kind: String, Sendable, CaseIterable {
        /// Options in words.
        case choice
        /// Time slots: a closed time poll can become a game or a weekly series.
        case time
    }

    var kind: Kind
    var options: [PollOption]
    /// Whether a person may choose more than one option.
    var multiple: Bool
    /// Whether voters are shown (never for an anonymous poll: counts only).
    var anonymous: Bool
    /// A sign-up list: each option is taken by one person at most.
    var onePerOption: Bool
    var closesAt: Date
    /// When it closed: at `closesAt`, or earlier by its author.
    var closedAt: Date?
    /// What a closed time poll became.
    var eventID: UUID? = nil
    var seriesID: UUID? = nil
    /// People the poll's author blocked: the poll is not there for them.
    var hiddenFrom: Set<UUID> = []
    /// The viewer's own choices (positions), as ``Blocks/view(_:hiding:viewer:)`` or a read
    /// for the viewer (``seen``) sets them.
    var mine: [Int] = []
    /// Set by a read for one viewer: the poll as they see it already, each option's
    /// voters only its first ``votersShown``, with the counts here.
    var seen: Seen? = nil

    /// Voters named for each option, the first to choose it (its count has them all): a
    /// vote goes to every socket in the room, and a room may hold thousands.
    static let votersShown = 20

    /// A poll read for `viewer`: its counts (by position) and voters without the people
    /// the viewer blocked (but an anonymous poll's counts, which are everyone's).
    struct Seen: Sendable, Hashable {
        var viewer: UUID
        var counts: [Int]
        var votersCount: Int
    }

    /// How many chose the option at `position`.
    func count(_ position: Int) -> Int { seen.map { $0.counts[position] } ?? options[position].voters.count }

    /// How many people voted.
    var votersCount: Int { seen?.votersCount ?? Set(options.flatMap(\.voters)).count }

    /// Open for votes at `now`.
    func isOpen(at now: Date) -> Bool { Self.isOpen(closesAt: closesAt, closedAt: closedAt, at: now) }

    /// A poll closing at `closesAt` and closed early at `closedAt` (if it was) is open at `now`.
    static func isOpen(closesAt: Date, closedAt: Date?, at now: Date) -> Bool { closedAt == nil && now < closesAt }
}

/// One option of a poll and who chose it.
struct PollOption: Sendable, Hashable {
    var label: String
    /// A time poll's slot.
    var startsAt: Date? = nil
    var endsAt: Date? = nil
    /// Who chose it, in the order they did: all of them, or the first (``ChatPoll/seen``).
    var voters: [UUID] = []
}

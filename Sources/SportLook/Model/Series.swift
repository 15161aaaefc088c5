import Foundation

/// A weekly game (or any repeating one): what its occurrences — real events — are
/// made from, and when (``Recurrence`` from `firstDate`, at `startMinutes` local time
/// in `timeZone`).
public struct Series: Sendable, Hashable {
    public var id: UUID
    public var organiserID: UUID
    public var organiserName: String
    /// The group it belongs to (its admins make the group's series).
    public var groupID: UUID?
    /// Whether only the group's members see it and its games.
    public var membersOnly: Bool = false
    public var title: String
    public var sport: String
    public var description: String
    public var address: String?
    public var location: Coordinate
    public var capacity: Int?
    public var timeZone: String
    public var reminders: [Int]
    /// Minutes after local midnight the games start.
    public var startMinutes: Int
    public var durationMinutes: Int
    public var firstDate: LocalDate
    public var rule: Recurrence
    public var status: Status
    /// Occurrences are made through this local date.
    public var madeThrough: LocalDate
    /// After a split ("this and following"), the series that carries its games on.
    public var followedBy: UUID?
    /// What each game costs (none: free).
    public var price: Price?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public enum Status: String, Sendable, Hashable { case active, ended }

    /// The series' IANA zone (UTC for one the system no longer knows).
    var zone: TimeZone { TimeZone(identifier: timeZone) ?? .gmt }

    /// The game's start on `date`, in the series' zone (its offset that day).
    func start(on date: LocalDate) -> Date { date.at(minutes: startMinutes, in: zone) }

    /// The local date `instant` falls on in the series' zone.
    func date(of instant: Date) -> LocalDate { LocalDate(instant, in: zone) }

    /// `19:00`.
    var startTime: String { String(format: "%02d:%02d", startMinutes / 60, startMinutes % 60) }
}

/// A regular of a series, in the order they joined.
struct SeriesRegular: Sendable, Hashable {
    var user: UserSummary
    var joinedAt: Date
}

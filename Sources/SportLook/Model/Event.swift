import Foundation
import GeoGrid

/// A sport event, as stored.
///
/// `capacity` counts the places for participants; the organiser attends on top
/// of it, and `goingCount` counts the participants going (not the organiser).
public struct Event: Sendable, Hashable {
    public var id: UUID
    public var organiserID: UUID
    public var organiserName: String
    public var sport: String
    public var title: String
    public var description: String
    public var address: String?
    /// The cover image, an upload of this service.
    public var cover: MediaRef?
    public var location: Coordinate
    public var startsAt: Date
    public var endsAt: Date
    public var capacity: Int?
    public var status: EventStatus
    public var goingCount: Int
    public var waitlistCount: Int
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// The IANA time zone of the place: local times in texts and calendars.
    public var timeZone: String = "UTC"
    /// When the people going are reminded: minutes before the start, largest first.
    public var reminders: [Int] = Event.defaultReminders
    /// The series this event is an occurrence of, and its local date there.
    public var seriesID: UUID?
    public var occurrenceDate: String?
    /// After it nobody joins any more (leaving stays possible).
    public var answerDeadline: Date?
    /// The record a player needs to join (none: anyone may).
    public var recordRule: RecordRule?
    /// Participants needed for the game to happen (none: it happens whoever comes).
    public var minPlayers: Int?
    /// How long before the start it is decided whether enough are going.
    public var decideMinutes: Int = Event.defaultDecideMinutes
    /// When enough were first going (everyone going was told: game on).
    public var gameOnAt: Date?
    /// Places offered to people on the waitlist, held until taken, declined or expired.
    public var offeredCount: Int = 0
    /// The levels (in the event's sport) a player needs to join; none: any.
    public var levelRange: ClosedRange<Level>?
    /// Who may join.
    public var audience: Audience = .anyone
    /// The group it belongs to, if any.
    public var groupID: UUID?
    /// Whether only the group's members may see it (``EventAccess``).
    public var membersOnly: Bool = false
    /// Whether its result moves the players' levels (fixed once someone has joined).
    public var competitive: Bool = false
    /// What playing costs (none: free), and when leaving stops taking back what one owes.
    public var price: Price?

    public static let defaultDecideMinutes = 120

    /// When a game with too few going is cancelled.
    var decisionTime: Date { startsAt.addingTimeInterval(-Double(decideMinutes) * 60) }

    /// A day and two hours before.
    public static let defaultReminders = [1_440, 120]

    /// Whether people can still join: active and not over.
    func isOpen(at now: Date) -> Bool { status == .active && endsAt > now }

    /// Free places, or `nil` without a limit.
    var spotsLeft: Int? { Self.spotsLeft(capacity: capacity, taken: goingCount + offeredCount) }

    /// Whether someone joining now would have a place: no capacity, or a place neither
    /// taken nor offered.
    var hasFreePlaces: Bool { spotsLeft.map { $0 > 0 } ?? true }

    /// The places neither taken (going) nor offered, of a capacity; nil without one.
    static func spotsLeft(capacity: Int?, taken: Int) -> Int? { capacity.map { max(0, $0 - taken) } }
}

/// Who may see an event, as the event index keeps it for live events
/// (``EventAccess`` decides with it).
enum EventRestriction: Sendable, Hashable {
    /// Anyone.
    case open
    /// The members of this group alone (none: nobody, for a row that names no group).
    case members(UUID?)

    init(_ event: Event) { self = event.membersOnly ? .members(event.groupID) : .open }
}

/// Whether an event takes place.
public enum EventStatus: String, Sendable, Hashable {
    case active, cancelled
}

/// Someone's place at an event.
public enum AttendanceStatus: String, Sendable, Hashable {
    case going, waitlisted
    /// An answer that takes no place (kept apart from the places: `event_maybes`).
    case maybe
}

/// The caller's relation to an event, shown as `my_status`.
struct MyAttendance: Sendable, Hashable {
    var status: AttendanceStatus
    var position: Int?
    var isOrganiser: Bool
    /// A place offered to them from the waitlist, until then.
    var offerExpiresAt: Date? = nil
}

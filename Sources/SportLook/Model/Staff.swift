import Foundation

/// What a member of staff may do. Moderators act on content and accounts; admins do that
/// too and also manage staff, settings and jobs.
public enum StaffRole: String, Sendable, Hashable, CaseIterable, Codable {
    case moderator, admin

    /// Whether this role may do what `needed` may.
    public func covers(_ needed: StaffRole) -> Bool { self == .admin || needed == .moderator }
}

/// Who did something the audit log records: a person signed in, or the operator at the
/// command line.
public enum AuditActor: Sendable, Hashable {
    case person(UUID, name: String)
    case commandLine

    var id: UUID? {
        if case .person(let id, _) = self { return id }
        return nil
    }

    var label: String {
        switch self {
        case .person(_, let name): name
        case .commandLine: "command line"
        }
    }
}

/// One row of the audit log: who did what, to which target, why and when. Rows are only
/// ever added (the database refuses to change or remove one).
public struct AuditEntry: Sendable, Hashable {
    public var id: UUID
    public var at: Date
    /// The person who acted (nil: the command line).
    public var actorID: UUID?
    /// Their name as it was then, or "command line".
    public var actor: String
    /// What was done: `staff_granted`, `staff_revoked`, …
    public var action: String
    public var targetType: String
    public var targetID: String
    public var reason: String
    /// Details of the action as a JSON object (the role given, …).
    public var details: String
}

/// Whether a suspension set at `since` (nil: none) and ending at `until` (nil: for good)
/// holds at `now`: what sign-in and an ended session's next request both ask.
func suspensionHolds(since: Date?, until: Date?, at now: Date) -> Bool {
    since != nil && (until.map { $0 > now } ?? true)
}

/// What staff decide about reported content or a person.
public enum ModerationAction: String, Sendable, Hashable, CaseIterable {
    /// The reports were looked at and nothing is wrong.
    case dismiss
    /// The content goes: a message becomes a tombstone, an event is cancelled.
    case remove
    /// The person is told what was wrong; nothing else changes.
    case warn
    /// Out of people nearby; their invitations reach no one.
    case limit
    /// Sessions end, sockets close, no sign-in until the suspension ends.
    case suspend
    /// A limit or a suspension ends.
    case lift

    /// Whether the action acts on a person rather than on content.
    var onPerson: Bool { [.warn, .limit, .suspend, .lift].contains(self) }
}

/// Reports on one thing, waiting for staff: what was reported, whom an action on a
/// person would reach, and each report.
struct ReportGroup: Sendable {
    var targetType: String
    var targetID: UUID
    /// The author of a message, the organiser of an event, the person reported.
    var subject: UserSummary?
    var reports: [FiledReport]
    var context: ReportContext

    /// The oldest report: the group's place in the queue and its 24-hour target.
    var oldest: Date { reports.map(\.report.createdAt).min() ?? .distantPast }
}

/// A report with its reporter's name.
struct FiledReport: Sendable {
    var report: SafetyReport
    var reporter: UserSummary
}

/// What a moderator sees of the reported thing.
enum ReportContext: Sendable {
    /// The message as it reads now (and as it read when first reported), with the
    /// messages around it in its room.
    case message(ModeratedMessage, around: [ModeratedMessage], reported: String?)
    /// The event, with its organiser and state.
    case event(id: UUID, title: String, startsAt: Date, status: String, organiser: UserSummary)
    /// The group, open, with its owner and how many are in it.
    case group(id: UUID, name: String, memberCount: Int, owner: UserSummary)
    /// The photo (an upload), where it shows, and who uploaded it.
    case photo(id: UUID, place: PhotoPlace, image: MediaRef, owner: UserSummary)
    /// The person, their standing and how often they were reported.
    case user(ModeratedPerson)
    /// The thing is gone.
    case gone
}

/// A chat message as a moderator reads it.
struct ModeratedMessage: Sendable {
    var roomID: UUID
    var seq: Int64
    var sender: UserSummary
    var body: String
    var createdAt: Date
    var deletedAt: Date?
}

/// A person as a moderator sees them.
struct ModeratedPerson: Sendable {
    var summary: UserSummary
    var createdAt: Date
    var deleted: Bool
    var limited: Bool
    var suspendedAt: Date?
    var suspendedUntil: Date?
    /// Reports on them, their messages, events and groups, ever, and on the photos of theirs still kept.
    var reportsReceived: Int
    var reportsMade: Int
    var email: String = ""
    /// The scripts their name mixes, when it mixes look-alike ones ("Latin, Cyrillic").
    var lookAlike: String? = nil
    var devices = 0
    var liveSessions = 0
    var groups = 0
    var gamesOrganised = 0
    var gamesJoined = 0
    /// What their own page shows besides (nil in lists).
    var detail: Detail? = nil

    struct Detail: Sendable {
        /// Their record of showing up.
        var record: Reliability?
        /// The networks they signed in from (an IPv4 /24, an IPv6 /48), the latest first.
        var networks: [(network: String, lastUsedAt: Date)]
    }
}

/// A person's appeal of a staff action that reached them: once per action, decided by
/// another member of staff.
struct Appeal: Sendable {
    enum Status: String, Sendable { case open, upheld, reversed }

    var id: UUID
    var userID: UUID
    /// The audit row of the action appealed.
    var actionID: UUID
    var statement: String
    var status: Status
    var createdAt: Date
    var decidedAt: Date?
}

/// An open appeal as staff see it: the appeal, the action and the person.
struct AppealCase: Sendable {
    var appeal: Appeal
    var action: AuditEntry
    var person: ModeratedPerson
}

/// A job that failed for good, as admins see it.
struct DeadJob: Sendable {
    var id: UUID
    var kind: String
    var attempts: Int
    var lastError: String?
    var finishedAt: Date?
}

/// The job queue as admins see it: counts by state and kind, the oldest queued job's
/// time, the latest dead jobs.
struct JobOverview: Sendable {
    var counts: [(state: String, kind: String, count: Int)]
    var oldestQueued: Date?
    var dead: [DeadJob]
}

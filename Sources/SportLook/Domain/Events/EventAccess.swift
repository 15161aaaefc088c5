import Foundation
import GeoGrid

/// Who may see an event, decided here once: an event that is not members-only is
/// seen by everyone (blocks aside, decided where people meet); a members-only
/// event of a group is seen by that group's members alone — not by someone who
/// left, was removed or banned, and not by its organiser once they are out of the
/// group. Search asks the same rule inside the grid's walk (``EventIndex/scopes(for:)``),
/// every route that names an event asks ``require(_:for:)`` before anything else,
/// and lists read from the database (the caller's games, the chats list, calendar
/// feeds, a profile's games, room membership) ask the same rule written as SQL,
/// ``EventStore/visible(_:to:)``, so their pages stay full.
struct EventAccess: Sendable {
    let events: EventStore
    let seriesStore: SeriesStore
    let groups: GroupStore
    let index: EventIndex
    let memberships: MembershipCache
    /// Each caller's statuses at the events they attend, until the change feed says
    /// they changed.
    let attendance: AttendanceCache
    /// Whether the caches hear every change now: on PostgreSQL, only while the bus
    /// listens (another instance's changes reach them through it).
    let cachesHearChanges: @Sendable () -> Bool
    let clock: any AppClock

    /// The one rule.
    static func mayView(group: UUID?, membersOnly: Bool, in memberships: Memberships) -> Bool {
        guard membersOnly else { return true }
        guard let group else { return false }
        return memberships.contains(group)
    }

    static func mayView(_ event: Event, in memberships: Memberships) -> Bool {
        mayView(group: event.groupID, membersOnly: event.membersOnly, in: memberships)
    }

    /// Who is going, waiting or said maybe — the people at an event — is shown only to
    /// those going (the organiser among them): not to a waitlist place, which anyone
    /// can take on a full event, nor to a maybe, an invitation or a stranger. Every
    /// route and frame that reveals attendance asks this rule (lists read from the
    /// database ask it as SQL, ``EventStore/seesAttendance(_:viewer:)``).
    static func seesAttendance(_ viewer: AttendanceStatus?) -> Bool { viewer == .going }

    /// The groups `user` belongs to (cached per user until their memberships change).
    func memberships(of user: UUID) async throws -> Memberships {
        try await memberships.value(of: user, now: clock.now())
    }

    /// Throws 404 `event` unless `user` may see the event `id` (an unknown event is a
    /// 404 too, so nobody learns that a hidden one exists). A live event's group is
    /// known to the index; another is read.
    func require(_ id: UUID, for user: UUID) async throws {
        guard let restriction = try await restriction(of: id), try await allows(restriction, user) else {
            throw DomainError.notFound(.event)
        }
    }

    /// Throws 404 `room` when `id` is the room of an event `user` may not see (an
    /// event's room has the event's id); any other room passes, for the room's own
    /// rules to answer.
    func requireRoom(_ id: UUID, for user: UUID) async throws {
        guard let restriction = try await restriction(of: id) else { return }
        guard try await allows(restriction, user) else { throw DomainError.notFound(.room) }
    }

    /// Throws 404 `series` unless `user` may see the series `id`: a members-only
    /// series (and its games) is its group's members' alone.
    func requireSeries(_ id: UUID, for user: UUID) async throws {
        guard let series = try await seriesStore.series(id) else { throw DomainError.notFound(.series) }
        guard series.membersOnly else { return }
        guard Self.mayView(group: series.groupID, membersOnly: true, in: try await memberships(of: user)) else {
            throw DomainError.notFound(.series)
        }
    }

    /// Whether memory knows that `user` takes part in the chat of the event `id` (its
    /// room has the event's id): going to a live event they may see, which is the room's
    /// rule (``ChatStatements/isMember(_:)``) as the caches hold it, dropped for a user as
    /// soon as the change feed says their attendance or groups changed. `false` says only
    /// that memory cannot tell: the room's rule is read from the primary.
    func takesPart(inRoomOf id: UUID, _ user: UUID) async throws -> Bool {
        guard cachesHearChanges(), let restriction = index.restriction(of: id),
            try await attendance.value(of: user, now: clock.now())[id]?.status == .going
        else { return false }
        return try await allows(restriction, user)
    }

    /// Who may see the event `id`; nil for no such event.
    private func restriction(of id: UUID) async throws -> EventRestriction? {
        if let live = index.restriction(of: id) { return live }
        return try await events.event(id).map(EventRestriction.init)
    }

    /// The rule for an event as the index keeps it (the caller's groups read only for a members-only one).
    private func allows(_ restriction: EventRestriction, _ user: UUID) async throws -> Bool {
        guard case .members(let group) = restriction else { return true }
        return Self.mayView(group: group, membersOnly: true, in: try await memberships(of: user))
    }

    /// The event whose visibility decides whether a notification of `kind` naming
    /// `eventID` reaches (or stays in the inbox of) its recipient: none for a
    /// cancellation, which is news its players need even when the game went with its group.
    static func gatingEvent(kind: String, eventID: String?) -> UUID? {
        guard kind != NotificationKind.eventCancelled.rawValue else { return nil }
        return eventID.flatMap(UUID.init(text:))
    }

    /// Of these events, those `user` may not see (unknown ones are not counted).
    func hidden(_ ids: Set<UUID>, from user: UUID) async throws -> Set<UUID> {
        var restrictions: [UUID: EventRestriction] = [:]
        var unknown: [UUID] = []
        for id in ids {
            if let live = index.restriction(of: id) { restrictions[id] = live } else { unknown.append(id) }
        }
        if !unknown.isEmpty {
            for (id, event) in try await events.database.read({ [events, unknown] sql in try await events.events(unknown, on: sql) }) {
                restrictions[id] = EventRestriction(event)
            }
        }
        guard restrictions.values.contains(where: { $0 != .open }) else { return [] }
        var out: Set<UUID> = []
        for (id, restriction) in restrictions where try await !allows(restriction, user) { out.insert(id) }
        return out
    }

    /// Of these notifications, the positions of those about a members-only game whose
    /// group their recipient is not in (any more): read in the delivering
    /// transaction, not from the cache (``gatingEvent(kind:eventID:)``).
    func undeliverable(_ messages: [NotificationMessage], on sql: DatabaseSession) async throws -> Set<Int> {
        var about: [Int: UUID] = [:]
        for (i, message) in messages.enumerated() {
            guard case .string(let text)? = message.data["event_id"] else { continue }
            about[i] = Self.gatingEvent(kind: message.kind, eventID: text)
        }
        let restricted: [UUID: UUID?] = try await events.membersOnlyGroups(of: Set(about.values), on: sql)
        guard !restricted.isEmpty else { return [] }
        let concerned = about.filter { restricted[$0.value] != nil }
        let recipients = Set(concerned.keys.map { messages[$0].userID })
        let groupIDs = Set(restricted.values.compactMap { $0 })
        let memberships = try await groups.memberships(of: recipients, in: groupIDs, on: sql)
        var out: Set<Int> = []
        for (i, event) in concerned {
            let group = restricted[event] ?? nil
            if !Self.mayView(group: group, membersOnly: true, in: memberships[messages[i].userID] ?? .none) { out.insert(i) }
        }
        return out
    }

    /// The grid scopes `user` may find besides the open ones.
    func scopes(for user: UUID) async throws -> GeoScopes {
        index.scopes(for: try await memberships(of: user))
    }
}

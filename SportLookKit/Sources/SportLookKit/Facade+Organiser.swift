import Foundation
internal import SportLookAPI

/// A game's teams: who plays on which (numbered from 1), and who is on none yet.
public struct Teams: Hashable, Sendable, Codable {
    /// The teams in order, each its players.
    public var teams: [[Person]]
    /// The people going who are on no team yet.
    public var unplaced: [Person]
}

/// How an organiser marks someone on the attendance sheet.
public enum SheetMark: String, Hashable, Sendable, Codable, CaseIterable {
    /// They came.
    case attended
    /// They did not come.
    case noShow = "no_show"
    /// They did not come, for a reason the organiser accepts.
    case excused
}

/// How a game ended for someone on its record.
public enum Outcome: String, Hashable, Sendable, Codable, CaseIterable {
    /// Checked in, or marked so.
    case attended
    /// Marked as not come.
    case noShow = "no_show"
    /// Left within the late-cancel window before the start.
    case lateCancel = "late_cancel"
    /// Marked excused.
    case excused
}

/// One person on a game's attendance sheet.
public struct SheetRow: Hashable, Sendable, Codable, Identifiable {
    /// The person.
    public var id: Person.ID { person.id }
    /// Who.
    public var person: Person
    /// Whether they are going now.
    public var going: Bool
    /// When they checked in.
    public var checkedInAt: Date?
    /// The organiser's mark.
    public var mark: SheetMark?
    /// When they left late.
    public var lateCancelledAt: Date?
    /// How the game counts on their record.
    public var outcome: Outcome?
    /// Their record over their last games.
    public var record: ReliabilityRecord?

    init(_ row: Components.Schemas.SheetRow) throws {
        person = try Person(row.user)
        going = row.going
        checkedInAt = row.checkedInAt
        mark = row.mark.flatMap { SheetMark(rawValue: $0.value1.rawValue) }
        lateCancelledAt = row.lateCancelledAt
        outcome = row.outcome.flatMap { Outcome(rawValue: $0.value1.rawValue) }
        record = row.record.map { ReliabilityRecord($0.value1) }
    }
}

/// Organising a game: changing it, its teams, the sheet, reminders, removing people.
extension SportLookClient.Events {
    /// Changes what is given; the rest stays. The people going are told what changed.
    /// `cover` is a photo uploaded for `.cover`.
    @discardableResult
    public func update(
        _ id: Event.ID, title: String? = nil, description: String? = nil, capacity: Int? = nil, startsAt: Date? = nil,
        cover: Photo.ID? = nil
    ) async throws -> Event {
        let changes = Components.Schemas.EventChanges(
            title: title, startsAt: startsAt, description: description, capacity: capacity, coverId: cover?.description)
        return try Event(
            try await client.call { try await $0.updateEvent(path: .init(id: id.description), body: .json(changes)).ok.body.json })
    }

    /// The teams as they stand.
    public func teams(of id: Event.ID) async throws -> Teams {
        try Self.teams(try await client.call { try await $0.eventTeams(path: .init(id: id.description)).ok.body.json })
    }

    /// Splits the people going into `count` teams by strength (or at random); `fixed` keeps
    /// people on a team (numbered from 1); `publish` shows them to everyone going now.
    @discardableResult
    public func planTeams(_ id: Event.ID, count: Int = 2, random: Bool = false, fixed: [Person.ID: Int] = [:], publish: Bool = false)
        async throws -> Teams
    {
        let plan = Operations.PlanTeams.Input.Body.JsonPayload(
            count: count, method: random ? .random : .balanced,
            fixed: fixed.isEmpty ? nil : fixed.map { .init(userId: $0.key.description, team: $0.value) }, publish: publish)
        return try Self.teams(
            try await client.call { try await $0.planTeams(path: .init(id: id.description), body: .json(plan)).ok.body.json })
    }

    /// Takes the teams down.
    public func clearTeams(_ id: Event.ID) async throws {
        _ = try await client.call { try await $0.clearTeams(path: .init(id: id.description)).noContent }
    }

    /// Marks someone on the attendance sheet (nil takes the mark back).
    public func mark(_ person: Person.ID, in id: Event.ID, as mark: SheetMark?) async throws {
        let outcome = try mark.map {
            Operations.MarkAttendee.Input.Body.JsonPayload.OutcomePayload(
                value1: try SportLookClient.wire($0.rawValue, as: Components.Schemas.SheetMark.self))
        }
        _ = try await ExplicitNulls.sending(mark == nil ? ["outcome"] : []) {
            try await client.call {
                try await $0.markAttendee(path: .init(id: id.description, userId: person.description), body: .json(.init(outcome: outcome)))
                    .ok
            }
        }
    }

    /// The attendance sheet, by name (the organiser): everyone going, and everyone who
    /// checked in, was marked or left late.
    public func attendanceSheet(_ id: Event.ID) async throws -> [SheetRow] {
        try await client.call { try await $0.attendanceSheet(path: .init(id: id.description)).ok.body.json }.items.map(SheetRow.init)
    }

    /// Reminds everyone going now (at most once an hour).
    public func remindEveryone(_ id: Event.ID) async throws {
        _ = try await client.call { try await $0.remindEveryone(path: .init(id: id.description)).accepted }
    }

    /// Removes someone from the game (`ban`: they cannot come back).
    public func remove(_ person: Person.ID, from id: Event.ID, ban: Bool = false) async throws {
        _ = try await client.call {
            try await $0.removeAttendee(path: .init(id: id.description, userId: person.description), query: .init(ban: ban)).noContent
        }
    }

    /// Lifts a ban.
    public func liftBan(of person: Person.ID, in id: Event.ID) async throws {
        _ = try await client.call { try await $0.liftBan(path: .init(id: id.description, userId: person.description)).noContent }
    }

    /// The people banned from the game, page by page.
    public func bans(of id: Event.ID) -> Pages<Person> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.listBans(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
            }
            return (try page.items.map { try Person($0.user) }, page.nextCursor)
        }
    }

    /// A substitute request, as it stands.
    public func substituteRequest(_ id: SubstituteRequest.ID) async throws -> SubstituteRequest {
        try SubstituteRequest(try await client.call { try await $0.substituteRequest(path: .init(id: id.description)).ok.body.json })
    }

    static func teams(_ teams: Components.Schemas.Teams) throws -> Teams {
        Teams(
            teams: try teams.teams.sorted { $0.number < $1.number }.map {
                try $0.players.map { try Person(id: .parse($0.id), name: $0.name) }
            },
            unplaced: try teams.unplaced.map { try Person(id: .parse($0.id), name: $0.name) })
    }
}

import Foundation
import GeoGrid

/// Who showed up: a player checks in near the place around the start; the organiser
/// marks each person attended, no-show or excused (over a check-in) until two days
/// after the end; leaving late is noted by ``EventService``. A person's record — their
/// last 20 games that are over, of the last 12 months — is theirs to see in full; an
/// organiser sees a summary of the people at their game; nobody else sees it.
///
/// A check-in proves that the device said it was within ``checkInRadius`` of the place
/// in the window; a position is the client's word, so the organiser's mark has the
/// last say.
struct ShowingUp: Sendable {
    /// Check-in opens this long before the start and closes at the end.
    static let checkInOpens: TimeInterval = 30 * 60
    /// Metres from the place a check-in may be sent from.
    static let checkInRadius: Double = 300
    /// How long after the end the organiser may still mark.
    static let markingWindow: TimeInterval = 48 * 3_600

    let store: RecordStore
    let events: EventStore
    let blocks: Blocks
    /// A game of a group the person has left keeps its place in their record, without its title.
    let access: EventAccess
    let database: Database
    let write: Writer
    let clock: any AppClock

    /// Checks the caller in at `location`: going, in the window, within the radius.
    func checkIn(_ id: UUID, user: UUID, location input: LocationInput?) async throws -> SheetRow {
        var v = Validator()
        let position = input?.validated("location", into: &v)
        if input == nil { v.fail("location", Sentence("is required: where the device is")) }
        try v.throwIfInvalid()
        guard let position else { throw DomainError.validation(v.fields) }
        let now = clock.now()
        return try await write { [store, events] sql, _ in
            // Locked: a check-in and a leave of the same person take turns.
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard event.organiserID != user else {
                throw DomainError.forbidden(
                    "not_going", Sentence("The organiser does not check in: their own games are not on their record."))
            }
            guard try await events.attendance(event: id, user: user, on: sql)?.status == .going else {
                throw DomainError.forbidden("not_going", Sentence("Only the people going can check in."))
            }
            let opens = event.startsAt.addingTimeInterval(-Self.checkInOpens)
            guard now >= opens else {
                throw DomainError.conflict(
                    "check_in_not_open", Sentence("Check-in opens 30 minutes before the start, at \(RFC3339.format(opens))."))
            }
            guard now <= event.endsAt else {
                throw DomainError.conflict("check_in_closed", Sentence("The game is over: check-in is closed."))
            }
            let metres = Self.distance(position, event.location)
            guard metres <= Self.checkInRadius else {
                throw DomainError.validation([
                    "location": Sentence("is \(Int(metres.rounded())) m from the place; check in within \(Int(Self.checkInRadius)) m")
                ])
            }
            try await store.checkIn(event: id, user: user, at: now, on: sql)
            guard let row = try await store.row(event: id, user: user, on: sql) else { throw DomainError.notFound(.event) }
            return row
        }
    }

    /// The organiser marks a person (going, or with a row for the game): attended,
    /// no-show or excused; nil takes the mark back.
    func mark(_ id: UUID, user: UUID, by organiser: UUID, outcome text: String?) async throws -> SheetRow {
        var chosen: Outcome?
        if let text {
            chosen = Outcome(rawValue: text)
            if chosen == nil || chosen == .lateCancel {
                throw DomainError.validation(["outcome": Sentence("must be attended, no_show, excused or null")])
            }
        }
        let outcome = chosen
        let now = clock.now()
        // People blocked either way are not on each other's sheets.
        let hidden = try await blocks.eitherWay(organiser)
        return try await write { [store, events] sql, _ in
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == organiser else {
                throw DomainError.forbidden("sheet_private", Sentence("Only the organiser marks who came."))
            }
            guard user != organiser else { throw DomainError.validation(["user_id": Sentence("is the organiser, who is not marked")]) }
            guard !hidden.contains(user) else { throw DomainError.notFound(.attendee) }
            guard now >= event.startsAt else {
                throw DomainError.conflict("marking_not_open", Sentence("Marking opens at the start, \(RFC3339.format(event.startsAt))."))
            }
            guard now <= event.endsAt.addingTimeInterval(Self.markingWindow) else {
                throw DomainError.conflict("marking_closed", Sentence("Marking closed two days after the end."))
            }
            guard try await store.row(event: id, user: user, on: sql) != nil else { throw DomainError.notFound(.attendee) }
            try await store.mark(event: id, user: user, outcome, at: now, on: sql)
            guard let row = try await store.row(event: id, user: user, on: sql) else { throw DomainError.notFound(.attendee) }
            return row
        }
    }

    /// The organiser's attendance sheet, with each person's record in summary.
    func sheet(_ id: UUID, for organiser: UUID) async throws -> [(row: SheetRow, record: Reliability)] {
        let now = clock.now()
        guard let event = try await events.event(id) else { throw DomainError.notFound(.event) }
        guard event.organiserID == organiser else {
            throw DomainError.forbidden("sheet_private", Sentence("Only the organiser sees the attendance sheet."))
        }
        let hidden = try await blocks.eitherWay(organiser)
        let rows = try await store.sheet(event: id).filter { !hidden.contains($0.user.id) }
        let records = try await store.records(of: rows.map(\.user.id), at: now)
        return rows.map { ($0, records[$0.user.id] ?? Reliability(entries: [])) }
    }

    /// The records of the people on a page of an event's attendees, for its organiser
    /// (the organiser's own left out); nil for anyone else, who sees no records.
    func records(of people: [UUID], at id: UUID, for viewer: UUID) async throws -> [UUID: Reliability]? {
        guard let event = try await events.event(id), event.organiserID == viewer else { return nil }
        return try await store.records(of: people.filter { $0 != viewer }, at: clock.now())
    }

    /// The caller's own record, in full.
    func record(of user: UUID) async throws -> Reliability {
        var record = try await store.records(of: [user], at: clock.now())[user] ?? Reliability(entries: [])
        let hidden = try await access.hidden(Set(record.entries.map(\.eventID)), from: user)
        for i in record.entries.indices where hidden.contains(record.entries[i].eventID) { record.entries[i].title = "" }
        return record
    }

    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double { GeoMath.distance(a.geoPoint, b.geoPoint) }
}

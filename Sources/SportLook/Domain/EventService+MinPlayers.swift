import Foundation

/// Minimum players: a game with `min_players` is on — everyone going told, once — the
/// first time that many participants are going (the organiser not counted, as in
/// `going_count`). If that has not happened by its decision time (`decide_minutes`
/// before the start), a scheduled job cancels it and tells everyone going, waitlisted
/// or undecided why. Both are decided under the event's row lock and written on it
/// (`game_on_at`, the status), so each happens once, whichever instance runs it; a game
/// that was on stays on if people leave.
extension EventService {
    static let decisionJobKind = "game_decision"

    /// Schedules the event's decision as it is now (its start and `decide_minutes`), or
    /// at `due` (a decision put off), inside the caller's transaction; none for a game
    /// without a minimum, off, or on — nor one whose decision time has passed (a series'
    /// change moved it there: such a game is not called off by surprise).
    func scheduleDecision(_ event: Event, due: Date? = nil, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let jobs = reminders.jobs
        try await jobs.unschedule(kind: Self.decisionJobKind, subject: Reminders.subject(event.id), on: sql)
        let when = due ?? event.decisionTime
        guard event.status == .active, event.minPlayers != nil, event.gameOnAt == nil, when > now else { return }
        let start = event.startsAt.millisecondsSince1970
        try await jobs.schedule(kind: Self.decisionJobKind, subject: Reminders.subject(event.id), payload: "\(event.id.lowercased) \(start)",
                                dedupeKey: "game_decision:\(event.id.lowercased):\(start):\(event.decideMinutes):\(when.millisecondsSince1970)",
                                after: when.timeIntervalSince(now), on: sql)
        changes.record(.jobs)
    }

    /// Game on, if enough are going now and it was not on yet: marked, the decision
    /// dropped, everyone going told. Returns the event as it is after.
    @discardableResult
    func gameOnIfReached(_ id: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event? {
        guard let event = try await store.event(id, on: sql) else { return nil }
        guard event.status == .active, let needed = event.minPlayers, event.gameOnAt == nil, event.goingCount >= needed, event.startsAt > now,
              try await store.markGameOn(id, at: now, on: sql), let on = try await store.event(id, on: sql)
        else { return event }
        try await reminders.jobs.unschedule(kind: Self.decisionJobKind, subject: Reminders.subject(id), on: sql)
        try await notifier.gameOn(on, recipients: try await store.goingIDs(event: id, on: sql), at: now, on: sql, changes: &changes)
        changes.event(on)
        return on
    }

    /// Runs a due decision (`<event id> <start in ms>`): a game that is not on by now,
    /// and starts when the job was queued for, is cancelled for want of players.
    func decide(_ payload: String) async throws {
        let parts = payload.split(separator: " ")
        guard parts.count == 2, let id = UUID(text: String(parts[0])), let start = Int64(parts[1]) else { return }
        let now = clock.now()
        try await write { [self] sql, changes in
            // The decision as the game is now: its start, and a decision time not moved later meanwhile.
            guard let event = try await store.lock(id, on: sql), event.status == .active, let needed = event.minPlayers, event.gameOnAt == nil,
                  event.startsAt.millisecondsSince1970 == start, now >= event.decisionTime
            else { return }
            if event.goingCount >= needed {
                try await gameOnIfReached(id, at: now, on: sql, changes: &changes)
                return
            }
            // Places out on offer could make it: decided once the offers are taken or run out.
            if event.goingCount + event.offeredCount >= needed, let settled = try await store.lastOfferExpiry(event: id, on: sql), settled > now {
                try await scheduleDecision(event, due: settled.addingTimeInterval(1), at: now, on: sql, changes: &changes)
                return
            }
            try await cancel(event, reason: .notEnoughPlayers(going: event.goingCount, needed: needed), at: now, on: sql, changes: &changes)
        }
    }
}

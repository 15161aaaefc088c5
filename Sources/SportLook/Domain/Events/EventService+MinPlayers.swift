import Foundation

/// Minimum players: a game with `min_players` is on — everyone going told, once — the
/// first time that many participants are going (the organiser not counted, as in
/// `going_count`). If that has not happened by its decision time (`decide_minutes`
/// before the start), a scheduled job cancels it and tells everyone going, waitlisted
/// or undecided why. Both are decided under the event's row lock and written on it
/// (`game_on_at`, the status), so each happens once, whichever instance runs it; a game
/// that was on stays on if people leave.
extension EventService {
    /// Schedules the event's decision as it is now (its start and `decide_minutes`), or
    /// at `due` (a decision put off), inside the caller's transaction; none for a game
    /// without a minimum, off, or on — nor one whose decision time has passed (a series'
    /// change moved it there: such a game is not called off by surprise).
    func scheduleDecision(_ event: Event, due: Date? = nil, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        try await scheduler.unschedule(.gameDecision, of: .event(event.id), on: sql)
        let when = due ?? event.decisionTime
        guard event.status == .active, event.minPlayers != nil, event.gameOnAt == nil, when > now else { return }
        let start = event.startsAt.millisecondsSince1970
        try await scheduler.schedule(
            .gameDecision(event: event.id, startsAt: event.startsAt),
            dedupeKey: "game_decision:\(event.id.lowercased):\(start):\(event.decideMinutes):\(when.millisecondsSince1970)",
            after: when.timeIntervalSince(now), on: sql)
        changes.record(.jobs)
    }

    /// Game on, if enough are going now and it was not on yet: marked, the decision
    /// dropped, everyone going told. Returns the event as it is after.
    @discardableResult
    func gameOnIfReached(_ id: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event? {
        guard let event = try await store.event(id, on: sql) else { return nil }
        guard event.status == .active, let needed = event.minPlayers, event.gameOnAt == nil, event.goingCount >= needed,
            event.startsAt > now,
            try await store.markGameOn(id, at: now, on: sql), let on = try await store.event(id, on: sql)
        else { return event }
        try await scheduler.unschedule(.gameDecision, of: .event(id), on: sql)
        try await notifier.gameOn(on, recipients: try await store.goingIDs(event: id, on: sql), at: now, on: sql, changes: &changes)
        changes.event(on)
        return on
    }

    /// Runs a due decision: a game that is not on by now, and starts when the job was
    /// queued for (`startsAt`), is cancelled for want of players.
    func decide(_ id: UUID, startingAt startsAt: Date) async throws {
        let start = startsAt.millisecondsSince1970
        let now = clock.now()
        try await write { [self] sql, changes in
            // The decision as the game is now: its start, and a decision time not moved later meanwhile.
            guard let event = try await store.lock(id, on: sql), event.status == .active, let needed = event.minPlayers,
                event.gameOnAt == nil,
                event.startsAt.millisecondsSince1970 == start, now >= event.decisionTime
            else { return }
            if event.goingCount >= needed {
                try await gameOnIfReached(id, at: now, on: sql, changes: &changes)
                return
            }
            // Places out on offer could make it: decided once the offers are taken or run out.
            if event.goingCount + event.offeredCount >= needed, let settled = try await store.lastOfferExpiry(event: id, on: sql),
                settled > now
            {
                try await scheduleDecision(event, due: settled.addingTimeInterval(1), at: now, on: sql, changes: &changes)
                return
            }
            try await cancel(event, reason: .notEnoughPlayers(going: event.goingCount, needed: needed), at: now, on: sql, changes: &changes)
        }
    }
}

import Foundation

/// A game's end before its time: cancelled by its organiser or for want of players, or because its group or its organiser is gone.
extension EventService {
    /// Cancels a locked event and tells its attendees, inside the caller's transaction: by
    /// the organiser, everyone going or waitlisted but them; for want of players, the
    /// organiser and the undecided (maybe) too.
    func cancel(
        _ current: Event, reason: Notifier.CancelReason = .organiser, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        guard current.status == .active else { return }
        try await store.cancel(current.id, at: now, on: sql)
        try await reminders.unschedule(current.id, on: sql)
        try await scheduler.unschedule(.gameDecision, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.offerExpiry, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.teamsDue, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.resultStands, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.substituteExpiry, of: .event(current.id), on: sql)
        try await scheduler.unschedule(.paymentReminder, of: .event(current.id), on: sql)
        guard let event = try await store.event(current.id, on: sql) else { return }
        try await ledger.settle(event, at: now, on: sql, changes: &changes)
        let attendees = try await store.attendeeIDs(event: current.id, on: sql)
        let told =
            reason == .organiser
            ? attendees.filter { $0 != current.organiserID } : attendees + (try await store.maybeIDs(event: current.id, on: sql))
        try await notifier.eventCancelled(event, recipients: told, reason: reason, at: now, on: sql, changes: &changes)
        changes.event(event)
        changes.attendance(of: attendees)
    }

    /// `user` is out of `group` (left, removed, banned), inside the caller's
    /// transaction: off its unfinished members-only events, their places going to
    /// the waitlist; those they organise are cancelled, with a notice, since nobody
    /// outside the group runs a game only its members may see. Leaving the group `byChoice`
    /// is leaving its games by choice: a late cancellation near the start, as leaving one is.
    func departed(_ user: UUID, from group: Group, byChoice: Bool, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        try await series.removeRegular(user, fromMembersOnlySeriesOf: group.id, on: sql)
        // Their members-only weekly games end (no new games are made with them as organiser).
        try await series.endAll(ofGroup: group.id, membersOnlyOrganisedBy: user, at: now, on: sql)
        // Invitations waiting for them to the group's members-only games go.
        try await store.dropPendingInvitations(of: user, toMembersOnlyGamesOf: group.id, on: sql)
        for id in try await store.unfinishedEvents(ofGroup: group.id, involving: user, now: now, on: sql) {
            guard let event = try await store.lock(id, on: sql), event.status == .active else { continue }
            if event.organiserID == user {
                try await cancel(event, reason: .organiserLeftGroup(name: group.name), at: now, on: sql, changes: &changes)
            } else {
                if try await store.removeMaybe(event: id, user: user, on: sql) { changes.record(.attendance(user: user)) }
                try await leave(event, user: user, byChoice: byChoice, at: now, on: sql, changes: &changes)
            }
        }
    }

    /// A deleted group's unfinished events are cancelled, their attendees told why
    /// (inside the deletion's transaction).
    func groupEnded(_ group: Group, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        for id in try await store.unfinishedEvents(ofGroup: group.id, now: now, on: sql) {
            guard let event = try await store.lock(id, on: sql) else { continue }
            try await cancel(event, reason: .groupEnded(name: group.name), at: now, on: sql, changes: &changes)
        }
        try await series.endAll(ofGroup: group.id, at: now, on: sql)
    }

    /// Takes a user out of every event, inside the caller's transaction (account
    /// deletion): the upcoming events they organise are cancelled, with
    /// notifications; the places they held go to the waitlist.
    func withdraw(_ user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        // Their weekly games end first: no game is made in the name of someone who is gone.
        try await series.endAll(organisedBy: user, at: now, on: sql)
        for id in try await store.eventIDs(attendedBy: user, on: sql) {
            guard let event = try await store.lock(id, on: sql) else { continue }
            if event.organiserID == user {
                if event.endsAt > now { try await cancel(event, at: now, on: sql, changes: &changes) }
            } else {
                try await leave(event, user: user, at: now, on: sql, changes: &changes)
            }
        }
    }
}

import Foundation

/// Reminders before a game: scheduled jobs due some minutes before its start (the
/// event's `reminders`, a day and two hours by default), each turned, when due, into
/// one notification for every person then going who wants reminders, in their language.
///
/// The jobs belong to the event (`event:<id>`): whatever changes its start or its
/// reminders schedules them again in the same transaction (the waiting ones dropped,
/// the ones whose time is still ahead queued for the new start); a cancellation drops
/// them. A job that was claimed meanwhile checks, when it runs, that the event is on
/// and starts when it was told; someone who left by then is not going, so gets nothing.
/// Dedupe keys name the event, the minutes and the start, so a reminder is queued once
/// and each person is told once, whichever instance runs it, whatever crashes between.
struct Reminders: Sendable {
    /// How often the organiser may remind everyone at once.
    static let remindNowInterval: TimeInterval = 3_600

    /// The outbox the notifications go to.
    let jobs: JobStore
    let scheduler: Scheduler
    let events: EventStore
    let write: Writer
    let clock: any AppClock

    /// Schedules the event's reminders as it is now, inside the caller's transaction.
    func schedule(_ event: Event, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        try await unschedule(event.id, on: sql)
        guard event.status == .active else { return }
        for minutes in event.reminders {
            let due = event.startsAt.addingTimeInterval(-Double(minutes) * 60)
            guard due > now else { continue }
            try await scheduler.schedule(
                .reminder(event: event.id, minutes: minutes, startsAt: event.startsAt),
                dedupeKey: "reminder:\(event.id.lowercased):\(minutes):\(event.startsAt.millisecondsSince1970)",
                after: due.timeIntervalSince(now), on: sql)
        }
        changes.record(.jobs)
    }

    /// Drops the event's waiting reminders (a cancellation).
    func unschedule(_ event: UUID, on sql: DatabaseSession) async throws {
        try await scheduler.unschedule(.reminder, of: .event(event), on: sql)
    }

    /// Runs a due reminder (the job worker): a notification for each person going who
    /// wants reminders, unless the event is off, has started, or starts at another time
    /// than the one this reminder was queued for. Returns how many were queued.
    @discardableResult
    func fire(event id: UUID, minutes: Int, startsAt: Date) async throws -> Int {
        let now = clock.now()
        return try await write { [events, jobs] sql, changes in
            guard let event = try await events.event(id, on: sql), event.status == .active, event.startsAt > now,
                event.startsAt.millisecondsSince1970 == startsAt.millisecondsSince1970
            else { return 0 }
            let which = minutes == 0 ? "now:\(now.millisecondsSince1970)" : "\(minutes):\(startsAt.millisecondsSince1970)"
            let going = try await events.remindable(event: event.id, on: sql).map { ($0, false) }
            let undecided = try await events.remindableMaybes(event: event.id, on: sql).map { ($0, true) }
            let messages = (going + undecided).map { person, maybe in
                let text =
                    maybe
                    ? Texts.decide(person.language, title: event.title, startsAt: event.startsAt, timeZone: event.timeZone, now: now)
                    : Texts.reminder(person.language, title: event.title, startsAt: event.startsAt, timeZone: event.timeZone, now: now)
                return (
                    NotificationMessage(
                        to: person.id, .reminder, title: text.title, body: text.body,
                        data: [
                            "event_id": .id(event.id), "event_title": .string(event.title),
                            "starts_at": .string(RFC3339.format(event.startsAt)),
                            "time_zone": .string(event.timeZone), "minutes_before": .number(Double(minutes)),
                            // The words in the person's language, for the inbox as for the push.
                            "title": .string(text.title), "body": .string(text.body), "answer": .string(maybe ? "maybe" : "going"),
                        ]), "reminder:\(event.id.lowercased):\(which):\(person.id.lowercased)"
                )
            }
            let queued = try await jobs.enqueue(messages, on: sql)
            changes.record(.jobs)
            return queued
        }
    }

    /// The organiser reminds everyone going now (at most once an hour: 429 with the wait).
    func remindNow(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [events, scheduler] sql, changes in
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser may remind everyone.")) }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard event.startsAt > now else { throw DomainError.conflict("event_started", Sentence("The event has started.")) }
            if let last = try await events.remindedAt(id, on: sql), now.timeIntervalSince(last) < Self.remindNowInterval {
                let wait = Int((Self.remindNowInterval - now.timeIntervalSince(last)).rounded(.up))
                throw DomainError.tooManyRequests(
                    retryAfter: max(1, wait), code: "reminded_recently", message: Sentence("Everyone was reminded less than an hour ago."))
            }
            try await events.markReminded(id, at: now, on: sql)
            try await scheduler.schedule(
                .reminder(event: id, minutes: 0, startsAt: event.startsAt),
                dedupeKey: "reminder:\(id.lowercased):now:\(now.millisecondsSince1970)", after: 0, on: sql)
            changes.record(.jobs)
        }
    }
}

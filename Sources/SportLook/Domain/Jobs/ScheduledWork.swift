import Foundation

/// The one dispatch of timed work: each ``ScheduledJob`` to the service that does it.
/// The job worker runs it for every due job of a scheduled kind.
struct ScheduledWork: Sendable {
    let reminders: Reminders
    let events: EventService
    let series: SeriesService
    let moderation: ModerationService
    let exports: ExportService
    let teams: Teams
    let results: Results
    let substitutes: Substitutes
    let polls: Polls
    let ledger: Ledger

    func run(_ job: ScheduledJob) async throws {
        switch job {
        case .reminder(let event, let minutes, let startsAt):
            try await reminders.fire(event: event, minutes: minutes, startsAt: startsAt)
        case .gameDecision(let event, let startsAt):
            try await events.decide(event, startingAt: startsAt)
        case .offerExpiry(let event, let user, let expiresAt):
            try await events.expireOffer(at: event, of: user, expiringAt: expiresAt)
        case .seriesExtension(let id):
            try await series.extendDue(id)
        case .suspensionEnd(let user, let until):
            try await moderation.endSuspension(of: user, until: until)
        case .dataExport(let export, _):
            try await exports.build(export)
        case .exportExpiry(let export, _):
            try await exports.expire(export)
        case .teamsDue(let event, let startsAt):
            try await teams.publishDue(event, startingAt: startsAt)
        case .resultStands(let event, let enteredAt):
            try await results.stand(event, enteredAt: enteredAt)
        case .substituteExpiry(_, let request, _):
            try await substitutes.expire(request)
        case .pollClose(let room, let seq, let closesAt):
            try await polls.closeDue(room: room, seq: seq, closesAt: closesAt)
        case .pollReminder(let room, let seq, let closesAt):
            try await polls.remindDue(room: room, seq: seq, closesAt: closesAt)
        case .paymentReminder(let event, let round):
            try await ledger.remindDue(event, round: round)
        case .duesDue(let group, let startsAt):
            try await ledger.duesDue(group, startsAt: startsAt)
        case .duesReminder(let group, let period, let round):
            try await ledger.remindDues(group, period: period, round: round)
        }
    }
}

import Foundation

/// Timed work, one way: ``schedule(_:dedupeKey:after:on:)`` queues a ``ScheduledJob``
/// due some seconds from now, in the caller's transaction; ``unschedule(_:of:on:)`` drops
/// a subject's waiting jobs of a kind (a claimed one runs, and checks what it belongs to
/// then). Due times are the queue's clock (the wall clock, or a test's), so a test moves
/// the clock and runs what is due instead of waiting.
struct Scheduler: Sendable {
    let jobs: JobStore

    /// Queues `job` due `delay` seconds from now. A job with the same dedupe key, waiting
    /// or done, is not queued again (the same reminder never twice); `false` then.
    @discardableResult
    func schedule(_ job: ScheduledJob, dedupeKey: String, after delay: TimeInterval, on sql: DatabaseSession) async throws -> Bool {
        try await jobs.schedule(
            kind: job.kind.rawValue, subject: job.subject.key, payload: try job.encoded(), dedupeKey: dedupeKey, after: delay, on: sql)
    }

    /// Drops the waiting jobs of `kind` that belong to `subject`.
    func unschedule(_ kind: ScheduledJob.Kind, of subject: ScheduledJob.Subject, on sql: DatabaseSession) async throws {
        try await jobs.unschedule(kind: kind.rawValue, subject: subject.key, on: sql)
    }

    /// When the waiting jobs of `kind` that belong to `subject` are due, earliest first.
    func due(_ kind: ScheduledJob.Kind, of subject: ScheduledJob.Subject) async throws -> [Date] {
        try await jobs.scheduled(kind: kind.rawValue, subject: subject.key)
    }
}

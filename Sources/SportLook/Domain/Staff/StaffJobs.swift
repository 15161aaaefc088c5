import Foundation

/// The job queue as admins see it in the console: counts by state and kind, the dead
/// jobs with their last error, and retrying or dropping them — each an audit row (what
/// `sportlook jobs` does from the command line).
struct StaffJobs: Sendable {
    let jobs: JobStore
    let staff: StaffStore
    let write: Writer
    let clock: any AppClock

    /// Counts by state and kind, the oldest queued job's time, and the latest dead jobs.
    func overview() async throws -> JobOverview {
        let summary = try await jobs.summary()
        return JobOverview(counts: summary.counts, oldestQueued: summary.oldestQueued, dead: try await jobs.dead(limit: 50))
    }

    /// Queues the dead jobs (of `kind`) again, or removes them; an admin only.
    func settleDead(kind: String?, retry: Bool, by actor: AuditActor, reason: String?) async throws -> (count: Int, entry: AuditEntry) {
        let reason = try StaffService.reason(reason)
        if let kind, kind.isEmpty || kind.utf8.count > 64 { throw DomainError.invalidParameter("kind", Sentence("must be a job kind")) }
        let now = clock.now().wholeMilliseconds
        return try await write { [jobs, staff] sql, changes in
            let name = try await StaffService.requireAdmin(actor, staff: staff, on: sql)
            let count = retry ? try await jobs.retryDead(kind: kind, on: sql) : try await jobs.dropDead(kind: kind, on: sql)
            if retry, count > 0 { changes.record(.jobs) }
            let entry = try await staff.record(
                retry ? "jobs_retried" : "jobs_dropped", by: actor, name: name, target: ("jobs", kind ?? "all"), reason: reason,
                details: ["count": "\(count)"], at: now, on: sql)
            return (count, entry)
        }
    }
}

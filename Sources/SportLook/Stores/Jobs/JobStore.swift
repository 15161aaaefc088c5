import Foundation
import Metrics
import SQLKit

/// The `jobs` table: a transactional outbox.
///
/// A job is written in the same transaction as the change that causes it, so a
/// rolled-back change leaves no job and a committed one always has its job.
/// Workers claim due jobs (and jobs whose lease expired: their worker died) with
/// `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several workers and instances
/// share the queue without taking the same job twice.
///
/// Queue times (`run_at`, `enqueued_at`, leases) follow the wall clock whatever
/// clock the rest of the service uses: retries and leases are about real time.
struct JobStore: Store {
    let database: Database
    var clock: any AppClock = SystemClock()

    struct Claimed: Sendable {
        var id: UUID
        var kind: String
        var payload: String
        var attempts: Int
        var enqueuedAt: Date
    }

    /// Queues a notification; a job with the same dedupe key is not queued twice.
    @discardableResult
    func enqueue(_ message: NotificationMessage, dedupeKey: String, delay: TimeInterval = 0, on sql: any SQLDatabase) async throws -> Bool {
        try await enqueue([(message, dedupeKey)], delay: delay, on: sql) == 1
    }

    /// Queues many notifications in one statement; returns how many were new.
    @discardableResult
    func enqueue(_ messages: [(message: NotificationMessage, dedupeKey: String)], delay: TimeInterval = 0, on sql: any SQLDatabase)
        async throws -> Int
    {
        guard !messages.isEmpty else { return 0 }
        let now = clock.now()
        let values: [[any Encodable & Sendable]] = messages.map { message, dedupeKey in
            [UUID(), message.kind, message.encoded, dedupeKey, "queued", 0, now.addingTimeInterval(delay), now]
        }
        let rows = try await sql.raw(
            """
            INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at) VALUES \(BindRows(rows: values))
            ON CONFLICT (dedupe_key) DO NOTHING RETURNING kind
            """
        ).all()
        for row in rows {
            Counter(label: "sportlook_jobs_enqueued_total", dimensions: [("kind", try row.value("kind") as String)]).increment()
        }
        return rows.count
    }

    /// Queues a code mail.
    func enqueue(_ request: MailRequest, dedupeKey: String, on sql: any SQLDatabase) async throws {
        let now = clock.now()
        try await sql.raw(
            """
            INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at)
            VALUES (\(bind: UUID()), \(bind: MailRequest.jobKind), \(bind: request.encoded), \(bind: dedupeKey), 'queued', 0, \(bind: now), \(bind: now))
            ON CONFLICT (dedupe_key) DO NOTHING
            """
        ).run()
        Counter(label: "sportlook_jobs_enqueued_total", dimensions: [("kind", MailRequest.jobKind)]).increment()
    }

    /// The jobs whose dedupe key starts with `dedupePrefix` and whose payload holds
    /// `text` (as JSON writes it): their ids and dedupe keys.
    func jobs(dedupePrefix: String, payloadHolding text: String, on sql: any SQLDatabase) async throws -> [(id: UUID, dedupeKey: String)] {
        let written = String(String(decoding: try JSONEncoder.sorted.encode(text), as: UTF8.self).dropFirst().dropLast())
        return try await sql.raw(
            """
            SELECT id, dedupe_key FROM jobs
            WHERE dedupe_key LIKE \(bind: Self.escapedForLike(dedupePrefix) + "%") ESCAPE '\\'
            AND payload LIKE \(bind: "%" + Self.escapedForLike(written) + "%") ESCAPE '\\'
            """
        ).all().map { (try $0.value("id"), try $0.value("dedupe_key")) }
    }

    /// In the payloads of jobs `ids`, the string field `field` that reads `from` reads
    /// `to` instead (a deleted message's text leaves the pushes queued, or kept, for it).
    func replaceInPayloads(of ids: [UUID], field: String, from: String, to: String, on sql: any SQLDatabase) async throws {
        guard !ids.isEmpty, from != to else { return }
        func member(_ value: String) throws -> String {
            "\"\(field)\":" + String(decoding: try JSONEncoder.sorted.encode(value), as: UTF8.self)
        }
        let (old, new) = (try member(from), try member(to))
        for chunk in ids.chunks(of: 500) {
            try await sql.raw("UPDATE jobs SET payload = REPLACE(payload, \(bind: old), \(bind: new)) WHERE id IN (\(binds: Array(chunk)))")
                .run()
        }
    }

    /// Queues a notification that collapses with others of the same key: while a
    /// job with the key waits, nothing is added; once it has run, it is armed
    /// again (under a new id, so its push carries a new idempotency key).
    func enqueueCollapsing(_ message: NotificationMessage, dedupeKey: String, delay: TimeInterval, on sql: any SQLDatabase) async throws {
        let now = clock.now()
        let runAt = now.addingTimeInterval(delay)
        try await sql.raw(
            """
            INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at)
            VALUES (\(bind: UUID()), \(bind: message.kind), \(bind: message.encoded), \(bind: dedupeKey), 'queued', 0, \(bind: runAt), \(bind: now))
            \(unsafeRaw: Self.collapsing)
            """
        ).run()
    }

    /// How a collapsing job meets one with its dedupe key: kept while it waits, armed
    /// again once it has run (also in ``ChatStatements/quickText(_:)``).
    static let collapsing = """
        ON CONFLICT (dedupe_key) DO UPDATE SET id = excluded.id, payload = excluded.payload, state = 'queued', attempts = 0,
            run_at = excluded.run_at, enqueued_at = excluded.enqueued_at, lease_until = NULL, locked_by = NULL,
            last_error = NULL, finished_at = NULL
        WHERE jobs.state IN ('done', 'dead')
        """

    /// Queues work due `delay` seconds from now that belongs to `subject` (`event:<id>`…),
    /// so that ``unschedule(kind:subject:on:)`` can drop it while it waits. A job with the
    /// same dedupe key, waiting or done, is not queued again (the same reminder never twice).
    /// A delay, not an instant: the queue keeps its own clock (the wall clock, or a test's).
    @discardableResult
    func schedule(kind: String, subject: String, payload: String, dedupeKey: String, after delay: TimeInterval, on sql: any SQLDatabase)
        async throws -> Bool
    {
        let now = clock.now()
        let queued =
            try await sql.raw(
                """
                INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at, subject)
                VALUES (\(bind: UUID()), \(bind: kind), \(bind: payload), \(bind: dedupeKey), 'queued', 0, \(bind: now.addingTimeInterval(max(0, delay))), \(bind: now), \(bind: subject))
                ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
                """
            ).first() != nil
        if queued { Counter(label: "sportlook_jobs_enqueued_total", dimensions: [("kind", kind)]).increment() }
        return queued
    }

    /// Drops the waiting jobs of `kind` that belong to `subject` (a claimed one runs,
    /// and checks what it belongs to then).
    func unschedule(kind: String, subject: String, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM jobs WHERE subject = \(bind: subject) AND kind = \(bind: kind) AND state = 'queued'").run()
    }

    /// When the waiting jobs of `kind` that belong to `subject` are due, earliest first.
    func scheduled(kind: String, subject: String, on sql: (any SQLDatabase)? = nil) async throws -> [Date] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                "SELECT run_at FROM jobs WHERE subject = \(bind: subject) AND kind = \(bind: kind) AND state = 'queued' ORDER BY run_at"
            )
            .all().map { try $0.value("run_at") }
        }
    }

    /// How many jobs are due at `now` or being run: none once the queue has done
    /// everything due (what a test waits for before it says nothing else happened).
    func unsettled(at now: Date) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE (state = 'queued' AND run_at <= \(bind: now)) OR state = 'running'")
                .first()?.value("n") ?? 0
        }
    }

    /// Claims up to `limit` due jobs for `worker` until `leaseUntil`.
    func claim(limit: Int, worker: String, now: Date, leaseUntil: Date) async throws -> [Claimed] {
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_until = \(bind: leaseUntil), locked_by = \(bind: worker)
                WHERE id IN (
                    SELECT id FROM jobs
                    WHERE (state = 'queued' AND run_at <= \(bind: now)) OR (state = 'running' AND lease_until < \(bind: now))
                    ORDER BY run_at
                    LIMIT \(bind: limit)
                    \(SkipLockedClause())
                )
                RETURNING id, kind, payload, attempts, enqueued_at
                """
            ).all().map { row in
                Claimed(
                    id: try row.value("id"), kind: try row.value("kind"), payload: try row.value("payload"),
                    attempts: try row.value("attempts"), enqueuedAt: try row.value("enqueued_at"))
            }
        }
    }

    /// Puts claimed jobs back in the queue as they were, the claim's attempt not
    /// counted (only while `worker` still holds them).
    func release(_ ids: [UUID], worker: String) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE jobs SET state = 'queued', attempts = attempts - 1, lease_until = NULL
                WHERE id IN (\(binds: ids)) AND locked_by = \(bind: worker) AND state = 'running'
                """
            ).run()
        }
    }

    /// Marks jobs done (only while `worker` still holds them).
    func complete(_ ids: [UUID], worker: String, at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE jobs SET state = 'done', finished_at = \(bind: now), lease_until = NULL, last_error = NULL
                WHERE id IN (\(binds: ids)) AND locked_by = \(bind: worker) AND state = 'running'
                """
            ).run()
        }
    }

    /// Schedules another attempt, or declares the job dead.
    func fail(_ id: UUID, worker: String, error: String, retryAt: Date?, at now: Date) async throws {
        try await database.write { sql in
            if let retryAt {
                try await sql.raw(
                    """
                    UPDATE jobs SET state = 'queued', run_at = \(bind: retryAt), lease_until = NULL, last_error = \(bind: String(error.prefix(1_000)))
                    WHERE id = \(bind: id) AND locked_by = \(bind: worker) AND state = 'running'
                    """
                ).run()
            } else {
                try await sql.raw(
                    """
                    UPDATE jobs SET state = 'dead', finished_at = \(bind: now), lease_until = NULL, last_error = \(bind: String(error.prefix(1_000)))
                    WHERE id = \(bind: id) AND locked_by = \(bind: worker) AND state = 'running'
                    """
                ).run()
            }
        }
    }

    struct Summary: Sendable {
        var counts: [(state: String, kind: String, count: Int)]
        var oldestQueued: Date?
        var now: Date

        var rendered: String {
            var lines = ["state     kind                  count"]
            for c in counts {
                lines.append(
                    "\(c.state.padding(toLength: 9, withPad: " ", startingAt: 0)) \(c.kind.padding(toLength: 21, withPad: " ", startingAt: 0)) \(c.count)"
                )
            }
            if counts.isEmpty { lines.append("(no jobs)") }
            if let oldest = oldestQueued {
                lines.append("oldest queued job: \(String(format: "%.1f", now.timeIntervalSince(oldest))) s old")
            } else {
                lines.append("oldest queued job: none")
            }
            return lines.joined(separator: "\n")
        }
    }

    func summary() async throws -> Summary {
        let now = clock.now()
        return try await database.read { sql in
            let counts = try await sql.raw("SELECT state, kind, COUNT(*) AS n FROM jobs GROUP BY state, kind ORDER BY state, kind").all()
                .map {
                    (
                        state: try $0.value("state", as: String.self), kind: try $0.value("kind", as: String.self),
                        count: try $0.value("n", as: Int.self)
                    )
                }
            let oldest = try await sql.raw("SELECT MIN(enqueued_at) AS oldest FROM jobs WHERE state = 'queued'").first()?.optional(
                "oldest", as: Date.self)
            return Summary(counts: counts, oldestQueued: oldest, now: now)
        }
    }

    /// Queues dead jobs again; returns how many.
    func retryDead(kind: String?) async throws -> Int {
        try await database.transaction { [self] sql in try await retryDead(kind: kind, on: sql) }
    }

    /// Queues the dead jobs (of `kind`) again in the caller's transaction; how many.
    func retryDead(kind: String?, on sql: any SQLDatabase) async throws -> Int {
        let filter: SQLQueryString = kind.map { "AND kind = \(bind: $0)" } ?? ""
        return try await sql.raw(
            """
            UPDATE jobs SET state = 'queued', attempts = 0, run_at = \(bind: clock.now()), finished_at = NULL, locked_by = NULL
            WHERE state = 'dead' \(filter) RETURNING id
            """
        ).all().count
    }

    /// Removes the dead jobs (of `kind`) in the caller's transaction; how many.
    func dropDead(kind: String?, on sql: any SQLDatabase) async throws -> Int {
        let filter: SQLQueryString = kind.map { "AND kind = \(bind: $0)" } ?? ""
        return try await sql.raw("DELETE FROM jobs WHERE state = 'dead' \(filter) RETURNING id").all().count
    }

    /// The latest dead jobs, newest first.
    func dead(limit: Int) async throws -> [DeadJob] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, kind, attempts, last_error, finished_at FROM jobs WHERE state = 'dead'
                ORDER BY finished_at DESC, id LIMIT \(bind: limit)
                """
            ).all().map {
                DeadJob(
                    id: try $0.value("id"), kind: try $0.value("kind"), attempts: try $0.value("attempts"),
                    lastError: try $0.optional("last_error"), finishedAt: try $0.optional("finished_at"))
            }
        }
    }
}

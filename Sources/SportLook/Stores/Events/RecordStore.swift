import Foundation
import SQLKit

/// Who showed up, in SQL: `attendance_records`, a row per game and person with their
/// check-in, the organiser's mark and a late cancellation; a person's record is read
/// from the rows of the games that are over.
struct RecordStore: Store {
    let database: Database

    /// The mark, else a check-in, else a late cancellation (as ``SheetRow/outcome``).
    static let outcome = """
        COALESCE(r.mark, CASE WHEN r.checked_in_at IS NOT NULL THEN 'attended' WHEN r.late_cancelled_at IS NOT NULL THEN 'late_cancel' END)
        """

    /// Notes a check-in; the first one stands.
    func checkIn(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO attendance_records (event_id, user_id, checked_in_at) VALUES (\(bind: event), \(bind: user), \(bind: now))
            ON CONFLICT (event_id, user_id) DO UPDATE SET checked_in_at = COALESCE(attendance_records.checked_in_at, excluded.checked_in_at)
            """
        ).run()
    }

    /// Sets (or, with nil, takes back) the organiser's mark.
    func mark(event: UUID, user: UUID, _ outcome: Outcome?, at now: Date, on sql: any SQLDatabase) async throws {
        guard let outcome else {
            try await sql.raw(
                "UPDATE attendance_records SET mark = NULL, marked_at = NULL WHERE event_id = \(bind: event) AND user_id = \(bind: user)"
            ).run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO attendance_records (event_id, user_id, mark, marked_at) VALUES (\(bind: event), \(bind: user), \(bind: outcome.rawValue), \(bind: now))
            ON CONFLICT (event_id, user_id) DO UPDATE SET mark = excluded.mark, marked_at = excluded.marked_at
            """
        ).run()
    }

    /// Notes a late cancellation (the last one stands). It takes back a check-in made
    /// before it: someone who checked in and then left did not play.
    func lateCancel(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO attendance_records (event_id, user_id, late_cancelled_at) VALUES (\(bind: event), \(bind: user), \(bind: now))
            ON CONFLICT (event_id, user_id) DO UPDATE SET late_cancelled_at = excluded.late_cancelled_at, checked_in_at = NULL
            """
        ).run()
    }

    func row(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> SheetRow? {
        try await sheet(event: event, only: user, on: sql).first
    }

    /// The organiser's sheet: everyone going now (but the organiser) and everyone with a
    /// row for the game, by name.
    func sheet(event: UUID, only user: UUID? = nil, on sql: (any SQLDatabase)? = nil) async throws -> [SheetRow] {
        try await reading(on: sql) { sql in
            let one: SQLQueryString = user.map { "AND u.id = \(bind: $0)" } ?? ""
            return try await sql.raw(
                """
                SELECT u.id, u.name, a.status, r.checked_in_at, r.mark, r.late_cancelled_at
                FROM (SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND status = 'going'
                      UNION SELECT user_id FROM attendance_records WHERE event_id = \(bind: event)) p
                JOIN users u ON u.id = p.user_id JOIN events e ON e.id = \(bind: event)
                LEFT JOIN attendances a ON a.event_id = e.id AND a.user_id = u.id
                LEFT JOIN attendance_records r ON r.event_id = e.id AND r.user_id = u.id
                WHERE u.id <> e.organiser_id AND u.deleted_at IS NULL \(one)
                ORDER BY u.name, u.id
                """
            ).all().map { row in
                SheetRow(
                    user: UserSummary(id: try row.value("id"), name: try row.value("name")),
                    going: (try row.optional("status", as: String.self)) == "going",
                    checkedInAt: try row.optional("checked_in_at"),
                    mark: (try row.optional("mark", as: String.self)).flatMap(Outcome.init(rawValue:)),
                    lateCancelledAt: try row.optional("late_cancelled_at"))
            }
        }
    }

    /// The games that count toward a record (``Reliability/minimumLength``,
    /// ``Reliability/minimumLead``, ``Reliability/organiserAge``), over `e`, its
    /// organiser `o`.
    static func counts(_ sql: any SQLDatabase) -> SQLQueryString {
        func plus(_ column: String, _ seconds: TimeInterval) -> SQLQueryString {
            sql.isPostgres
                ? "(\(unsafeRaw: column) + \(unsafeRaw: String(Int(seconds))) * INTERVAL '1 second')"
                : "(\(unsafeRaw: column) + \(unsafeRaw: String(Int(seconds))))"
        }
        return """
            e.ends_at >= \(plus("e.starts_at", Reliability.minimumLength)) AND e.starts_at >= \(plus("COALESCE(e.timed_at, e.created_at)", Reliability.minimumLead))
            AND e.starts_at >= \(plus("o.created_at", Reliability.organiserAge))
            """
    }

    /// The records of `users` at `now`: for each, their last ``Reliability/games`` games
    /// that are over (not cancelled) of the last ``Reliability/window``, with an outcome.
    func records(of users: [UUID], at now: Date, on sql: (any SQLDatabase)? = nil) async throws -> [UUID: Reliability] {
        guard !users.isEmpty else { return [:] }
        return try await reading(on: sql) { sql in
            var out: [UUID: Reliability] = Dictionary(uniqueKeysWithValues: Set(users).map { ($0, Reliability(entries: [])) })
            // Every game that may count, latest first; which of them count is the domain's rule.
            let rows = try await sql.raw(
                """
                SELECT r.user_id, r.event_id, e.title, e.starts_at, e.ends_at, e.organiser_id, \(unsafeRaw: Self.outcome) AS outcome
                FROM attendance_records r JOIN events e ON e.id = r.event_id JOIN users o ON o.id = e.organiser_id
                WHERE r.user_id IN (\(binds: Array(Set(users)))) AND e.status = 'active' AND e.organiser_id <> r.user_id
                  AND \(Self.counts(sql))
                  AND e.ends_at <= \(bind: now) AND e.ends_at > \(bind: now.addingTimeInterval(-Reliability.window))
                  AND \(unsafeRaw: Self.outcome) IS NOT NULL
                ORDER BY r.user_id, e.ends_at DESC, r.event_id
                """
            ).all()
            var candidates: [UUID: [Reliability.Candidate]] = [:]
            for row in rows {
                guard let outcome = Outcome(rawValue: try row.value("outcome")) else { continue }
                let user: UUID = try row.value("user_id")
                candidates[user, default: []].append(
                    Reliability.Candidate(
                        game: Reliability.Game(
                            eventID: try row.value("event_id"), title: try row.value("title"), startsAt: try row.value("starts_at"),
                            outcome: outcome),
                        endsAt: try row.value("ends_at"), organiser: try row.value("organiser_id")))
            }
            for (user, games) in candidates { out[user] = Reliability(entries: Reliability.counted(games)) }
            return out
        }
    }
}

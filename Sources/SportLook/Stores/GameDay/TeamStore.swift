import Foundation
import SQLKit

/// Teams, in SQL: `team_plans` (an event's plan and when it was published) and
/// `team_players` (who is on which team, and who is fixed to one).
struct TeamStore: Store {
    let database: Database

    func plan(of event: UUID, on sql: (any SQLDatabase)? = nil) async throws -> TeamPlan? {
        try await reading(on: sql) { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT team_count, method, publish_minutes, published_at, updated_at FROM team_plans WHERE event_id = \(bind: event)
                    """
                ).first()
            else { return nil }
            return TeamPlan(
                eventID: event, count: try row.value("team_count"),
                method: TeamMethod(rawValue: try row.value("method")) ?? .balanced,
                publishMinutes: try row.optional("publish_minutes"), publishedAt: try row.optional("published_at"),
                updatedAt: try row.value("updated_at"))
        }
    }

    func save(_ plan: TeamPlan, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO team_plans (event_id, team_count, method, publish_minutes, published_at, updated_at)
            VALUES (\(bind: plan.eventID), \(bind: plan.count), \(bind: plan.method.rawValue), \(bind: plan.publishMinutes),
                    \(bind: plan.publishedAt), \(bind: plan.updatedAt))
            ON CONFLICT (event_id) DO UPDATE SET team_count = excluded.team_count, method = excluded.method,
                publish_minutes = excluded.publish_minutes, published_at = excluded.published_at, updated_at = excluded.updated_at
            """
        ).run()
    }

    /// Drops the plan and every team with it.
    func delete(event: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM team_players WHERE event_id = \(bind: event)").run()
        try await sql.raw("DELETE FROM team_plans WHERE event_id = \(bind: event)").run()
    }

    /// Everyone going to the event, by name, with their level in `sport` and their team
    /// row if they have one.
    func lineup(event: UUID, sport: String, on sql: (any SQLDatabase)? = nil) async throws -> [TeamMember] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT u.id, u.name, l.level_half, COALESCE(l.rating, l.level_half * 50) AS rating, t.team, t.fixed
                FROM attendances a JOIN users u ON u.id = a.user_id
                LEFT JOIN user_levels l ON l.user_id = a.user_id AND l.sport_slug = \(bind: sport)
                LEFT JOIN team_players t ON t.event_id = a.event_id AND t.user_id = a.user_id
                WHERE a.event_id = \(bind: event) AND a.status = 'going' AND u.deleted_at IS NULL
                ORDER BY u.name, u.id
                """
            ).all().map { row in
                TeamMember(
                    user: UserSummary(id: try row.value("id"), name: try row.value("name")), team: try row.optional("team"),
                    fixed: try row.optional("fixed", as: Bool.self) ?? false,
                    level: (try row.optional("level_half", as: Int.self)).map { Level(halves: $0) }, rating: try row.optional("rating"))
            }
        }
    }

    /// Puts `substitute` on the team `player` was on, as they were (fixed or not).
    func handOn(event: UUID, from player: UUID, to substitute: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM team_players WHERE event_id = \(bind: event) AND user_id = \(bind: substitute)").run()
        try await sql.raw(
            "UPDATE team_players SET user_id = \(bind: substitute) WHERE event_id = \(bind: event) AND user_id = \(bind: player)"
        ).run()
    }

    /// How many team rows the event has (each a person placed or fixed).
    func placedCount(event: UUID, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM team_players WHERE event_id = \(bind: event)").first()?.value("n") ?? 0
    }

    /// Sets who is on which team: exactly `rows`, every other row of the event gone.
    func setTeams(event: UUID, _ rows: [(user: UUID, team: Int, fixed: Bool)], on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM team_players WHERE event_id = \(bind: event)").run()
        for chunk in rows.chunks(of: Self.idsPerRead / 4) {
            let values = SQLList(
                chunk.map { SQLQueryString("(\(bind: event), \(bind: $0.user), \(bind: $0.team), \(bind: $0.fixed))") },
                separator: SQLRaw(", "))
            try await sql.raw("INSERT INTO team_players (event_id, user_id, team, fixed) VALUES \(values)").run()
        }
    }
}

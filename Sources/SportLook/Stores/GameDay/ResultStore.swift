import Foundation
import SQLKit

/// Results and levels, in SQL: `game_results` (a game's score and where it stands),
/// the rating kept with each level in `user_levels`, and `level_changes`, one
/// append-only row for every move a result made.
struct ResultStore: Store {
    let database: Database

    func result(of event: UUID, on sql: (any SQLDatabase)? = nil) async throws -> GameResult? {
        try await reading(on: sql) { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT r.scores, r.entered_team, r.entered_at, r.status, r.answered_at, r.applied_at,
                           r.entered_by, e.name AS entered_name, r.answered_by, a.name AS answered_name
                    FROM game_results r LEFT JOIN users e ON e.id = r.entered_by LEFT JOIN users a ON a.id = r.answered_by
                    WHERE r.event_id = \(bind: event)
                    """
                ).first()
            else { return nil }
            func person(_ id: String, _ name: String) throws -> UserSummary? {
                guard let id = try row.optional(id, as: UUID.self) else { return nil }
                return UserSummary(id: id, name: try row.optional(name) ?? "")
            }
            let scores = try JSONDecoder().decode([Int].self, from: Data((try row.value("scores", as: String.self)).utf8))
            return GameResult(
                eventID: event, scores: scores, enteredBy: try person("entered_by", "entered_name"),
                enteredTeam: try row.value("entered_team"), enteredAt: try row.value("entered_at"),
                status: ResultStatus(rawValue: try row.value("status")) ?? .pending,
                answeredBy: try person("answered_by", "answered_name"), answeredAt: try row.optional("answered_at"),
                appliedAt: try row.optional("applied_at"))
        }
    }

    func insert(_ result: GameResult, on sql: any SQLDatabase) async throws {
        let scores = "[" + result.scores.map(String.init).joined(separator: ",") + "]"
        try await sql.raw(
            """
            INSERT INTO game_results (event_id, scores, entered_by, entered_team, entered_at, status)
            VALUES (\(bind: result.eventID), \(bind: scores), \(bind: result.enteredBy?.id), \(bind: result.enteredTeam),
                    \(bind: result.enteredAt), \(bind: result.status.rawValue))
            """
        ).run()
    }

    /// Moves a pending result to `status`; false when it was not pending any more.
    func settle(_ event: UUID, as status: ResultStatus, by person: UUID?, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE game_results SET status = \(bind: status.rawValue), answered_by = \(bind: person), answered_at = \(bind: now)
            WHERE event_id = \(bind: event) AND status = 'pending' RETURNING event_id
            """
        ).first() != nil
    }

    /// Notes that the result moved levels; false when it already had.
    func markApplied(_ event: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE game_results SET applied_at = \(bind: now) WHERE event_id = \(bind: event) AND applied_at IS NULL RETURNING event_id"
        ).first() != nil
    }

    /// The rating (hundredths) and rated games of each of `users` who has a level in `sport`,
    /// their rows locked (in one order) until the caller's transaction ends: two results
    /// sharing a player move the rating one after the other.
    func ratings(of users: [UUID], in sport: String, on sql: any SQLDatabase) async throws -> [UUID: (rating: Int, games: Int)] {
        guard !users.isEmpty else { return [:] }
        var out: [UUID: (rating: Int, games: Int)] = [:]
        for row in try await sql.raw(
            """
            SELECT user_id, COALESCE(rating, level_half * 50) AS rating, rated_games FROM user_levels
            WHERE sport_slug = \(bind: sport) AND user_id IN (\(binds: users)) ORDER BY user_id \(ForUpdateClause())
            """
        ).all() {
            out[try row.value("user_id")] = (try row.value("rating"), try row.value("rated_games"))
        }
        return out
    }

    /// Sets a rating, its level (the nearest half step) and the rated games, and keeps the
    /// move as a row of the person's history.
    func rate(
        _ user: UUID, in sport: String, from before: Int, to after: Int, level: Level, games: Int, event: UUID, at now: Date,
        on sql: any SQLDatabase
    ) async throws {
        try await sql.raw(
            """
            UPDATE user_levels SET rating = \(bind: after), level_half = \(bind: level.halves), rated_games = \(bind: games)
            WHERE user_id = \(bind: user) AND sport_slug = \(bind: sport)
            """
        ).run()
        try await sql.raw(
            """
            INSERT INTO level_changes (id, user_id, sport_slug, event_id, rating_before, rating_after, at)
            VALUES (\(bind: UUID()), \(bind: user), \(bind: sport), \(bind: event), \(bind: before), \(bind: after), \(bind: now))
            """
        ).run()
    }

    /// A person's level moves, newest first (at most `limit`), in one sport or all.
    func history(of user: UUID, sport: String?, limit: Int) async throws -> [LevelChange] {
        try await database.read { sql in
            let only: SQLQueryString = sport.map { "AND c.sport_slug = \(bind: $0)" } ?? ""
            return try await sql.raw(
                """
                SELECT c.sport_slug, c.event_id, e.title, c.rating_before, c.rating_after, c.at
                FROM level_changes c LEFT JOIN events e ON e.id = c.event_id
                WHERE c.user_id = \(bind: user) \(only) ORDER BY c.at DESC, c.id LIMIT \(bind: limit)
                """
            ).all().map { row in
                LevelChange(
                    sport: try row.value("sport_slug"), eventID: try row.optional("event_id"), eventTitle: try row.optional("title"),
                    before: try row.value("rating_before"), after: try row.value("rating_after"), at: try row.value("at"))
            }
        }
    }
}

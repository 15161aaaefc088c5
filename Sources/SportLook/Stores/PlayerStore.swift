import Foundation
import SQLKit

/// What players say of themselves, in SQL: `user_levels` (a level per sport) and
/// `users.gender`.
struct PlayerStore: Store {
    let database: Database

    func profile(of user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> PlayerProfile? {
        try await reading(on: sql) { sql in
            guard let row = try await sql.raw("SELECT gender FROM users WHERE id = \(bind: user) AND deleted_at IS NULL").first() else { return nil }
            var levels: [String: Level] = [:]
            for level in try await sql.raw("SELECT sport_slug, level_half FROM user_levels WHERE user_id = \(bind: user)").all() {
                levels[try level.value("sport_slug")] = Level(halves: try level.value("level_half"))
            }
            return PlayerProfile(gender: (try row.optional("gender", as: String.self)).flatMap(Gender.init(rawValue:)), levels: levels)
        }
    }

    func setGender(_ gender: Gender?, of user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET gender = \(bind: gender?.rawValue) WHERE id = \(bind: user)").run()
    }

    /// Sets (or, with nil, forgets) the user's level in a sport.
    func setLevel(_ level: Level?, in sport: String, of user: UUID, on sql: any SQLDatabase) async throws {
        if let level {
            try await sql.raw("""
                INSERT INTO user_levels (user_id, sport_slug, level_half) VALUES (\(bind: user), \(bind: sport), \(bind: level.halves))
                ON CONFLICT (user_id, sport_slug) DO UPDATE SET level_half = excluded.level_half
                """).run()
        } else {
            try await sql.raw("DELETE FROM user_levels WHERE user_id = \(bind: user) AND sport_slug = \(bind: sport)").run()
        }
    }
}

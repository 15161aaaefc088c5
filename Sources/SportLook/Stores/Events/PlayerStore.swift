import Foundation
import SQLKit

/// What players say of themselves, in SQL: `user_levels` (a level per sport) and
/// `users.gender`.
struct PlayerStore: Store {
    let database: Database

    func profile(of user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> PlayerProfile? {
        try await reading(on: sql) { sql in
            guard let row = try await sql.raw("SELECT gender FROM users WHERE id = \(bind: user) AND deleted_at IS NULL").first() else {
                return nil
            }
            let levels = try await Self.levels(of: [user], on: sql)[user] ?? [:]
            return PlayerProfile(gender: (try row.optional("gender", as: String.self)).flatMap(Gender.init(rawValue:)), levels: levels)
        }
    }

    /// The profiles of those of `users` who have an account, by person.
    func profiles(of users: [UUID], on sql: any SQLDatabase) async throws -> [UUID: PlayerProfile] {
        guard !users.isEmpty else { return [:] }
        let levels = try await Self.levels(of: users, on: sql)
        var out: [UUID: PlayerProfile] = [:]
        for row in try await sql.raw("SELECT id, gender FROM users WHERE id IN (\(binds: users)) AND deleted_at IS NULL").all() {
            let id: UUID = try row.value("id")
            out[id] = PlayerProfile(
                gender: (try row.optional("gender", as: String.self)).flatMap(Gender.init(rawValue:)), levels: levels[id] ?? [:])
        }
        return out
    }

    /// The levels of these people, by person and sport.
    static func levels(of users: [UUID], on sql: any SQLDatabase) async throws -> [UUID: [String: Level]] {
        guard !users.isEmpty else { return [:] }
        var out: [UUID: [String: Level]] = [:]
        for row in try await sql.raw("SELECT user_id, sport_slug, level_half FROM user_levels WHERE user_id IN (\(binds: users))").all() {
            out[try row.value("user_id"), default: [:]][try row.value("sport_slug")] = Level(halves: try row.value("level_half"))
        }
        return out
    }

    /// Marks the person's row changed (a new version), so that indexes take their new levels.
    func touch(_ user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: user)").run()
    }

    func setGender(_ gender: Gender?, of user: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET gender = \(bind: gender?.rawValue) WHERE id = \(bind: user)").run()
    }

    /// Sets (or, with nil, forgets) the user's level in a sport. A new level set by hand
    /// replaces the rating results made (the same level keeps it).
    func setLevel(_ level: Level?, in sport: String, of user: UUID, on sql: any SQLDatabase) async throws {
        if let level {
            try await sql.raw(
                """
                INSERT INTO user_levels (user_id, sport_slug, level_half) VALUES (\(bind: user), \(bind: sport), \(bind: level.halves))
                ON CONFLICT (user_id, sport_slug) DO UPDATE SET level_half = excluded.level_half,
                    rating = CASE WHEN user_levels.level_half = excluded.level_half THEN user_levels.rating END
                """
            ).run()
        } else {
            try await sql.raw("DELETE FROM user_levels WHERE user_id = \(bind: user) AND sport_slug = \(bind: sport)").run()
        }
    }
}

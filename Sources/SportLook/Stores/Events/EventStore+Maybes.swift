import Foundation
import SQLKit

/// The people who answered "maybe": no place, no count, a reminder to decide.
extension EventStore {
    func addMaybe(event: UUID, user: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO event_maybes (event_id, user_id, answered_at) VALUES (\(bind: event), \(bind: user), \(bind: now)) ON CONFLICT (event_id, user_id) DO NOTHING
            """
        ).run()
    }

    /// `true` when they had answered maybe.
    @discardableResult
    func removeMaybe(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("DELETE FROM event_maybes WHERE event_id = \(bind: event) AND user_id = \(bind: user) RETURNING user_id").first()
            != nil
    }

    /// Everyone who answered maybe.
    func maybeIDs(event: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw("SELECT user_id FROM event_maybes WHERE event_id = \(bind: event)").all().map { try $0.value("user_id") }
    }

    func isMaybe(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT user_id FROM event_maybes WHERE event_id = \(bind: event) AND user_id = \(bind: user)").first() != nil
    }

    /// Those who answered maybe and want reminders, with their language.
    func remindableMaybes(event: UUID, on sql: any SQLDatabase) async throws -> [(id: UUID, language: Language)] {
        try await sql.raw(
            """
            SELECT m.user_id, u.language FROM event_maybes m JOIN users u ON u.id = m.user_id
            WHERE m.event_id = \(bind: event) AND u.reminders = \(bind: true) AND u.deleted_at IS NULL ORDER BY m.user_id
            """
        ).all().map { (try $0.value("user_id"), Language(rawValue: try $0.value("language")) ?? .en) }
    }
}

import Foundation
import SQLKit

/// Which sockets are subscribed to which rooms, by instance (`chat_presence`): who is
/// there to see a message, and so is sent no push for it.
struct PresenceStore: Store {
    let database: Database

    func present(instance: String, user: UUID, room: UUID, at now: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("""
                INSERT INTO chat_presence (instance_id, user_id, room_id, seen_at) VALUES (\(bind: instance), \(bind: user), \(bind: room), \(bind: now))
                ON CONFLICT (instance_id, user_id, room_id) DO UPDATE SET seen_at = excluded.seen_at
                """).run()
        }
    }

    func absent(instance: String, user: UUID, room: UUID) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM chat_presence WHERE instance_id = \(bind: instance) AND user_id = \(bind: user) AND room_id = \(bind: room)").run()
        }
    }

    /// Refreshes this instance's presence rows and drops everyone's stale ones.
    func heartbeat(instance: String, at now: Date, staleBefore: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("UPDATE chat_presence SET seen_at = \(bind: now) WHERE instance_id = \(bind: instance)").run()
            try await sql.raw("DELETE FROM chat_presence WHERE seen_at < \(bind: staleBefore)").run()
        }
    }
}

import Foundation
import SQLKit

/// Which sockets are subscribed to which rooms, by instance (`chat_presence`): who is
/// there to see a message, and so is sent no push for it.
struct PresenceStore: Store {
    let database: Database

    /// The socket's user has the room open on `instance`; the instance's heartbeat row
    /// is made if it has none yet (never updated here: all of an instance's
    /// subscriptions would wait on that one row).
    func present(instance: String, user: UUID, room: UUID, at now: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("""
                INSERT INTO chat_instances (instance_id, seen_at) VALUES (\(bind: instance), \(bind: now)) ON CONFLICT (instance_id) DO NOTHING
                """).run()
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

    /// Marks this instance alive (one row, however many sockets it holds), and drops
    /// the instances not seen since `staleBefore` with their presence rows (and any
    /// row of an instance that has no heartbeat row). The instance's own row is written
    /// last, so that its subscriptions' `present(…)`, whose insert waits on that row
    /// while this is uncommitted, wait no longer than the commit.
    func heartbeat(instance: String, at now: Date, staleBefore: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM chat_instances WHERE seen_at < \(bind: staleBefore) AND instance_id <> \(bind: instance)").run()
            try await sql.raw("""
                DELETE FROM chat_presence WHERE instance_id <> \(bind: instance) AND instance_id NOT IN (SELECT instance_id FROM chat_instances)
                """).run()
            try await sql.raw("""
                INSERT INTO chat_instances (instance_id, seen_at) VALUES (\(bind: instance), \(bind: now))
                ON CONFLICT (instance_id) DO UPDATE SET seen_at = excluded.seen_at
                """).run()
        }
    }
}

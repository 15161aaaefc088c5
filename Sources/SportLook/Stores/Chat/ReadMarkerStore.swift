import Foundation
import SQLKit

/// How far each member has read each room, and whether they muted it (`chat_reads`).
struct ReadMarkerStore: Store {
    let database: Database

    /// Stores the reader's last read `seq` and marks their chat notification read,
    /// only when it moves the marker forward; `false` (and nothing written) otherwise.
    func markRead(room: UUID, user: UUID, seq: Int64, at now: Date) async throws -> Bool {
        // Most repeated markers stop here, without taking the writer.
        guard seq > (try await lastRead(room: room, user: user)) else { return false }
        return try await database.transaction { sql in
            let advanced =
                try await sql.raw(
                    """
                    INSERT INTO chat_reads (room_id, user_id, last_read_seq, updated_at) VALUES (\(bind: room), \(bind: user), \(bind: seq), \(bind: now))
                    ON CONFLICT (room_id, user_id) DO UPDATE SET last_read_seq = excluded.last_read_seq, updated_at = excluded.updated_at
                    WHERE chat_reads.last_read_seq < excluded.last_read_seq
                    RETURNING last_read_seq
                    """
                ).first() != nil
            guard advanced else { return false }
            try await sql.raw(
                """
                UPDATE notifications SET read_at = \(bind: now)
                WHERE user_id = \(bind: user) AND collapse_key = \(bind: "chat:\(room.lowercased)") AND read_at IS NULL
                """
            ).run()
            return true
        }
    }

    func lastRead(room: UUID, user: UUID) async throws -> Int64 {
        try await database.read { sql in
            try await sql.raw("SELECT last_read_seq FROM chat_reads WHERE room_id = \(bind: room) AND user_id = \(bind: user)").first()?
                .value("last_read_seq") ?? 0
        }
    }

    /// Mutes the room for the user until `until` (nil: unmutes).
    func mute(room: UUID, user: UUID, until: Date?, at now: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO chat_reads (room_id, user_id, last_read_seq, updated_at, muted_until) VALUES (\(bind: room), \(bind: user), 0, \(bind: now), \(bind: until))
                ON CONFLICT (room_id, user_id) DO UPDATE SET muted_until = excluded.muted_until
                """
            ).run()
        }
    }
}

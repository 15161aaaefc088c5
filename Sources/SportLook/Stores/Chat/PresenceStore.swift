import Foundation
import SQLKit

/// Which sockets are subscribed to which rooms, by instance (`chat_presence`): who is
/// there to see a message, and so is sent no push for it.
struct PresenceStore: Store {
    let database: Database

    /// One socket's presence in a room, as a write leaves it.
    struct Entry: Hashable, Sendable {
        let instance: String
        let user: UUID
        let room: UUID
    }

    /// Rows written in one statement at most (four values each).
    static let entriesPerStatement = 200

    /// Writes many sockets' presence: the rows of entries `true` made (or their time
    /// moved to `now`), those of entries `false` removed, and the heartbeat row of each
    /// instance with someone present made if it has none (never updated here: all of an
    /// instance's subscriptions would wait on that one row). A transaction for each
    /// ``entriesPerStatement`` of them: a slow one fails only its own.
    func write(_ rows: [Entry: Bool], at now: Date) async throws {
        // In one order everywhere: two instances' batches lock shared rows alike.
        for chunk in rows.sorted(by: { Self.order($0.key, $1.key) }).chunks(of: Self.entriesPerStatement) {
            let (present, absent) = (chunk.filter(\.value).map(\.key), chunk.filter { !$0.value }.map(\.key))
            try await database.transaction { sql in
                for instance in Set(present.map(\.instance)).sorted() {
                    try await sql.raw(
                        """
                        INSERT INTO chat_instances (instance_id, seen_at) VALUES (\(bind: instance), \(bind: now)) ON CONFLICT (instance_id) DO NOTHING
                        """
                    ).run()
                }
                if !present.isEmpty {
                    let rows = present.map { "(\(bind: $0.instance), \(bind: $0.user), \(bind: $0.room), \(bind: now))" as SQLQueryString }
                    try await sql.raw(
                        """
                        INSERT INTO chat_presence (instance_id, user_id, room_id, seen_at) VALUES \(rows.joined(separator: ", "))
                        ON CONFLICT (instance_id, user_id, room_id) DO UPDATE SET seen_at = excluded.seen_at
                        """
                    ).run()
                }
                if !absent.isEmpty {
                    // PostgreSQL types a VALUES list's columns by casts (it has no table to take them from).
                    let uuid: SQLQueryString = sql.isPostgres ? "::uuid" : ""
                    let rows = absent.map {
                        "(\(bind: $0.instance), \(bind: $0.user)" + uuid + ", \(bind: $0.room)" + uuid + ")" as SQLQueryString
                    }
                    try await sql.raw(
                        """
                        DELETE FROM chat_presence WHERE (instance_id, user_id, room_id) IN (VALUES \(rows.joined(separator: ", ")))
                        """
                    ).run()
                }
            }
        }
    }

    private static func order(_ a: Entry, _ b: Entry) -> Bool {
        (a.instance, a.user, a.room) < (b.instance, b.user, b.room)
    }

    /// Marks this instance alive (one row, however many sockets it holds), and drops
    /// the instances not seen since `staleBefore` with their presence rows (and any
    /// row of an instance that has no heartbeat row). The instance's own row is written
    /// last, so that its subscriptions' presence writes, whose insert waits on that row
    /// while this is uncommitted, wait no longer than the commit.
    func heartbeat(instance: String, at now: Date, staleBefore: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM chat_instances WHERE seen_at < \(bind: staleBefore) AND instance_id <> \(bind: instance)").run()
            try await sql.raw(
                """
                DELETE FROM chat_presence WHERE instance_id <> \(bind: instance) AND instance_id NOT IN (SELECT instance_id FROM chat_instances)
                """
            ).run()
            try await sql.raw(
                """
                INSERT INTO chat_instances (instance_id, seen_at) VALUES (\(bind: instance), \(bind: now))
                ON CONFLICT (instance_id) DO UPDATE SET seen_at = excluded.seen_at
                """
            ).run()
        }
    }
}

import Foundation
import SQLKit

/// Chat messages, read markers and socket presence in SQL.
struct ChatStore: Sendable {
    let database: Database

    static let columns = """
        m.id, m.event_id, m.seq, m.sender_id, u.name AS sender_name, m.client_id, m.body, m.created_at,
        m.attachment_id, m.attachment_variants, m.attachment_width, m.attachment_height
        """
    static let from = "chat_messages m JOIN users u ON u.id = m.sender_id"

    static func decode(_ row: any SQLRow) throws -> ChatMessage {
        var attachment: ChatAttachment?
        if let image = MediaRef(id: try row.optional("attachment_id"), stored: try row.optional("attachment_variants")) {
            attachment = ChatAttachment(image: image, width: try row.optional("attachment_width") ?? 0, height: try row.optional("attachment_height") ?? 0)
        }
        return ChatMessage(
            id: try row.value("id"), eventID: try row.value("event_id"), seq: try row.value("seq"),
            sender: UserSummary(id: try row.value("sender_id"), name: try row.value("sender_name")),
            clientID: try row.value("client_id"), body: try row.value("body"), createdAt: try row.value("created_at"),
            attachment: attachment
        )
    }

    /// Whether the user may read and write the event's chat (organiser, going or waitlisted).
    func isMember(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT user_id FROM attendances WHERE event_id = \(bind: event) AND user_id = \(bind: user)").first() != nil
    }

    func isMember(event: UUID, user: UUID) async throws -> Bool {
        try await database.read { sql in try await isMember(event: event, user: user, on: sql) }
    }

    /// Whether the event exists, and whether the user takes part in it, in one read.
    func membership(event: UUID, user: UUID) async throws -> (exists: Bool, member: Bool) {
        try await database.read { sql in
            let exists = try await sql.raw("SELECT id FROM events WHERE id = \(bind: event)").first() != nil
            return (exists, exists ? try await isMember(event: event, user: user, on: sql) : false)
        }
    }

    func existing(event: UUID, sender: UUID, clientID: String, on sql: any SQLDatabase) async throws -> ChatMessage? {
        try await sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
            WHERE m.event_id = \(bind: event) AND m.sender_id = \(bind: sender) AND m.client_id = \(bind: clientID)
            """).first().map(Self.decode)
    }

    /// Takes the event's next `seq` (the row update serialises concurrent senders) and stores the message.
    func insert(event: UUID, sender: UserSummary, clientID: String, body: String, attachment: ChatAttachment?, at now: Date, on sql: any SQLDatabase) async throws -> ChatMessage {
        guard let row = try await sql.raw("UPDATE events SET last_message_seq = last_message_seq + 1 WHERE id = \(bind: event) RETURNING last_message_seq").first() else {
            throw DomainError.notFound("event")
        }
        let message = ChatMessage(id: UUID(), eventID: event, seq: try row.value("last_message_seq"), sender: sender, clientID: clientID, body: body, createdAt: now,
                                  attachment: attachment)
        try await sql.raw("""
            INSERT INTO chat_messages (id, event_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height)
            VALUES (\(bind: message.id), \(bind: event), \(bind: message.seq), \(bind: sender.id), \(bind: clientID), \(bind: body), \(bind: now),
                    \(bind: attachment?.image.id), \(bind: attachment?.image.stored), \(bind: attachment?.width), \(bind: attachment?.height))
            """).run()
        return message
    }

    /// Messages with `seq` in `after+1 …`, ascending, at most `limit`.
    func messages(event: UUID, after: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.read { sql in
            try await sql.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.event_id = \(bind: event) AND m.seq > \(bind: after) ORDER BY m.seq LIMIT \(bind: limit)
                """).all().map(Self.decode)
        }
    }

    /// Messages with `seq` below `before`, the latest `limit` of them, ascending.
    func messages(event: UUID, before: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.read { sql in
            try await sql.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.event_id = \(bind: event) AND m.seq < \(bind: before) ORDER BY m.seq DESC LIMIT \(bind: limit)
                """).all().map(Self.decode).reversed()
        }
    }

    /// Members who have no fresh socket presence: those to notify.
    func absentMembers(event: UUID, except sender: UUID, freshSince: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw("""
            SELECT a.user_id FROM attendances a
            WHERE a.event_id = \(bind: event) AND a.user_id <> \(bind: sender)
              AND NOT EXISTS (SELECT 1 FROM chat_presence p WHERE p.event_id = a.event_id AND p.user_id = a.user_id AND p.seen_at >= \(bind: freshSince))
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.user_id AND b.blocked_id = \(bind: sender))
            """).all().map { try $0.value("user_id") }
    }

    /// Stores the reader's last read `seq` and marks their chat notification read,
    /// only when it moves the marker forward; `false` (and nothing written) otherwise.
    func markRead(event: UUID, user: UUID, seq: Int64, at now: Date) async throws -> Bool {
        // Most repeated markers stop here, without taking the writer.
        guard seq > (try await lastRead(event: event, user: user)) else { return false }
        return try await database.transaction { sql in
            let advanced = try await sql.raw("""
                INSERT INTO chat_reads (event_id, user_id, last_read_seq, updated_at) VALUES (\(bind: event), \(bind: user), \(bind: seq), \(bind: now))
                ON CONFLICT (event_id, user_id) DO UPDATE SET last_read_seq = excluded.last_read_seq, updated_at = excluded.updated_at
                WHERE chat_reads.last_read_seq < excluded.last_read_seq
                RETURNING last_read_seq
                """).first() != nil
            guard advanced else { return false }
            try await sql.raw("""
                UPDATE notifications SET read_at = \(bind: now)
                WHERE user_id = \(bind: user) AND collapse_key = \(bind: "chat:\(event.lowercased)") AND read_at IS NULL
                """).run()
            return true
        }
    }

    func lastRead(event: UUID, user: UUID) async throws -> Int64 {
        try await database.read { sql in
            try await sql.raw("SELECT last_read_seq FROM chat_reads WHERE event_id = \(bind: event) AND user_id = \(bind: user)").first()?.value("last_read_seq") ?? 0
        }
    }

    // MARK: Presence

    func present(instance: String, user: UUID, event: UUID, at now: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("""
                INSERT INTO chat_presence (instance_id, user_id, event_id, seen_at) VALUES (\(bind: instance), \(bind: user), \(bind: event), \(bind: now))
                ON CONFLICT (instance_id, user_id, event_id) DO UPDATE SET seen_at = excluded.seen_at
                """).run()
        }
    }

    func absent(instance: String, user: UUID, event: UUID) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM chat_presence WHERE instance_id = \(bind: instance) AND user_id = \(bind: user) AND event_id = \(bind: event)").run()
        }
    }

    /// Refreshes this instance's presence rows and drops everyone's stale ones.
    func heartbeat(instance: String, at now: Date, staleBefore: Date) async throws {
        try await database.transaction { sql in
            try await sql.raw("UPDATE chat_presence SET seen_at = \(bind: now) WHERE instance_id = \(bind: instance)").run()
            try await sql.raw("DELETE FROM chat_presence WHERE seen_at < \(bind: staleBefore)").run()
        }
    }

    /// Who blocked the user.
    func blockers(of user: UUID, on sql: any SQLDatabase) async throws -> Set<UUID> {
        Set(try await sql.raw("SELECT blocker_id FROM blocks WHERE blocked_id = \(bind: user)").all().map { try $0.value("blocker_id") })
    }

    /// Who the user blocked.
    func blockedBy(_ user: UUID) async throws -> Set<UUID> {
        try await database.read { sql in
            Set(try await sql.raw("SELECT blocked_id FROM blocks WHERE blocker_id = \(bind: user)").all().map { try $0.value("blocked_id") })
        }
    }
}

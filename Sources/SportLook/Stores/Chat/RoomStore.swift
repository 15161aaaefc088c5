import Foundation
import SQLKit

/// Conversations and the chats list in SQL.
struct RoomStore: Store {
    let database: Database

    static let conversationColumns = """
        c.room_id, c.user_low, c.user_high, c.created_by, c.state, c.requested_by, c.created_at AS conversation_created_at,
        ul.name AS low_name, uh.name AS high_name
        """
    static let conversationJoins = "JOIN users ul ON ul.id = c.user_low JOIN users uh ON uh.id = c.user_high"

    static func decodeConversation(_ row: any SQLRow) throws -> Conversation {
        Conversation(
            roomID: try row.value("room_id"),
            people: [
                UserSummary(id: try row.value("user_low"), name: try row.value("low_name")),
                UserSummary(id: try row.value("user_high"), name: try row.value("high_name")),
            ],
            createdBy: try row.value("created_by"), state: ConversationState(rawValue: try row.value("state")) ?? .declined,
            requestedBy: try row.optional("requested_by"), createdAt: try row.value("conversation_created_at")
        )
    }

    /// The two ids in the order conversations store them.
    static func pair(_ a: UUID, _ b: UUID) -> (low: UUID, high: UUID) {
        a.lowercased < b.lowercased ? (a, b) : (b, a)
    }

    func conversation(room: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Conversation? {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.conversationColumns) FROM conversations c \(unsafeRaw: Self.conversationJoins) WHERE c.room_id = \(bind: room)
                """
            ).first().map(Self.decodeConversation)
        }
    }

    func conversation(between a: UUID, and b: UUID, on sql: any SQLDatabase) async throws -> Conversation? {
        let (low, high) = Self.pair(a, b)
        return try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.conversationColumns) FROM conversations c \(unsafeRaw: Self.conversationJoins)
            WHERE c.user_low = \(bind: low) AND c.user_high = \(bind: high)
            """
        ).first().map(Self.decodeConversation)
    }

    /// Creates the pair's conversation, or returns the one that exists (`created`
    /// false); two people starting it at once get the same one.
    func findOrCreate(between creator: UUID, and other: UUID, at now: Date, on sql: any SQLDatabase) async throws -> (
        conversation: Conversation, created: Bool
    ) {
        if let existing = try await conversation(between: creator, and: other, on: sql) { return (existing, false) }
        let (low, high) = Self.pair(creator, other)
        let id = UUID()
        try await sql.raw(
            """
            INSERT INTO rooms (id, kind, event_id, last_message_seq, last_change_seq, last_activity_at, created_at)
            VALUES (\(bind: id), 'conversation', NULL, 0, 0, \(bind: now), \(bind: now))
            """
        ).run()
        let inserted =
            try await sql.raw(
                """
                INSERT INTO conversations (room_id, user_low, user_high, created_by, state, requested_by, created_at)
                VALUES (\(bind: id), \(bind: low), \(bind: high), \(bind: creator), 'new', NULL, \(bind: now))
                ON CONFLICT (user_low, user_high) DO NOTHING RETURNING room_id
                """
            ).first() != nil
        if !inserted {
            // The other one made it first (PostgreSQL waited for their commit): theirs stands.
            try await sql.raw("DELETE FROM rooms WHERE id = \(bind: id)").run()
        }
        guard let stored = try await conversation(between: creator, and: other, on: sql) else { throw DomainError.notFound(.conversation) }
        return (stored, inserted)
    }

    func setState(room: UUID, _ state: ConversationState, requestedBy: UUID?, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE conversations SET state = \(bind: state.rawValue), requested_by = \(bind: requestedBy) WHERE room_id = \(bind: room)"
        ).run()
    }

    /// Whether the two are both going to (or organising) an active event that ended
    /// after `since` (a waitlist place is not sharing one).
    func shareAnEvent(_ a: UUID, _ b: UUID, endedAfter since: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            SELECT x.event_id FROM attendances x
            JOIN attendances y ON y.event_id = x.event_id AND y.user_id = \(bind: b) AND y.status = 'going'
            JOIN events e ON e.id = x.event_id AND e.status = 'active' AND e.ends_at > \(bind: since)
            WHERE x.user_id = \(bind: a) AND x.status = 'going' LIMIT 1
            """
        ).first() != nil
    }

    /// The same as ``shareAnEvent(_:_:endedAfter:on:)`` for a conversation's row in a
    /// listing: 1 when its two people share one, else 0.
    static func sharing(since: Date) -> SQLQueryString {
        """
        (SELECT count(*) FROM attendances x
         JOIN attendances y ON y.event_id = x.event_id AND y.user_id = c.user_high AND y.status = 'going'
         JOIN events se ON se.id = x.event_id AND se.status = 'active' AND se.ends_at > \(bind: since)
         WHERE x.user_id = c.user_low AND x.status = 'going')
        """
    }

    // MARK: The chats list

    /// The rooms a user is in: every event they attend, every conversation with a
    /// message (and those they started themselves) — but no conversation with someone
    /// they blocked.
    private static func mine(_ user: UUID) -> SQLQueryString {
        """
        SELECT a.event_id AS room_id FROM attendances a JOIN events e ON e.id = a.event_id
            WHERE a.user_id = \(bind: user) AND a.status = 'going' AND \(EventStore.visible("e", to: user))
        UNION ALL SELECT gm.group_id AS room_id FROM group_members gm WHERE gm.user_id = \(bind: user)
        UNION ALL SELECT c1.room_id FROM conversations c1 WHERE c1.user_low = \(bind: user) AND (c1.state <> 'new' OR c1.created_by = \(bind: user))
            AND NOT EXISTS (SELECT 1 FROM blocks b1 WHERE b1.blocker_id = \(bind: user) AND b1.blocked_id = c1.user_high)
        UNION ALL SELECT c2.room_id FROM conversations c2 WHERE c2.user_high = \(bind: user) AND (c2.state <> 'new' OR c2.created_by = \(bind: user))
            AND NOT EXISTS (SELECT 1 FROM blocks b2 WHERE b2.blocker_id = \(bind: user) AND b2.blocked_id = c2.user_low)
        """
    }

    /// A page of the user's rooms, most recent activity first, in one query (or just
    /// the rooms named by `only`, for live updates): the page's rooms are chosen first,
    /// then only they are counted and joined.
    func listing(user: UUID, after cursor: TimeCursor?, limit: Int, only: [UUID]? = nil, sharingSince: Date) async throws -> [RoomListing] {
        if let only, only.isEmpty { return [] }
        let filter: SQLQueryString = only.map { "AND r.id IN (\(binds: $0))" } ?? ""
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT r.id, r.kind, r.event_id, r.last_message_seq, r.last_change_seq, r.last_activity_at,
                    e.title AS event_title, e.starts_at AS event_starts_at, e.status AS event_status, g.name AS group_name,
                    c.room_id, c.user_low, c.user_high, c.created_by, c.state, c.requested_by, c.created_at AS conversation_created_at,
                    ul.name AS low_name, uh.name AS high_name,
                    cr.last_read_seq, cr.muted_until,
                    CASE WHEN c.room_id IS NULL THEN 0 ELSE \(Self.sharing(since: sharingSince)) END AS shares_event,
                    (SELECT count(*) FROM chat_messages x
                     WHERE x.room_id = r.id AND x.seq > COALESCE(cr.last_read_seq, 0) AND x.sender_id <> \(bind: user) AND x.deleted_at IS NULL
                       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = \(bind: user) AND b.blocked_id = x.sender_id)) AS unread_count,
                    lm.id AS lm_id, lm.room_id AS lm_room_id, r.event_id AS lm_room_event_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id,
                    lmu.name AS lm_sender_name, lm.client_id AS lm_client_id, lm.body AS lm_body, lm.created_at AS lm_created_at,
                    lm.attachment_id AS lm_attachment_id, lm.attachment_variants AS lm_attachment_variants, lm.attachment_width AS lm_attachment_width,
                    lm.attachment_height AS lm_attachment_height, lm.reply_to_seq AS lm_reply_to_seq, lm.mentions AS lm_mentions,
                    lm.change_seq AS lm_change_seq, lm.edited_at AS lm_edited_at, lm.deleted_at AS lm_deleted_at, lm.poll AS lm_poll
                FROM (
                    SELECT r.id, r.kind, r.event_id, r.last_message_seq, r.last_change_seq, r.last_activity_at
                    FROM (\(Self.mine(user))) mine JOIN rooms r ON r.id = mine.room_id
                    WHERE 1 = 1 \(filter) \(Keyset.after(time: "r.last_activity_at", id: "r.id", after: cursor, descending: true))
                    ORDER BY r.last_activity_at DESC, r.id DESC LIMIT \(bind: limit)
                ) r
                LEFT JOIN events e ON e.id = r.event_id
                LEFT JOIN sport_groups g ON g.id = r.id AND r.kind = 'group'
                LEFT JOIN conversations c ON c.room_id = r.id
                LEFT JOIN users ul ON ul.id = c.user_low
                LEFT JOIN users uh ON uh.id = c.user_high
                LEFT JOIN chat_reads cr ON cr.room_id = r.id AND cr.user_id = \(bind: user)
                LEFT JOIN chat_messages lm ON lm.room_id = r.id AND lm.seq = (
                    SELECT v.seq FROM chat_messages v WHERE v.room_id = r.id
                        AND NOT EXISTS (SELECT 1 FROM blocks vb WHERE vb.blocker_id = \(bind: user) AND vb.blocked_id = v.sender_id)
                    ORDER BY v.seq DESC LIMIT 1)
                LEFT JOIN users lmu ON lmu.id = lm.sender_id
                ORDER BY r.last_activity_at DESC, r.id DESC
                """
            ).all().map { row in
                let room = try ChatStore.decodeRoom(row)
                var event: RoomEvent?
                if let id = room.eventID {
                    event = RoomEvent(
                        id: id, title: try row.value("event_title"), startsAt: try row.value("event_starts_at"),
                        status: EventStatus(rawValue: try row.value("event_status")) ?? .cancelled)
                }
                var conversation = try row.optional("room_id", as: UUID.self) == nil ? nil : try Self.decodeConversation(row)
                conversation?.sharesAnEvent = try row.value("shares_event", as: Int.self) > 0
                // A quoted reply is not shown in the list: the last message only.
                let last = try row.optional("lm_id", as: UUID.self) == nil ? nil : try ChatStore.decode(row, prefix: "lm_")
                let group = room.kind == .group ? RoomGroup(id: room.id, name: try row.optional("group_name") ?? "") : nil
                return RoomListing(
                    room: room, event: event, conversation: conversation, lastMessage: last, group: group,
                    unreadCount: try row.value("unread_count"), mutedUntil: try row.optional("muted_until"),
                    lastReadSeq: try row.optional("last_read_seq") ?? 0)
            }
        }
    }

    /// The rooms the user is in, by id (for a socket that keeps the list live).
    func roomIDs(of user: UUID) async throws -> Set<UUID> {
        try await database.read { sql in
            Set(try await sql.raw("\(Self.mine(user))").all().map { try $0.value("room_id") })
        }
    }
}

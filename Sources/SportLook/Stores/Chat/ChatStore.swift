import Foundation
import SQLKit

/// Chat rooms' messages in SQL: `rooms` (each room's message and change counters),
/// `chat_messages` and their reactions. Read markers and mutes are
/// ``ReadMarkerStore``'s, socket presence ``PresenceStore``'s, blocks ``SafetyStore``'s.
struct ChatStore: Store {
    let database: Database

    static let columns = """
        m.id, m.room_id, r.event_id AS room_event_id, m.seq, m.sender_id, u.name AS sender_name, m.client_id, m.body, m.created_at,
        m.attachment_id, m.attachment_variants, m.attachment_width, m.attachment_height, m.reply_to_seq, m.mentions,
        m.change_seq, m.edited_at, m.deleted_at, m.poll,
        q.sender_id AS reply_sender_id, qu.name AS reply_sender_name, q.body AS reply_body, q.deleted_at AS reply_deleted_at
        """
    static let from = """
        chat_messages m JOIN rooms r ON r.id = m.room_id JOIN users u ON u.id = m.sender_id
        LEFT JOIN chat_messages q ON q.room_id = m.room_id AND q.seq = m.reply_to_seq LEFT JOIN users qu ON qu.id = q.sender_id
        """

    /// How much of a replied-to message a reply quotes.
    static let replyPreviewLength = 140

    static func decode(_ row: any SQLRow, prefix: String = "") throws -> ChatMessage {
        func name(_ column: String) -> String { prefix + column }
        var attachment: ChatAttachment?
        if let image = MediaRef(id: try row.optional(name("attachment_id")), stored: try row.optional(name("attachment_variants"))) {
            attachment = ChatAttachment(
                image: image, width: try row.optional(name("attachment_width")) ?? 0,
                height: try row.optional(name("attachment_height")) ?? 0)
        }
        var reply: ChatReply?
        // Rows read with a prefix (the chats list's last messages) carry no quoted reply.
        if prefix.isEmpty, let seq: Int64 = try row.optional("reply_to_seq"), let sender: UUID = try row.optional("reply_sender_id") {
            let deleted = try row.optional("reply_deleted_at", as: Date.self) != nil
            let body: String = try row.optional("reply_body") ?? ""
            reply = ChatReply(
                seq: seq, sender: UserSummary(id: sender, name: try row.optional("reply_sender_name") ?? ""),
                preview: deleted ? "" : String(body.prefix(Self.replyPreviewLength)), deleted: deleted)
        }
        let mentions: String = try row.optional(name("mentions")) ?? ""
        return ChatMessage(
            id: try row.value(name("id")), roomID: try row.value(name("room_id")), eventID: try row.optional(name("room_event_id")),
            seq: try row.value(name("seq")),
            sender: UserSummary(id: try row.value(name("sender_id")), name: try row.value(name("sender_name"))),
            clientID: try row.value(name("client_id")), body: try row.value(name("body")), createdAt: try row.value(name("created_at")),
            attachment: attachment, replyTo: reply, mentions: mentions.split(separator: " ").compactMap { UUID(text: String($0)) },
            changeSeq: try row.value(name("change_seq")), editedAt: try row.optional(name("edited_at")),
            deletedAt: try row.optional(name("deleted_at")), isPoll: try row.value(name("poll"), as: Bool.self)
        )
    }

    // MARK: Rooms

    static let roomColumns = "r.id, r.kind, r.event_id, r.last_message_seq, r.last_change_seq, r.last_activity_at"

    static func decodeRoom(_ row: any SQLRow) throws -> Room {
        Room(
            id: try row.value("id"), kind: RoomKind(rawValue: try row.value("kind")) ?? .event, eventID: try row.optional("event_id"),
            lastMessageSeq: try row.value("last_message_seq"), lastChangeSeq: try row.value("last_change_seq"),
            lastActivityAt: try row.value("last_activity_at"))
    }

    func room(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Room? {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.roomColumns) FROM rooms r WHERE r.id = \(bind: id)").first().map(Self.decodeRoom)
        }
    }

    /// Locks the room row for the rest of the transaction (PostgreSQL; SQLite's single
    /// writer is already exclusive): senders and editors of one room take turns.
    func lockRoom(_ id: UUID, on sql: any SQLDatabase) async throws -> Room? {
        try await sql.rows(ChatStatements.LockRoom(room: id)).first.map(Self.decodeRoom)
    }

    /// What sending a message checks, read in one statement with the room's lock.
    struct Sending: Sendable {
        var room: Room
        /// Whether the sender takes part in the room.
        var member: Bool
        var senderName: String
        /// The seq of the sender's message already stored with this `client_id`.
        var existingSeq: Int64?
        /// An event's room: the event's title, and whether it is still on.
        var eventTitle: String?
        var eventActive: Bool
        /// A group's room: the group's name.
        var groupName: String?
    }

    /// Locks the room row and reads, in the same statement, the room and what a send
    /// checks (membership, the sender's name, a message already stored with
    /// `clientID`, the event). SQLite's single writer is the lock. On PostgreSQL a
    /// statement that waits for a lock still reads with the snapshot it began with,
    /// and would miss what was committed meanwhile (a message with the same
    /// `clientID`, a cancellation, a member leaving): so the statement does not wait
    /// (`SKIP LOCKED`); when another send holds the room, the lock is taken on its own
    /// first and the checks read after it, as two statements. And when a message was
    /// committed between the statement's snapshot and its lock, the checks are read
    /// again, under the lock.
    func lockForSending(_ id: UUID, user: UUID, clientID: String, on sql: any SQLDatabase) async throws -> Sending? {
        let statement = ChatStatements.Sending(room: id, user: user, clientID: clientID)
        var row = try await sql.rows(statement).first
        if sql.isPostgres, try row.map({ try $0.value("seen_seq", as: Int64.self) != $0.value("last_message_seq", as: Int64.self) }) ?? true
        {
            // Held by another transaction (or not there), or changed since the snapshot.
            guard try await lockRoom(id, on: sql) != nil else { return nil }
            row = try await sql.rows(statement).first
        }
        guard let row else { return nil }
        return Sending(
            room: try Self.decodeRoom(row), member: try row.value("is_member", as: Int.self) == 1,
            senderName: try row.optional("sender_name") ?? "", existingSeq: try row.optional("existing_seq"),
            eventTitle: try row.optional("event_title"),
            eventActive: try row.optional("event_status", as: String.self) == EventStatus.active.rawValue,
            groupName: try row.optional("group_name"))
    }

    /// Whether the user takes part in the room (``ChatStatements/isMember(_:)``): an
    /// event's organiser and the people going (not the waitlist); a conversation's two
    /// people; a group's members.
    func isMember(room: Room, user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        let asked = Asked(room: room.id, user: user)
        return try await memberships([asked], on: sql)[asked]?.member ?? false
    }

    /// A room and a person, asking whether they take part in it.
    struct Asked: Hashable, Sendable {
        let room: UUID
        let user: UUID
    }

    /// Each room asked about and whether its person takes part in it
    /// (``ChatStatements/isMember(_:)``), for many at once; a room that does not exist
    /// is not in the answer.
    func memberships(_ asked: [Asked], on sql: (any SQLDatabase)? = nil) async throws -> [Asked: (room: Room, member: Bool)] {
        var found: [Asked: (room: Room, member: Bool)] = [:]
        // A read for each ``Store/idsPerRead`` pairs.
        for chunk in asked.chunks(of: Self.idsPerRead) {
            let rows = try await reading(on: sql) { sql in
                // PostgreSQL types a VALUES list's columns by casts (it has no table to take them from).
                let uuid: SQLQueryString = sql.isPostgres ? "::uuid" : ""
                let pairs = chunk.map { "(\(bind: $0.room)" + uuid + ", \(bind: $0.user)" + uuid + ")" as SQLQueryString }
                return try await sql.raw(
                    """
                    WITH p (room_id, user_id) AS (VALUES \(pairs.joined(separator: ", ")))
                    SELECT \(unsafeRaw: Self.roomColumns), p.user_id AS asker, \(unsafeRaw: ChatStatements.isMember("p.user_id")) AS is_member
                    FROM p JOIN rooms r ON r.id = p.room_id LEFT JOIN events e ON e.id = COALESCE(r.event_id, r.id)
                    """
                ).all().map { row in
                    (
                        Asked(room: try row.value("id"), user: try row.value("asker")), try Self.decodeRoom(row),
                        try row.value("is_member", as: Int.self) != 0
                    )
                }
            }
            for (asked, room, member) in rows { found[asked] = (room, member) }
        }
        return found
    }

    /// The room a message is in.
    func roomOfMessage(_ id: UUID, on sql: any SQLDatabase) async throws -> Room? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.roomColumns) FROM rooms r JOIN chat_messages m ON m.room_id = r.id WHERE m.id = \(bind: id)
            """
        ).first().map(Self.decodeRoom)
    }

    /// The room and whether the user takes part in it, in one read.
    func membership(room id: UUID, user: UUID) async throws -> (room: Room, member: Bool)? {
        let asked = Asked(room: id, user: user)
        return try await memberships([asked])[asked]
    }

    // MARK: Who hears of a message

    /// Members to notify of a message: not the sender, without a fresh socket in the
    /// room, not blocking the sender, and not muting the room unless mentioned.
    func absentMembers(room: Room, except sender: UUID, mentioned: [UUID], freshSince: Date, now: Date, on sql: any SQLDatabase)
        async throws -> [UUID]
    {
        let values: [StatementValue] = [.uuid(room.id), .uuid(room.eventID ?? room.id), .uuid(sender), .date(freshSince), .date(now)]
        let rows =
            switch (room.kind, mentioned.isEmpty) {
            case (.event, true): try await sql.rows(ChatStatements.AbsentFromEvent(values: values))
            case (.conversation, true): try await sql.rows(ChatStatements.AbsentFromConversation(values: values))
            case (.group, true): try await sql.rows(ChatStatements.AbsentFromGroup(values: values))
            case (let kind, false):
                try await sql.rows(
                    SQLText(text: ChatStatements.absentText(kind, mentioned: mentioned.count), values: values + mentioned.map { .uuid($0) })
                )
            }
        return try rows.map { try $0.value("user_id") }
    }

    /// Of `users`, those who take part in the room.
    func members(of room: Room, among users: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !users.isEmpty else { return [] }
        switch room.kind {
        case .event:
            return Set(
                try await sql.raw(
                    """
                    SELECT user_id FROM attendances WHERE event_id = \(bind: room.eventID ?? room.id) AND status = 'going' AND user_id IN (\(binds: users))
                    """
                ).all().map { try $0.value("user_id") })
        case .conversation:
            guard let row = try await sql.raw("SELECT user_low, user_high FROM conversations WHERE room_id = \(bind: room.id)").first()
            else { return [] }
            let both: Set<UUID> = [try row.value("user_low"), try row.value("user_high")]
            return both.intersection(users)
        case .group:
            return Set(
                try await sql.raw(
                    """
                    SELECT user_id FROM group_members WHERE group_id = \(bind: room.id) AND user_id IN (\(binds: users))
                    """
                ).all().map { try $0.value("user_id") })
        }
    }
}

/// The emoji a message can be reacted with.
enum ChatReactions {
    static let allowed = ["👍", "❤️", "😂", "😮", "😢", "🎉", "🔥", "🙏"]
}

import Foundation
import SQLKit

/// A room's messages in SQL: storing, editing, deleting, reacting and reading them.
extension ChatStore {
    // MARK: Messages

    func existing(room: UUID, sender: UUID, clientID: String, on sql: any SQLDatabase) async throws -> ChatMessage? {
        guard
            let message = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.room_id = \(bind: room) AND m.sender_id = \(bind: sender) AND m.client_id = \(bind: clientID)
                """
            ).first().map({ try Self.decode($0) })
        else { return nil }
        return try await withReactions([message], room: room, on: sql).first
    }

    /// The message at `seq`; a poll's votes all, or as `viewer` sees them
    /// (``withPolls(_:room:seenBy:on:)``).
    func message(room: UUID, seq: Int64, seenBy viewer: UUID? = nil, on sql: any SQLDatabase) async throws -> ChatMessage? {
        guard
            let message = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE m.room_id = \(bind: room) AND m.seq = \(bind: seq)
                """
            ).first().map({ try Self.decode($0) })
        else { return nil }
        return try await withReactions([message], room: room, seenBy: viewer, on: sql).first
    }

    /// The message with this id, for reports.
    func message(id: UUID, on sql: any SQLDatabase) async throws -> ChatMessage? {
        try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE m.id = \(bind: id)").first().map {
            try Self.decode($0)
        }
    }

    struct NewMessage: Sendable {
        var sender: UserSummary
        var clientID: String
        var body: String
        var attachment: ChatAttachment?
        var replyTo: Int64?
        var mentions: [UUID]
    }

    /// Stores the message (``insert(room:_:at:on:)``) and answers who to tell of it
    /// (``absentMembers(room:except:mentioned:freshSince:now:on:)``), and whether it
    /// was announced on the bus too: on PostgreSQL, for a message that mentions no
    /// one, all in one statement, given the `notification` to send
    /// (``ChangeFeed/chatNotification(room:)``).
    func store(
        in room: Room, _ new: NewMessage, at now: Date, telling freshSince: Date, notification: (head: String, tail: String)?,
        on sql: any SQLDatabase
    ) async throws -> (message: ChatMessage, absent: [UUID], announced: Bool) {
        guard sql.isPostgres, new.mentions.isEmpty, let notification else {
            let message = try await insert(room: room.id, new, at: now, on: sql)
            return (
                message,
                try await absentMembers(
                    room: room, except: new.sender.id, mentioned: new.mentions, freshSince: freshSince, now: now, on: sql), false
            )
        }
        let id = UUID()
        let values = ChatStatements.storeValues(
            id: id, room: room, message: new, now: now, freshSince: freshSince, notification: notification)
        let rows =
            switch room.kind {
            case .event: try await sql.rows(ChatStatements.StoreInEvent(values: values))
            case .conversation: try await sql.rows(ChatStatements.StoreInConversation(values: values))
            case .group: try await sql.rows(ChatStatements.StoreInGroup(values: values))
            }
        var stored: (seq: Int64, createdAt: Date, eventID: UUID?)?
        var absent: [UUID] = []
        for row in rows {
            if let seq: Int64 = try row.optional("seq") {
                stored = (seq, try row.value("created_at"), try row.optional("event_id"))
            } else {
                absent.append(try row.value("user_id"))
            }
        }
        guard let stored else { throw DomainError.notFound(.room) }
        return (
            try await message(id: id, room: room.id, seq: stored.seq, eventID: stored.eventID, new, createdAt: stored.createdAt, on: sql),
            absent, true
        )
    }

    /// PostgreSQL: the message stored in one statement on its own (``ChatStatements/quickText(_:)``),
    /// with its notifications' jobs and its announcement on the bus, if the room is as
    /// `quick` expects it; `nil` (nothing written) otherwise. The message as a read would
    /// give it, and the people told of it.
    func quickStore(
        _ quick: ChatStatements.Quick, at now: Date, telling freshSince: Date, notification: (head: String, tail: String),
        jobs: ChatJobs, jobsNotification: String, on sql: any SQLDatabase
    ) async throws -> (message: ChatMessage, absent: [UUID])? {
        let id = UUID()
        let values = ChatStatements.quickValues(
            id: id, quick, now: now, freshSince: freshSince, notification: notification, jobs: jobs, jobsNotification: jobsNotification)
        let rows =
            switch quick.kind {
            case .event: try await sql.rows(ChatStatements.QuickInEvent(values: values))
            case .group: try await sql.rows(ChatStatements.QuickInGroup(values: values))
            case .conversation: preconditionFailure("a conversation's message goes through its rules")
            }
        var stored: ChatMessage?
        var absent: [UUID] = []
        for row in rows {
            if let seq: Int64 = try row.optional("seq") {
                stored = ChatMessage(
                    id: id, roomID: quick.room, eventID: try row.optional("event_id"), seq: seq, sender: quick.sender,
                    clientID: quick.clientID,
                    body: quick.body, createdAt: try row.value("created_at"), attachment: nil, replyTo: nil, mentions: [])
            } else {
                absent.append(try row.value("user_id"))
            }
        }
        return stored.map { ($0, absent) }
    }

    /// Takes the room's next `seq` (the row update serialises concurrent senders) and stores the message.
    func insert(room: UUID, _ new: NewMessage, at now: Date, on sql: any SQLDatabase) async throws -> ChatMessage {
        guard let row = try await sql.rows(ChatStatements.NextSeq(room: room, now: now)).first else {
            throw DomainError.notFound(.room)
        }
        let seq: Int64 = try row.value("last_message_seq")
        let id = UUID()
        let stored = try await sql.rows(ChatStatements.Insert(id: id, room: room, seq: seq, message: new, now: now)).first
        // The time as stored: the message handed to this instance's sockets is the one a read gives.
        let createdAt: Date = try stored.map { try $0.value("created_at") } ?? now
        return try await message(id: id, room: room, seq: seq, eventID: try row.optional("event_id"), new, createdAt: createdAt, on: sql)
    }

    /// The message just stored as a read would give it, with the message it replies to quoted.
    private func message(id: UUID, room: UUID, seq: Int64, eventID: UUID?, _ new: NewMessage, createdAt: Date, on sql: any SQLDatabase)
        async throws -> ChatMessage
    {
        var reply: ChatReply?
        if let replyTo = new.replyTo,
            let row = try await sql.raw(
                """
                SELECT q.sender_id, u.name, q.body, q.deleted_at FROM chat_messages q JOIN users u ON u.id = q.sender_id
                WHERE q.room_id = \(bind: room) AND q.seq = \(bind: replyTo)
                """
            ).first()
        {
            let deleted = try row.optional("deleted_at", as: Date.self) != nil
            reply = ChatReply(
                seq: replyTo, sender: UserSummary(id: try row.value("sender_id"), name: try row.value("name")),
                preview: deleted ? "" : String((try row.value("body", as: String.self)).prefix(Self.replyPreviewLength)), deleted: deleted)
        }
        return ChatMessage(
            id: id, roomID: room, eventID: eventID, seq: seq, sender: new.sender, clientID: new.clientID, body: new.body,
            createdAt: createdAt, attachment: new.attachment, replyTo: reply, mentions: new.mentions)
    }

    /// Messages with `seq` in `after+1 …`, ascending, at most `limit`.
    func messages(room: UUID, after: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.room_id = \(bind: room) AND m.seq > \(bind: after) ORDER BY m.seq LIMIT \(bind: limit)
                """
            ).all().map { try Self.decode($0) }
            return try await withReactions(rows, room: room, on: sql)
        }
    }

    /// Messages with `seq` below `before`, the latest `limit` of them, ascending.
    func messages(room: UUID, before: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.room_id = \(bind: room) AND m.seq < \(bind: before) ORDER BY m.seq DESC LIMIT \(bind: limit)
                """
            ).all().map { try Self.decode($0) }.reversed()
            return try await withReactions(Array(rows), room: room, on: sql)
        }
    }

    /// Messages changed (edited, deleted, reacted to) after change number `after`, in
    /// change order, at most `limit`: each in its current state, once, at its last change.
    func changes(room: UUID, after: Int64, limit: Int) async throws -> [ChatMessage] {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
                WHERE m.room_id = \(bind: room) AND m.change_seq > 0 AND m.change_seq > \(bind: after) ORDER BY m.change_seq LIMIT \(bind: limit)
                """
            ).all().map { try Self.decode($0) }
            return try await withReactions(rows, room: room, on: sql)
        }
    }

    /// Fills in the reactions of the messages that have any (only a changed message can),
    /// and the polls.
    private func withReactions(_ messages: [ChatMessage], room: UUID, seenBy viewer: UUID? = nil, on sql: any SQLDatabase)
        async throws -> [ChatMessage]
    {
        let messages = try await withPolls(messages, room: room, seenBy: viewer, on: sql)
        let changed = messages.filter { $0.changeSeq > 0 && $0.deletedAt == nil }.map(\.seq)
        guard !changed.isEmpty else { return messages }
        var byMessage: [Int64: [String: [UUID]]] = [:]
        for row in try await sql.raw(
            """
            SELECT seq, emoji, user_id FROM chat_reactions WHERE room_id = \(bind: room) AND seq IN (\(binds: changed)) ORDER BY created_at, user_id
            """
        ).all() {
            byMessage[try row.value("seq"), default: [:]][try row.value("emoji"), default: []].append(try row.value("user_id"))
        }
        guard !byMessage.isEmpty else { return messages }
        return messages.map { message in
            guard let reactions = byMessage[message.seq] else { return message }
            var out = message
            out.reactions = ChatReactions.allowed.compactMap { emoji in reactions[emoji].map { ChatReaction(emoji: emoji, users: $0) } }
            return out
        }
    }

    /// Takes the room's next change number and gives it to the message.
    func nextChange(room: UUID, seq: Int64, on sql: any SQLDatabase) async throws -> Int64 {
        guard
            let row = try await sql.raw(
                "UPDATE rooms SET last_change_seq = last_change_seq + 1 WHERE id = \(bind: room) RETURNING last_change_seq"
            ).first()
        else {
            throw DomainError.notFound(.room)
        }
        let change: Int64 = try row.value("last_change_seq")
        try await sql.raw("UPDATE chat_messages SET change_seq = \(bind: change) WHERE room_id = \(bind: room) AND seq = \(bind: seq)")
            .run()
        return change
    }

    /// Replaces a message's text.
    func edit(room: UUID, seq: Int64, body: String, at now: Date, on sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw(
            "UPDATE chat_messages SET body = \(bind: body), edited_at = \(bind: now) WHERE room_id = \(bind: room) AND seq = \(bind: seq)"
        ).run()
        return try await nextChange(room: room, seq: seq, on: sql)
    }

    /// Erases a message's text, image, mentions and reactions; its row and seq stay, as a tombstone.
    func delete(room: UUID, seq: Int64, at now: Date, on sql: any SQLDatabase) async throws -> Int64 {
        // (The image's upload is deleted by the caller, ChatService.delete, beforehand.)
        try await sql.raw(
            """
            UPDATE chat_messages SET body = '', mentions = NULL, attachment_id = NULL, attachment_variants = NULL, attachment_width = NULL, attachment_height = NULL,
                deleted_at = \(bind: now)
            WHERE room_id = \(bind: room) AND seq = \(bind: seq)
            """
        ).run()
        try await sql.raw("DELETE FROM chat_reactions WHERE room_id = \(bind: room) AND seq = \(bind: seq)").run()
        try await deletePoll(room: room, seq: seq, on: sql)
        return try await nextChange(room: room, seq: seq, on: sql)
    }

    /// Puts the user's emoji on the message, or takes it off; the change number, or
    /// nil when the message already was in the wanted state.
    func react(room: UUID, seq: Int64, user: UUID, emoji: String, on: Bool, at now: Date, on sql: any SQLDatabase) async throws -> Int64? {
        let changed: Bool
        if on {
            changed =
                try await sql.raw(
                    """
                    INSERT INTO chat_reactions (room_id, seq, user_id, emoji, created_at) VALUES (\(bind: room), \(bind: seq), \(bind: user), \(bind: emoji), \(bind: now))
                    ON CONFLICT (room_id, seq, user_id, emoji) DO NOTHING RETURNING seq
                    """
                ).first() != nil
        } else {
            changed =
                try await sql.raw(
                    """
                    DELETE FROM chat_reactions WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND user_id = \(bind: user) AND emoji = \(bind: emoji) RETURNING seq
                    """
                ).first() != nil
        }
        return changed ? try await nextChange(room: room, seq: seq, on: sql) : nil
    }
}

import Foundation
import Synchronization

/// Changing messages: edits, deletions and reactions, each under the room's rules.
extension ChatService {
    // MARK: Changing messages

    /// Replaces the text of the caller's own message, within the edit window.
    func edit(_ roomID: UUID, seq: Int64, by user: UUID, body: String?) async throws -> ChatMessage {
        var v = Validator()
        let text = v.text(body, "body", Self.bodyLimit, multiline: true)
        try v.throwIfInvalid()
        guard let text else { throw DomainError.validation(v.fields) }
        let now = clock.now()
        return try await change(roomID, seq: seq, by: user, writing: true) { [store, notifier] room, message, sql in
            guard message.sender.id == user else {
                throw DomainError.forbidden("not_yours", Sentence("Only its author can edit a message."))
            }
            guard message.deletedAt == nil else { throw DomainError.conflict("message_deleted", Sentence("The message was deleted.")) }
            guard now.timeIntervalSince(message.createdAt) <= Self.editWindow else {
                throw DomainError.conflict(
                    "edit_window_closed", Sentence("Messages can be edited for \(Int(Self.editWindow / 60)) minutes after sending."))
            }
            guard message.body != text else { return nil }
            if let poll = message.poll, poll.votersCount > 0 {
                throw DomainError.conflict("poll_answered", Sentence("People answered the poll: its question stays as they read it."))
            }
            try await notifier.chatMessageChanged(room: room.id, sender: message.sender, from: message.body, to: text, on: sql)
            return try await store.edit(room: room.id, seq: seq, body: text, at: now, on: sql)
        }
    }

    /// Deletes a message: its author may at any time, and an event's organiser any
    /// message of the event's room. The row stays as a tombstone (its seq is kept);
    /// the text and image are erased. Deleting again changes nothing. The image's
    /// upload goes with it: its links stop working at once, and its bytes are removed
    /// by the collector (``MediaService/collectUnattached(limit:)``).
    func delete(_ roomID: UUID, seq: Int64, by user: UUID) async throws -> ChatMessage {
        let now = clock.now()
        return try await change(roomID, seq: seq, by: user, writing: false) { [events, store, notifier, media] room, message, sql in
            if message.sender.id != user {
                let organiser = try await room.eventID.asyncMap { try await events.event($0, on: sql)?.organiserID }
                guard organiser == user else {
                    throw DomainError.forbidden("not_yours", Sentence("Only its author or the event's organiser can delete a message."))
                }
            }
            guard message.deletedAt == nil else { return nil }
            return try await Self.tombstone(message, in: room.id, at: now, on: sql, store: store, notifier: notifier, media: media)
        }
    }

    /// Staff take a message down (in the caller's transaction): the same tombstone as
    /// its author's deletion. `false` when it was deleted already.
    func takeDown(room roomID: UUID, seq: Int64, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Bool {
        guard try await store.lockRoom(roomID, on: sql) != nil, let message = try await store.message(room: roomID, seq: seq, on: sql),
            message.deletedAt == nil
        else { return false }
        let change = try await Self.tombstone(message, in: roomID, at: now, on: sql, store: store, notifier: notifier, media: media)
        changes.record(.chatChange(room: roomID, change: change))
        return true
    }

    /// Staff take a message's image down (in the caller's transaction): the upload goes
    /// with every link to it, the message keeps its text and reaches its room as changed.
    /// Returns the blob keys to remove once the transaction committed.
    func takeDownImage(_ upload: UUID, room roomID: UUID, seq: Int64, on sql: DatabaseSession, changes: inout ChangeSet) async throws
        -> [String]
    {
        let room = try await store.lockRoom(roomID, on: sql)
        let released = try await media.release([upload], on: sql)
        if room != nil { changes.record(.chatChange(room: roomID, change: try await store.nextChange(room: roomID, seq: seq, on: sql))) }
        return released
    }

    /// Erases a message's text and image, keeping its row and seq; returns the change number.
    private static func tombstone(
        _ message: ChatMessage, in room: UUID, at now: Date, on sql: DatabaseSession, store: ChatStore, notifier: Notifier,
        media: MediaAttachments
    ) async throws -> Int64 {
        // The text goes from the pushes queued for it too, and the image is let go (collected with unused uploads).
        try await notifier.chatMessageChanged(room: room, sender: message.sender, from: message.body, to: nil, on: sql)
        if let image = message.attachment?.image.id { _ = try await media.release([image], on: sql) }
        return try await store.delete(room: room, seq: message.seq, at: now, on: sql)
    }

    /// Puts an emoji of the allowed set on a message (`on`), or takes it off.
    func react(_ roomID: UUID, seq: Int64, by user: UUID, emoji: String?, on: Bool) async throws -> ChatMessage {
        guard let emoji, ChatReactions.allowed.contains(emoji) else {
            throw DomainError.validation(["emoji": Sentence("must be one of \(ChatReactions.allowed.joined(separator: " "))")])
        }
        let now = clock.now()
        return try await change(roomID, seq: seq, by: user, writing: true) { [store] room, message, sql in
            guard message.deletedAt == nil else { throw DomainError.conflict("message_deleted", Sentence("The message was deleted.")) }
            return try await store.react(room: room.id, seq: seq, user: user, emoji: emoji, on: on, at: now, on: sql)
        }
    }

    /// Runs one change of a message in the room's lock, by the rules of
    /// ``admitChange(in:by:writing:known:on:)``: `body` returns the change number it took, or
    /// nil for no change. Announces it; returns the message as it is now.
    func change(
        _ roomID: UUID, seq: Int64, by user: UUID, writing: Bool,
        _ body: @escaping @Sendable (Room, ChatMessage, DatabaseSession) async throws -> Int64?
    ) async throws -> ChatMessage {
        try await write { [store, safety] sql, changes in
            guard let room = try await store.lockRoom(roomID, on: sql) else { throw DomainError.notFound(.room) }
            try await admitChange(in: room, by: user, writing: writing, on: sql)
            // A message of someone the caller blocked is not there for them to edit or react to
            // (as in the history); a deletion (the organiser's) still reaches it. Every answer,
            // a change that changed nothing included, is the caller's view.
            let hidden = try await safety.blockedBy(user, on: sql)
            guard let message = try await store.message(room: roomID, seq: seq, on: sql),
                !writing || Blocks.view(message, hiding: hidden, viewer: user) != nil
            else {
                throw DomainError.notFound(.message)
            }
            // (A deletion of a blocked person's message answers the tombstone the caller made.)
            let seen = { (message: ChatMessage) in
                Blocks.view(message, hiding: hidden, viewer: user)
                    ?? Blocks.view(message, hiding: hidden.subtracting([message.sender.id]), viewer: user) ?? message
            }
            guard let change = try await body(room, message, sql) else { return seen(message) }
            changes.record(.chatChange(room: roomID, change: change))
            guard let current = try await store.message(room: roomID, seq: seq, on: sql) else { throw DomainError.notFound(.message) }
            return seen(current)
        }
    }

    /// The rules a change of a message in `room` follows, read on `sql`: the caller
    /// takes part in the room; a change that writes (an edit, a reaction, a vote)
    /// follows the rules of sending: not in a cancelled event's chat, not between people
    /// either of whom blocked the other, not from someone whose message request waits
    /// or was declined. `known` is what the caller read already: whether the person takes
    /// part, and (an event's room) whether the event is on.
    func admitChange(
        in room: Room, by user: UUID, writing: Bool, known: (member: Bool, eventActive: Bool?)? = nil, on sql: DatabaseSession
    ) async throws {
        let member: Bool
        if let known { member = known.member } else { member = try await store.isMember(room: room, user: user, on: sql) }
        guard member else { throw Self.refusal(room) }
        guard writing else { return }
        switch room.kind {
        case .event:
            // An event not found here is left to the caller's own checks, as an unknown status is.
            let active: Bool
            if let known {
                active = known.eventActive != false
            } else {
                active = try await events.event(room.eventID ?? room.id, on: sql).map { $0.status == .active } ?? true
            }
            guard active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled: its chat is read-only.")) }
        case .conversation:
            guard var conversation = try await rooms.conversation(room: room.id, on: sql), let other = conversation.other(than: user)
            else {
                throw DomainError.notFound(.room)
            }
            if try await safety.eitherBlocked(user, other.id, on: sql) {
                throw DomainError.forbidden("blocked", Sentence("You cannot write to each other."))
            }
            if conversation.requestedBy == user, conversation.state == .requested {
                conversation.sharesAnEvent = try await rooms.shareAnEvent(
                    user, other.id, endedAfter: Self.sharingSince(clock.now()), on: sql)
            }
            if !conversation.maySend(user) {
                throw DomainError.forbidden(
                    conversation.state == .requested ? "request_pending" : "request_declined",
                    Sentence("\(other.name) has not accepted your message request."))
            }
        case .group:
            break
        }
    }
}

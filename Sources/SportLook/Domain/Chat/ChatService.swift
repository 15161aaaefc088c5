import Foundation
import Synchronization

/// Sending, changing and reading the messages of a room: an event's chat or a
/// conversation, by the same rules and the same code.
struct ChatService: Sendable {
    let database: Database
    let store: ChatStore
    let reads: ReadMarkerStore
    let presence: PresenceStore
    /// The sockets' presence writes, in batches (``Gathering``): whether each
    /// socket's row is to be there, as its last write in the batch says.
    let presenceWrites: Gathering<PresenceStore.Entry, Bool, Void>
    /// What a socket subscribing reads (its room and membership, who its person
    /// blocked), read for the sockets subscribing at once in one statement.
    let subscribing: Gathering<ChatStore.Asked, Void, (room: Room, member: Bool)>
    let blockLists: Gathering<UUID, Void, Set<UUID>>
    let safety: SafetyStore
    let rooms: RoomStore
    let events: EventStore
    let notifier: Notifier
    let write: Writer
    let clock: any AppClock
    let limiter: RateLimiter
    /// Chat images (uploads made with `use=chat`).
    let media: MediaAttachments
    /// The room of a members-only event is not there for anyone outside its group.
    let access: EventAccess
    /// A poll's close and reminder.
    let scheduler: Scheduler
    /// Presence is about live sockets: it runs on the wall clock.
    let presenceClock: any AppClock = SystemClock()
    /// What the last sends found of rooms and senders, for the next send to expect.
    let recent = RecentSends()

    /// The batches of presence writes `store` is given.
    static func presenceWrites(_ store: PresenceStore, clock: any AppClock) -> Gathering<PresenceStore.Entry, Bool, Void> {
        Gathering { rows in
            // Owed whatever the load, whoever's call runs the batch (a member counted absent would be sent pushes).
            try await Admission.owedWork { try await store.write(rows, at: clock.now()) }
            return [:]
        }
    }

    /// The batches of membership reads the sockets subscribing at once share.
    static func subscribing(_ store: ChatStore) -> Gathering<ChatStore.Asked, Void, (room: Room, member: Bool)> {
        Gathering { asked in try await store.memberships(Array(asked.keys)) }
    }

    /// The batches of block-list reads the sockets subscribing at once share.
    static func blockLists(_ safety: SafetyStore) -> Gathering<UUID, Void, Set<UUID>> {
        Gathering { users in try await safety.blockedBy(users: Array(users.keys)) }
    }

    /// How long a socket's presence counts after its instance's last heartbeat.
    static let presenceLifetime: TimeInterval = 90
    /// How long after sending its author may edit a message.
    static let editWindow: TimeInterval = 15 * 60
    /// People one message may mention.
    static let maxMentions = 20
    static let bodyLimit = 1...2_000

    static let eventMembersOnly = Sentence(
        "Only the organiser and the people going take part in this chat; a place on the waitlist opens it when it becomes one.")
    static let groupMembersOnly = Sentence("Only the group's members take part in its chat.")

    /// The answer to someone not taking part in a room: an event's or a group's room
    /// is there to know about (403), a conversation is not (404). (An event someone
    /// may not see at all is a 404 before this: ``EventAccess``.)
    static func refusal(_ room: Room) -> DomainError {
        switch room.kind {
        case .event: DomainError.forbidden(eventMembersOnly)
        case .group: DomainError.forbidden("group_members_only", groupMembersOnly)
        case .conversation: DomainError.notFound(.room)
        }
    }

    struct Sent: Sendable {
        var message: ChatMessage
        var created: Bool
    }

    /// What a message says and points at, as sent.
    struct Draft: Sendable {
        var body: String?
        var clientID: String?
        var attachmentID: String? = nil
        var replyTo: Int64? = nil
        var mentions: [String]? = nil
        /// A poll: the body is its question.
        var poll: Polls.Draft? = nil
    }

    /// Stores a message: text, an image (an upload of the sender's made with
    /// `use=chat`, which the message then holds), or both. The same `client_id` again
    /// returns the original.
    func send(to roomID: UUID, from user: UUID, _ draft: Draft) async throws -> Sent {
        do {
            return try await keep(to: roomID, from: user, draft)
        } catch let error as DomainError where error.kind == .forbidden {
            // Whether an event someone may not see exists is not theirs to learn from its chat.
            try await access.requireRoom(roomID, for: user)
            throw error
        }
    }

    private func keep(to roomID: UUID, from user: UUID, _ draft: Draft) async throws -> Sent {
        var v = Validator()
        let attachmentID = draft.attachmentID.flatMap { MediaAttachments.parseID($0, field: "attachment_id", into: &v) }
        // With an image, the text may be left out or empty.
        let imageOnly = attachmentID != nil && (draft.body ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        let body = imageOnly ? "" : v.text(draft.body, "body", Self.bodyLimit, multiline: true)
        let clientID = v.text(draft.clientID, "client_id", 1...100)
        if let reply = draft.replyTo { v.check(reply >= 1, "reply_to", Sentence("must be the seq of a message in this room")) }
        let mentions = (draft.mentions ?? []).compactMap(UUID.init(text:))
        v.check(mentions.count == draft.mentions?.count ?? 0, "mentions", Sentence("must be user ids"))
        v.check(mentions.count <= Self.maxMentions, "mentions", Sentence("at most \(Self.maxMentions) people"))
        let now = clock.now()
        let poll = draft.poll.flatMap { Polls.poll($0, at: now, into: &v) }
        if draft.poll != nil, attachmentID != nil { v.fail("poll", Sentence("a poll carries no image")) }
        try v.throwIfInvalid()
        guard let body, let clientID else { throw DomainError.validation(v.fields) }
        let fresh = presenceClock.now().addingTimeInterval(-Self.presenceLifetime)
        if attachmentID == nil, mentions.isEmpty, draft.replyTo == nil, draft.poll == nil,
            let sent = try await quickSend(to: roomID, from: user, clientID: clientID, body: body, at: now, freshSince: fresh)
        {
            return sent
        }
        return try await write {
            [store, rooms, notifier, limiter, media, recent, scheduler, safety, feed = write.feed, postgres = database.engine == .postgres]
            sql,
            changes in
            // Locking the room first serialises senders, so a retried client_id finds its original.
            guard let sending = try await store.lockForSending(roomID, user: user, clientID: clientID, on: sql) else {
                throw DomainError.notFound(.room)
            }
            let room = sending.room
            var conversation: Conversation?
            switch room.kind {
            case .event, .group:
                guard sending.member else { throw Self.refusal(room) }
            case .conversation:
                conversation = try await rooms.conversation(room: room.id, on: sql)
                guard let conversation, conversation.includes(user) else { throw DomainError.notFound(.room) }
            }
            if let seq = sending.existingSeq, let original = try await store.message(room: roomID, seq: seq, on: sql) {
                // A poll as its author sees it now (their choices, not the votes of those they blocked).
                let hidden = original.isPoll ? try await safety.blockedBy(user, on: sql) : []
                return Sent(message: Blocks.view(original, hiding: hidden, viewer: user) ?? original, created: false)
            }
            if room.kind == .event, !sending.eventActive {
                throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled: its chat is read-only."))
            }
            if let current = conversation {
                let admitted = try await admit(user, to: current, at: now, on: sql)
                // A request or an answer changes how both see the conversation (the one
                // asked sees it for the first time).
                if admitted.state != current.state {
                    for person in admitted.people { changes.record(.roomState(user: person.id, room: roomID)) }
                }
                conversation = admitted
            }
            if let reply = draft.replyTo, reply > room.lastMessageSeq {
                throw DomainError.validation(["reply_to": Sentence("must be the seq of a message in this room (1–\(room.lastMessageSeq))")])
            }
            let mentioned = Array(try await store.members(of: room, among: mentions.filter { $0 != user }, on: sql))
            guard mentioned.count == Set(mentions.filter { $0 != user }).count else {
                throw DomainError.validation(["mentions": Sentence("may name only people in this room")])
            }
            var attachment: ChatAttachment?
            if let attachmentID {
                let upload = try await media.attachUpload(attachmentID, use: .chat, owner: user, field: "attachment_id", at: now, on: sql)
                let largest = upload.variants.first
                attachment = ChatAttachment(
                    image: upload.reference, width: largest?.width ?? upload.width, height: largest?.height ?? upload.height)
            }
            // Last of the checks, so a refused message costs no place in the rate (a
            // refusal here rolls the attachment back).
            if let wait = limiter.acquire(user.lowercased) {
                throw DomainError.tooManyRequests(retryAfter: wait, message: Sentence("You are sending messages too fast."))
            }
            let sender = UserSummary(id: user, name: sending.senderName)
            // Those who blocked the sender are not told of the message (absentMembers leaves them out).
            var (message, absent, announced) = try await store.store(
                in: room,
                .init(
                    sender: sender, clientID: clientID, body: body, attachment: attachment,
                    replyTo: draft.replyTo, mentions: mentioned.sorted { $0.lowercased < $1.lowercased }),
                // Announced by the statement that stores it, unless changes recorded before
                // it (a conversation's state) must go on the bus first.
                at: now, telling: fresh, notification: changes.isEmpty ? feed.chatNotification(room: roomID) : nil, on: sql)
            if var poll {
                try await store.insertPoll(poll, room: roomID, seq: message.seq, on: sql)
                // As a read gives it: not there for those its author blocked.
                poll.hiddenFrom = try await safety.blockedBy(user, on: sql)
                try await Polls.schedule(poll, room: roomID, seq: message.seq, at: now, scheduler: scheduler, on: sql)
                (message.isPoll, message.poll) = (true, poll)
                // Nor is it pushed to them.
                absent.removeAll { poll.hiddenFrom.contains($0) }
            }
            let heading: ChatHeading =
                switch room.kind {
                case .event: .event(id: room.eventID ?? room.id, title: sending.eventTitle ?? "")
                case .group: .group(id: room.id, name: sending.groupName ?? "")
                case .conversation: .conversation(roomID)
                }
            try await notifier.chatMessage(
                heading, seq: message.seq, sender: sender, preview: body.isEmpty ? nil : body,
                recipients: absent, mentioned: Set(mentioned), at: now, on: sql, changes: &changes)
            // This instance's sockets get the message as stored, without reading it back.
            changes.stored(message, announced: announced)
            // What the next send expects (on PostgreSQL, where ``quickSend`` uses it).
            switch room.kind {
            case _ where !postgres: break
            case .event:
                recent.remember(
                    room: roomID, .init(kind: .event, eventID: room.eventID ?? room.id, name: sending.eventTitle ?? ""), sender: sender)
            case .group: recent.remember(room: roomID, .init(kind: .group, eventID: nil, name: sending.groupName ?? ""), sender: sender)
            case .conversation: break
            }
            return Sent(message: message, created: true)
        }
    }

    /// A text message to an event's or a group's room where this instance's last send
    /// found the room and the sender as they still are: on PostgreSQL, checked, stored,
    /// its notifications queued and announced in one statement with no transaction
    /// around it (``ChatStore/quickStore(_:at:telling:notification:jobs:jobsNotification:on:)``);
    /// the same rows and changes as the transaction writes. `nil` when the statement
    /// found anything else (nothing written then: the transaction sends it, or says
    /// why not), or on SQLite, whose single writer has no round trips to save.
    private func quickSend(to roomID: UUID, from user: UUID, clientID: String, body: String, at now: Date, freshSince fresh: Date)
        async throws -> Sent?
    {
        guard let notification = write.feed.chatNotification(room: roomID), let jobsNotification = write.feed.jobsNotification,
            let expected = recent.expected(room: roomID, sender: user)
        else { return nil }
        let (room, sender) = (expected.room, UserSummary(id: user, name: expected.senderName))
        let heading: ChatHeading =
            room.kind == .event ? .event(id: room.eventID ?? roomID, title: room.name) : .group(id: roomID, name: room.name)
        guard let jobs = notifier.chatJobs(heading, sender: sender, preview: body) else { return nil }
        // Over the rate, the transaction refuses it, after the checks that come first.
        guard let place = limiter.reserve(user.lowercased) else { return nil }
        let quick = ChatStatements.Quick(
            room: roomID, kind: room.kind, eventID: room.eventID, headingName: room.name, sender: sender, clientID: clientID, body: body)
        // On an error the place stays taken, as the transaction's does: a statement past its
        // deadline runs on, and may yet store the message.
        let stored = try await write.single { [store] sql, changes in
            guard
                let stored = try await store.quickStore(
                    quick, at: now, telling: fresh, notification: notification, jobs: jobs,
                    jobsNotification: jobsNotification, on: sql)
            else { return nil as ChatMessage? }
            if !stored.absent.isEmpty { changes.record(.jobs, announced: true) }
            changes.stored(stored.message, announced: true)
            return stored.message
        }
        guard let stored else {
            limiter.giveBack(place)
            return nil
        }
        recent.storedInOneStatement()
        return Sent(message: stored, created: true)
    }

    /// How long after an event ends its people still write to each other freely.
    static let sharedEventGrace: TimeInterval = 7 * 86_400

    /// Events that ended after this instant still count as shared.
    static func sharingSince(_ now: Date) -> Date { now.addingTimeInterval(-sharedEventGrace) }

    /// The conversation rules for a new message from `user`. The first message is a
    /// request; its sender may not send a second until the other accepts or writes back
    /// — except while the two share an event (both going or organising, the event not
    /// over for more than ``sharedEventGrace``). A waitlist place is not sharing, and
    /// sharing never opens the conversation for good: once it ends, the request waits
    /// again. A decline stands until the one who declined writes or accepts. Blocking
    /// ends it both ways.
    private func admit(_ user: UUID, to conversation: Conversation, at now: Date, on sql: DatabaseSession) async throws -> Conversation {
        guard let other = conversation.other(than: user) else { throw DomainError.notFound(.room) }
        if try await safety.eitherBlocked(user, other.id, on: sql) {
            throw DomainError.forbidden("blocked", Sentence("You cannot write to each other."))
        }
        guard conversation.state != .open else { return conversation }
        var updated = conversation
        updated.sharesAnEvent = try await rooms.shareAnEvent(user, other.id, endedAfter: Self.sharingSince(now), on: sql)
        switch conversation.state {
        case .new:
            updated.state = .requested
            updated.requestedBy = user
        case .requested where conversation.requestedBy == user:
            guard updated.sharesAnEvent else {
                throw DomainError.forbidden("request_pending", Sentence("\(other.name) has not accepted your message request yet."))
            }
            return updated
        case .declined where conversation.requestedBy == user:
            throw DomainError.forbidden("request_declined", Sentence("\(other.name) declined your message request."))
        case .requested, .declined, .open:
            // The one asked writes back: that accepts.
            updated.state = .open
            updated.requestedBy = nil
        }
        try await rooms.setState(room: conversation.roomID, updated.state, requestedBy: updated.requestedBy, on: sql)
        return updated
    }

}

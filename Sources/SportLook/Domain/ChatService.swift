import Foundation

/// Sending and reading an event's chat.
struct ChatService: Sendable {
    let database: Database
    let store: ChatStore
    let events: EventStore
    let accounts: AccountStore
    let notifier: Notifier
    let write: Writer
    let clock: any AppClock
    let limiter: RateLimiter
    /// Chat images (uploads made with `use=chat`).
    let media: MediaAttachments
    /// Presence is about live sockets: it runs on the wall clock.
    let presenceClock: any AppClock = SystemClock()

    /// How long a socket's presence counts after its last heartbeat.
    static let presenceLifetime: TimeInterval = 90

    struct Sent: Sendable {
        var message: ChatMessage
        var created: Bool
    }

    /// Stores a message: text, an image (an upload of the sender's made with
    /// `use=chat`, which the message then holds), or both. The same `client_id` again
    /// returns the original.
    func send(to eventID: UUID, from user: UUID, body: String?, clientID: String?, attachmentID: String? = nil) async throws -> Sent {
        var v = Validator()
        let attachmentID = attachmentID.flatMap { MediaAttachments.parseID($0, field: "attachment_id", into: &v) }
        // With an image, the text may be left out or empty.
        let imageOnly = attachmentID != nil && (body ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        let body = imageOnly ? "" : v.text(body, "body", 1...2_000, multiline: true)
        let clientID = v.text(clientID, "client_id", 1...100)
        try v.throwIfInvalid()
        guard let body, let clientID else { throw DomainError.validation(v.fields) }
        let now = clock.now()
        let fresh = presenceClock.now().addingTimeInterval(-Self.presenceLifetime)
        return try await write { [store, events, accounts, notifier, limiter, media] sql, effects in
            // Locking the event first serialises senders, so a retried client_id finds its original.
            guard let event = try await events.lock(eventID, on: sql) else { throw DomainError.notFound("event") }
            guard try await store.isMember(event: eventID, user: user, on: sql) else {
                throw DomainError.forbidden("Only the organiser and people going or waitlisted take part in this chat.")
            }
            if let original = try await store.existing(event: eventID, sender: user, clientID: clientID, on: sql) {
                return Sent(message: original, created: false)
            }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", "The event is cancelled: its chat is read-only.") }
            var attachment: ChatAttachment?
            if let attachmentID {
                let upload = try await media.attachUpload(attachmentID, use: .chat, owner: user, field: "attachment_id", at: now, on: sql)
                let largest = upload.variants.first
                attachment = ChatAttachment(image: upload.reference, width: largest?.width ?? upload.width, height: largest?.height ?? upload.height)
            }
            // Last of the checks, so a refused message costs no place in the rate (a
            // refusal here rolls the attachment back).
            if let wait = limiter.acquire(user.lowercased) {
                throw DomainError.tooManyRequests(retryAfter: wait, message: "You are sending messages too fast.")
            }
            let sender = UserSummary(id: user, name: try await accounts.names(of: [user], on: sql)[user] ?? "")
            let message = try await store.insert(event: eventID, sender: sender, clientID: clientID, body: body, attachment: attachment, at: now, on: sql)
            // Those who blocked the sender are not told of the message.
            let blockers = try await store.blockers(of: user, on: sql)
            let absent = try await store.absentMembers(event: eventID, except: user, freshSince: fresh, on: sql).filter { !blockers.contains($0) }
            try await notifier.chatMessage(event: event, seq: message.seq, sender: sender, preview: body.isEmpty ? "📷 Photo" : body, recipients: absent, at: now, on: sql, effects: &effects)
            effects.messages.append(.chat(event: eventID, seq: message.seq))
            return Sent(message: message, created: true)
        }
    }

    /// Checks the user may read the event's chat.
    func requireMember(_ eventID: UUID, _ user: UUID) async throws {
        let (exists, member) = try await store.membership(event: eventID, user: user)
        guard exists else { throw DomainError.notFound("event") }
        guard member else { throw DomainError.forbidden("Only the organiser and people going or waitlisted take part in this chat.") }
    }

    enum Direction: Sendable {
        /// Between two seqs (both excluded), ascending.
        case between(Int64, Int64)
        case after(Int64)
        case before(Int64)
        case latest
    }

    /// A page of history, ascending by `seq`, without messages of people the reader blocked.
    func history(of eventID: UUID, for user: UUID, direction: Direction, limit: Int) async throws -> Page<ChatMessage> {
        try await requireMember(eventID, user)
        let blocked = try await store.blockedBy(user)
        let items: [ChatMessage]
        var next: String?
        switch direction {
        case .between(let low, let high):
            let rows = try await store.messages(event: eventID, after: low, limit: limit + 1).filter { $0.seq < high }
            items = Array(rows.prefix(limit))
            if rows.count > limit, let last = items.last { next = ChatCursor(after: last.seq).cursor }
        case .after(let seq):
            let rows = try await store.messages(event: eventID, after: seq, limit: limit + 1)
            items = Array(rows.prefix(limit))
            if rows.count > limit, let last = items.last { next = ChatCursor(after: last.seq).cursor }
        case .before(let seq):
            let rows = try await store.messages(event: eventID, before: seq, limit: limit + 1)
            items = Array(rows.suffix(limit))
            if rows.count > limit, let first = items.first { next = ChatCursor(before: first.seq).cursor }
        case .latest:
            let rows = try await store.messages(event: eventID, before: .max, limit: limit + 1)
            items = Array(rows.suffix(limit))
            if rows.count > limit, let first = items.first { next = ChatCursor(before: first.seq).cursor }
        }
        return Page(items: items.filter { !blocked.contains($0.sender.id) }, nextCursor: next)
    }

    /// Moves the reader's marker to `seq`; `false` when it was already there or further.
    @discardableResult
    func markRead(_ eventID: UUID, user: UUID, seq: Int64) async throws -> Bool {
        try await requireMember(eventID, user)
        guard let event = try await events.event(eventID) else { throw DomainError.notFound("event") }
        guard seq >= 0, seq <= event.lastMessageSeq else {
            throw DomainError.invalidParameter("seq", "must be between 0 and the last message's seq (\(event.lastMessageSeq))")
        }
        return try await store.markRead(event: eventID, user: user, seq: seq, at: clock.now())
    }

    // MARK: For the socket hub

    /// Up to `limit` messages of the event after `seq`, ascending (no membership check: the hub's own read).
    func messages(of eventID: UUID, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        try await store.messages(event: eventID, after: seq, limit: limit)
    }

    /// The event's last message number; nil for no such event.
    func lastSeq(of eventID: UUID) async throws -> Int64? {
        try await events.event(eventID)?.lastMessageSeq
    }

    /// Whether the user takes part in the event's chat.
    func isMember(_ eventID: UUID, _ user: UUID) async throws -> Bool {
        try await store.isMember(event: eventID, user: user)
    }

    /// Those the user blocked (their messages are not shown to the user).
    func blockedBy(_ user: UUID) async throws -> Set<UUID> {
        try await store.blockedBy(user)
    }

    /// The user has the event's chat open on this instance (no push for its messages).
    func present(_ user: UUID, in eventID: UUID, instance: String) async throws {
        try await store.present(instance: instance, user: user, event: eventID, at: Date())
    }

    func absent(_ user: UUID, from eventID: UUID, instance: String) async throws {
        try await store.absent(instance: instance, user: user, event: eventID)
    }

    /// Keeps this instance's presence rows alive and drops those of instances gone for five minutes.
    func heartbeat(instance: String) async throws {
        let now = Date()
        try await store.heartbeat(instance: instance, at: now, staleBefore: now.addingTimeInterval(-300))
    }
}

/// Where a history page continues: older (`before`) or newer (`after`) messages.
struct ChatCursor: CursorCodable, Sendable {
    var after: Int64?
    var before: Int64?

    init(after: Int64) { self.after = after }
    init(before: Int64) { self.before = before }

    init?(cursor: String) {
        guard let f = OpaqueCursor.decode(cursor, count: 2), let seq = Int64(f[1]), seq >= 0 else { return nil }
        switch f[0] {
        case "a": after = seq
        case "b": before = seq
        default: return nil
        }
    }

    var cursor: String { after.map { OpaqueCursor.encode(["a", String($0)]) } ?? OpaqueCursor.encode(["b", String(before ?? 0)]) }
}

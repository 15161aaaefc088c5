import Foundation
import Logging
import Synchronization

/// One client's socket: its subscriptions and what it has been sent.
///
/// Each subscription remembers the last `seq` delivered and the last change number
/// (edit, deletion, reaction) accounted for. Every frame of a room's history or live
/// traffic comes from one loop per subscription that reads "everything after what
/// was delivered" from the room (or the database) in order, so no message or change
/// is skipped or sent twice, whatever arrives while the history is read. The loop
/// only pulls as fast as the socket takes frames, so a slow reader costs a number,
/// not a queue.
///
/// Exactly once, across reconnections: a message is sent in its newest known state,
/// and only once the change position covers that state (`after_change` in the frame
/// is never below the message's `change_seq`); a change is sent only for messages
/// already delivered. So a client that resumes with the `after_change` of the last
/// frame it got is sent each later change once: the rows changed after it.
actor ChatConnection {
    nonisolated let userID: UUID
    /// The session (access token) the socket was opened with: it closes when the session ends.
    nonisolated let session: UUID
    nonisolated let userName: String
    nonisolated let outbox: Outbox
    /// People this user blocked: their messages, typing and read frames are not sent here.
    private nonisolated let hidden = Mutex<Set<UUID>>([])
    /// The event of each subscribed event room (frames about it carry `event_id`).
    private nonisolated let events = Mutex<[UUID: UUID]>([:])
    /// The rooms with a subscription set up: typing and read frames go only to these
    /// (a socket joins a room's traffic before its membership is checked).
    private nonisolated let following = Mutex<Set<UUID>>([])
    private var budget: FrameBudget
    private let hub: ChatHub
    private let chat: ChatService
    private let bus: Bus
    private let logger: Logger

    private struct Subscription {
        var delivered: Int64
        var target: Int64
        var deliveredChange: Int64
        var targetChange: Int64
        /// Changed messages read from the change list before the message itself was
        /// delivered: sent in this state (or a newer one) when their turn comes.
        var pending: [Int64: ChatMessage] = [:]
        var pumping = false
        /// Which subscription this is: a read that started for an earlier one (the
        /// client unsubscribed and subscribed again meanwhile) is thrown away.
        var epoch = 0

        var caughtUp: Bool { delivered >= target && deliveredChange >= targetChange }
    }

    private var subscriptions: [UUID: Subscription] = [:]
    /// The subscription being set up, by room (a socket's frames are handled one at a
    /// time, so there is at most one): the socket joins the room's live traffic before
    /// the room is read, and what is offered meanwhile is counted into the targets when
    /// the subscription is set (a message stored between reading the room and joining
    /// would otherwise reach the socket only with the next one).
    ///
    /// `recheck`: an attendance change was handled while the subscription was being
    /// set up, after its membership was read; it is read again before the subscription is set.
    private struct Joining {
        var seq: Int64 = 0
        var change: Int64 = 0
        var recheck = false
    }
    private var joining: [UUID: Joining] = [:]
    private var epochs = 0
    private var lastTyping: [UUID: ContinuousClock.Instant] = [:]
    static let typingInterval: Duration = .seconds(2)
    static let maxSubscriptions = 100

    /// The chats list kept live (`watch_rooms`): the rooms the user is in, and
    /// those with news to send.
    private var watching = false
    private var myRooms: Set<UUID> = []
    private var dirty: Set<UUID> = []
    private var flushing = false
    static let roomUpdateDelay: Duration = .milliseconds(200)

    init(identity: Identity, userName: String, hub: ChatHub, chat: ChatService, bus: Bus, limits: SocketLimits, logger: Logger) {
        self.userID = identity.userID
        self.session = identity.tokenID
        self.userName = userName
        self.hub = hub
        self.chat = chat
        self.bus = bus
        self.outbox = Outbox(capacity: limits.queueFrames, byteCapacity: limits.queueBytes)
        self.budget = FrameBudget(rate: limits.frameRate, burst: limits.frameBurst)
        var logger = logger
        logger[metadataKey: "user"] = "\(identity.userID)"
        self.logger = logger
    }

    /// Queues a frame that may be dropped when the client is behind.
    nonisolated func send(ephemeral frame: String) {
        outbox.push(frame)
    }

    /// Whether frames from `user` are kept from this socket (this user blocked them).
    nonisolated func hides(_ user: UUID) -> Bool {
        hidden.withLock { $0.contains(user) }
    }

    /// Whether this socket's subscription to `room` is set up.
    nonisolated func follows(_ room: UUID) -> Bool {
        following.withLock { $0.contains(room) }
    }

    /// How frames about a room this socket subscribed to name it.
    nonisolated func address(of room: UUID) -> RoomAddress {
        RoomAddress(id: room, eventID: events.withLock { $0[room] })
    }

    /// Closes the socket with a code and reason (after what is already queued).
    nonisolated func end(_ ending: Outbox.Ending) {
        outbox.close(ending: ending)
    }

    struct ClientFrame: Decodable {
        var type: String
        var roomId: String?
        var eventId: String?
        var afterSeq: Int64?
        var afterChange: Int64?
        var body: String?
        var clientId: String?
        var attachmentId: String?
        var replyTo: Int64?
        var mentions: [String]?
        var seq: Int64?
    }

    /// Handles one text frame from the client.
    func handle(_ text: String) async {
        // A socket being closed (its session ended, it broke the rules) acts on nothing more.
        guard !outbox.isClosed else { return }
        guard budget.take(at: .now) else {
            send(ephemeral: Frames.error("rate_limited", "Too many frames; this socket is closed."))
            end(.tooManyFrames)
            logger.info("closing a socket that sent too many frames")
            return
        }
        guard text.utf8.count <= 16_384, (try? RequestBody.checkDepth(Array(text.utf8))) != nil,
              let frame = try? RequestBody.decoder.decode(ClientFrame.self, from: Data(text.utf8))
        else {
            send(ephemeral: Frames.error("invalid_frame", "Frames are JSON objects with a type."))
            return
        }
        if frame.type == "watch_rooms" {
            await watchRooms()
            return
        }
        // A room is named by `room_id`; an event's room also by `event_id` (the same id).
        guard let room = (frame.roomId ?? frame.eventId).flatMap(UUID.init(uuidString:)) else {
            send(ephemeral: Frames.error("invalid_frame", "room_id must be a room id (an event's id for its chat)."))
            return
        }
        switch frame.type {
        case "subscribe": await subscribe(room, after: max(0, frame.afterSeq ?? 0), afterChange: frame.afterChange.map { max(0, $0) })
        case "unsubscribe": await unsubscribe(room, reason: "requested")
        case "message":
            await post(room, ChatService.Draft(body: frame.body, clientID: frame.clientId, attachmentID: frame.attachmentId,
                                               replyTo: frame.replyTo, mentions: frame.mentions))
        case "typing": await typing(room)
        case "read": await read(room, seq: frame.seq)
        default: send(ephemeral: Frames.error("invalid_frame", "Unknown frame type.", room: address(of: room)))
        }
    }

    private func subscribe(_ id: UUID, after: Int64, afterChange: Int64?) async {
        // Live traffic first, then the room: nothing stored in between is missed.
        hub.join(self, id)
        joining[id] = Joining()
        defer {
            joining[id] = nil
            if subscriptions[id] == nil { hub.leave(self, id) }
        }
        do {
            let room = try await chat.requireMember(id, userID)
            guard subscriptions[id] != nil || subscriptions.count < Self.maxSubscriptions else {
                send(ephemeral: Frames.error("too_many_subscriptions", "At most \(Self.maxSubscriptions) chats at once.", room: RoomAddress(id: id, eventID: room.eventID)))
                return
            }
            events.withLock { $0[id] = room.eventID }
            let blocked = try await chat.blockedBy(userID)
            hidden.withLock { $0 = blocked }
            // The member may have left meanwhile (the read above came first): no subscription outlives the attendance.
            while joining[id]?.recheck == true {
                joining[id]?.recheck = false
                _ = try await chat.requireMember(id, userID)
            }
            // Without `after_change`, a client starting from the beginning is sent every
            // message as it is now (nothing to replay); one resuming is sent every change
            // of what it holds.
            let fromChange = min(afterChange ?? (after == 0 ? room.lastChangeSeq : 0), room.lastChangeSeq)
            // What the hub remembers of the room may be older than the changes counted here.
            hub.noteChange(id, upTo: room.lastChangeSeq)
            epochs += 1
            let offered = joining[id] ?? Joining()
            subscriptions[id] = Subscription(delivered: after, target: max(room.lastMessageSeq, after, offered.seq),
                                             deliveredChange: fromChange, targetChange: max(room.lastChangeSeq, offered.change), epoch: epochs)
            following.withLock { _ = $0.insert(id) }
            await recordPresence(id, present: true)
            send(ephemeral: Frames.simple("subscribed", room: address(of: id),
                                          numbers: [("last_seq", Int(room.lastMessageSeq)), ("last_change_seq", Int(room.lastChangeSeq))]))
            pump(id)
        } catch {
            send(ephemeral: refusal(error, "subscribe failed", room: id))
        }
    }

    private func unsubscribe(_ room: UUID, reason: String) async {
        guard subscriptions.removeValue(forKey: room) != nil else { return }
        following.withLock { _ = $0.remove(room) }
        // (A subscription being set up again keeps the room's live traffic.)
        if joining[room] == nil { hub.leave(self, room) }
        await recordPresence(room, present: false)
        send(ephemeral: Frames.simple("unsubscribed", room: address(of: room), fields: [("reason", reason)]))
    }

    /// Presence decides who gets a push for a message: a failure is logged (the
    /// row expires with the instance's heartbeat), not hidden.
    /// Never refused past capacity: a member counted absent would be sent pushes.
    private func recordPresence(_ room: UUID, present: Bool) async {
        do {
            try await Database.$admission.withValue(nil) {
                if present {
                    try await chat.present(userID, in: room, instance: bus.instanceID)
                } else {
                    try await chat.absent(userID, from: room, instance: bus.instanceID)
                }
            }
        } catch {
            logger.warning("could not record chat presence", metadata: ["room": "\(room)", "present": "\(present)", "error": "\(error)"])
        }
    }

    /// A message with `seq` exists in `room`: make sure the client gets up to it.
    func offer(room: UUID, seq: Int64) {
        if var setting = joining[room] {
            setting.seq = max(setting.seq, seq)
            joining[room] = setting
        }
        guard var subscription = subscriptions[room], seq > subscription.target else { return }
        subscription.target = seq
        subscriptions[room] = subscription
        pump(room)
    }

    /// A change numbered `change` happened in `room`: make sure the client gets up to it.
    func offer(room: UUID, change: Int64) {
        if var setting = joining[room] {
            setting.change = max(setting.change, change)
            joining[room] = setting
        }
        guard var subscription = subscriptions[room], change > subscription.targetChange else { return }
        subscription.targetChange = change
        subscriptions[room] = subscription
        pump(room)
    }

    private func pump(_ room: UUID) {
        guard var subscription = subscriptions[room], !subscription.pumping, !subscription.caughtUp else { return }
        subscription.pumping = true
        subscriptions[room] = subscription
        let epoch = subscription.epoch
        Task { await self.catchUp(room, epoch: epoch) }
    }

    /// Sends everything after what was delivered, in order, as fast as the socket takes it.
    private func catchUp(_ room: UUID, epoch: Int) async {
        var failures = 0
        while let subscription = subscriptions[room], subscription.epoch == epoch, !subscription.caughtUp, !outbox.isClosed {
            await outbox.waitForRoom()
            guard subscriptions[room]?.epoch == epoch else { return }
            let progressed: Bool
            do {
                let changed = try await sendChanges(room, epoch: epoch)
                let sent = try await sendMessages(room, epoch: epoch)
                progressed = changed || sent
            } catch {
                // The database is away: try again, more slowly each time, while the socket lives.
                failures += 1
                logger.debug("catch-up failed", metadata: ["room": "\(room)", "error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(failures, 6))))
                continue
            }
            if progressed {
                failures = 0
            } else {
                // The targets are committed (offers follow commits, a subscription's targets
                // are read from the database), so this read was early: a load shared with a
                // caller that started before the commit, or a snapshot from before it. Look
                // again shortly, more slowly each time, while the socket lives; stopping
                // here would leave the client short until another message happened to come.
                failures += 1
                try? await Task.sleep(for: .milliseconds(min(2_000, 10 << min(failures, 8))))
            }
        }
        if var subscription = subscriptions[room], subscription.epoch == epoch {
            subscription.pumping = false
            subscriptions[room] = subscription
        }
    }

    /// Sends the changes after the change position to messages already delivered;
    /// keeps those of messages not delivered yet for their turn. Whether it moved.
    /// A frame the full queue refuses stops the batch there, the position with it.
    private func sendChanges(_ room: UUID, epoch: Int) async throws -> Bool {
        guard let current = subscriptions[room], current.deliveredChange < current.targetChange else { return false }
        let batch = try await hub.changes(room: room, after: current.deliveredChange, limit: min(200, outbox.capacity / 2))
        guard var latest = subscriptions[room], latest.epoch == epoch else { return false }
        var moved = false
        for message in batch where message.changeSeq > latest.deliveredChange {
            if message.seq <= latest.delivered {
                if !hides(message.sender.id), !outbox.push(Frames.change(message, links: hub.links)) { break }
            } else {
                latest.pending[message.seq] = message
                latest.target = max(latest.target, message.seq)
            }
            latest.deliveredChange = message.changeSeq
            moved = true
        }
        subscriptions[room] = latest
        return moved
    }

    /// Sends the messages after `delivered`, each in its newest known state, until
    /// one carries a change the position has not reached (changes go first). Whether it moved.
    private func sendMessages(_ room: UUID, epoch: Int) async throws -> Bool {
        guard let current = subscriptions[room], current.delivered < current.target else { return false }
        let batch = try await hub.messages(room: room, after: current.delivered, limit: min(200, outbox.capacity / 2))
        guard var latest = subscriptions[room], latest.epoch == epoch else { return false }
        var moved = false
        for read in batch where read.seq > latest.delivered {
            var message = read
            if let kept = latest.pending[read.seq], kept.changeSeq > read.changeSeq { message = kept }
            if message.changeSeq > latest.deliveredChange {
                latest.targetChange = max(latest.targetChange, message.changeSeq)
                break
            }
            if !hides(message.sender.id), !outbox.push(Frames.message(message, afterChange: latest.deliveredChange, links: hub.links)) { break }
            latest.pending[read.seq] = nil
            latest.delivered = message.seq
            moved = true
        }
        subscriptions[room] = latest
        return moved
    }

    private func post(_ room: UUID, _ draft: ChatService.Draft) async {
        do {
            // Past capacity the message is refused (an `overloaded` frame): the client sends it again.
            let sent = try await Database.$admission.withValue(WriteAdmission()) { try await chat.send(to: room, from: userID, draft) }
            var json = JSONWriter()
            json.objectStart()
            json.field("type", "sent")
            RoomAddress(id: room, eventID: sent.message.eventID).write(to: &json)
            json.field("client_id", sent.message.clientID)
            json.field("seq", Int(sent.message.seq))
            json.field("created", sent.created)
            json.objectEnd()
            send(ephemeral: String(decoding: json.bytes, as: UTF8.self))
        } catch {
            send(ephemeral: refusal(error, "chat message not stored", room: room, clientID: draft.clientID,
                                    otherwise: "The message was not stored; send it again with the same client_id."))
        }
    }

    private func typing(_ room: UUID) async {
        guard subscriptions[room] != nil else {
            send(ephemeral: Frames.error("not_subscribed", "Subscribe to the room first.", room: address(of: room)))
            return
        }
        let now = ContinuousClock.now
        if let last = lastTyping[room], now - last < Self.typingInterval { return }
        lastTyping[room] = now
        do {
            try await bus.broadcast([.typing(room: room, user: userID, name: userName)])
        } catch {
            logger.warning("typing not broadcast", metadata: ["room": "\(room)", "error": "\(error)"])
        }
    }

    private func read(_ room: UUID, seq: Int64?) async {
        guard let seq else {
            send(ephemeral: Frames.error("invalid_frame", "read needs a seq.", room: address(of: room)))
            return
        }
        do {
            // A marker that does not move forward is neither written nor announced.
            try await Database.$admission.withValue(WriteAdmission()) { try await chat.markRead(room, user: userID, seq: seq) }
        } catch {
            send(ephemeral: refusal(error, "read marker failed", room: room))
        }
    }

    /// The error frame answering a client's frame that failed: a domain refusal as
    /// it is (with its retry hint), a full write queue as `overloaded` (retry in a
    /// second), anything else logged with its context and answered `unavailable`.
    private func refusal(_ error: any Error, _ what: String, room: UUID, clientID: String? = nil,
                         otherwise message: String = "Try again shortly.") -> String {
        let refusal: DomainError
        switch error {
        case let error as DomainError: refusal = error
        case is DatabaseBusy: refusal = .overloaded
        default:
            logger.warning("\(what)", metadata: ["room": "\(room)", "error": "\(error)"])
            refusal = DomainError(.unavailable, code: "unavailable", message: message, retryAfter: 5)
        }
        return Frames.error(refusal.code, refusal.message, room: address(of: room), clientID: clientID, retryAfter: refusal.retryAfter)
    }

    // MARK: The chats list, live

    /// From now on, `room_updated` frames keep the client's chats list current.
    private func watchRooms() async {
        guard !watching else { return }
        watching = true
        await reloadRooms()
        send(ephemeral: Frames.simple("watching_rooms", room: nil))
    }

    /// Something happened in a room: if the user is in it, its entry is sent again
    /// shortly (several events in a short while make one frame). `reload` first
    /// reads which rooms the user is in (a conversation started or answered).
    func roomActivity(_ room: UUID, reload: Bool = false) async {
        guard watching else { return }
        if reload { await reloadRooms() }
        guard myRooms.contains(room) else { return }
        dirty.insert(room)
        guard !flushing else { return }
        flushing = true
        Task {
            try? await Task.sleep(for: Self.roomUpdateDelay)
            await self.flushRooms()
        }
    }

    private func flushRooms() async {
        let rooms = dirty
        dirty = []
        flushing = false
        guard !rooms.isEmpty, !outbox.isClosed else { return }
        do {
            let now = Date()
            for listing in try await hub.rooms.listings(Array(rooms), for: userID) {
                send(ephemeral: Frames.roomUpdated(listing, viewer: userID, links: hub.links, now: now))
            }
        } catch {
            logger.warning("could not read rooms for a live update", metadata: ["error": "\(error)"])
        }
    }

    /// Reads which rooms the user is in; rooms joined since are sent, rooms left are
    /// announced as `room_removed`.
    func reloadRooms() async {
        guard watching else { return }
        do {
            let now = try await hub.rooms.roomIDs(of: userID)
            let joined = now.subtracting(myRooms)
            let left = myRooms.subtracting(now)
            let first = myRooms.isEmpty
            myRooms = now
            hub.watch(self, rooms: now)
            for room in left.sorted(by: { $0.uuidString < $1.uuidString }) {
                send(ephemeral: Frames.simple("room_removed", room: RoomAddress(id: room, eventID: nil)))
            }
            if !first, !joined.isEmpty {
                for room in joined { await roomActivity(room) }
            }
        } catch {
            logger.warning("could not read the user's rooms", metadata: ["error": "\(error)"])
        }
    }

    /// After an attendance change: subscriptions to rooms the user left end. A
    /// check that fails ends the subscription too (the client subscribes again):
    /// a failed check never leaves access in place.
    func recheckMembership() async {
        // Those being set up read their membership again before they are set.
        for room in joining.keys { joining[room]?.recheck = true }
        for room in subscriptions.keys {
            do {
                if try await !chat.isMember(room, userID) { await unsubscribe(room, reason: "not_attending") }
            } catch {
                logger.warning("membership check failed; ending the subscription", metadata: ["room": "\(room)", "error": "\(error)"])
                await unsubscribe(room, reason: "unavailable")
            }
        }
    }

    func reloadBlocks() async {
        do {
            let updated = try await chat.blockedBy(userID)
            hidden.withLock { $0 = updated }
        } catch {
            logger.warning("could not reload blocks", metadata: ["error": "\(error)"])
        }
    }

    /// Cleans up after the socket closed.
    func closed() async {
        outbox.close()
        for room in subscriptions.keys {
            hub.leave(self, room)
            await recordPresence(room, present: false)
        }
        subscriptions = [:]
        following.withLock { $0 = [] }
    }
}

/// What one socket may queue and send.
struct SocketLimits: Sendable {
    /// Frames queued for the client at most.
    var queueFrames: Int
    /// Bytes queued for the client at most.
    var queueBytes: Int
    /// Frames per second the client may send, on average.
    var frameRate: Double
    /// Frames the client may send at once.
    var frameBurst: Int
}

/// A token bucket: `burst` frames at once, refilled at `rate` a second.
struct FrameBudget: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(burst)
        self.tokens = Double(burst)
    }

    /// Takes one frame's token; `false` when none is left.
    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        if let last {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            tokens = min(burst, tokens + seconds * rate)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

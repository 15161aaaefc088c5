import Foundation
import Logging
import Synchronization

/// One client's socket: its subscriptions and what it has been sent.
///
/// Each subscription remembers the last `seq` delivered. Every frame of a
/// room's history or live traffic comes from one loop per subscription that
/// reads "everything after what was delivered" from the room (or the database)
/// in `seq` order, so no message is skipped or sent twice, whatever arrives
/// while the history is read. The loop only pulls as fast as the socket takes
/// frames, so a slow reader costs a number, not a queue.
actor ChatConnection {
    nonisolated let userID: UUID
    /// The session (access token) the socket was opened with: it closes when the session ends.
    nonisolated let session: UUID
    nonisolated let userName: String
    nonisolated let outbox: Outbox
    /// People this user blocked: their messages, typing and read frames are not sent here.
    private nonisolated let hidden = Mutex<Set<UUID>>([])
    private var budget: FrameBudget
    private let hub: ChatHub
    private let chat: ChatService
    private let bus: Bus
    private let logger: Logger

    private struct Subscription {
        var delivered: Int64
        var target: Int64
        var pumping = false
    }

    private var subscriptions: [UUID: Subscription] = [:]
    private var lastTyping: [UUID: ContinuousClock.Instant] = [:]
    static let typingInterval: Duration = .seconds(2)
    static let maxSubscriptions = 100

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

    /// Closes the socket with a code and reason (after what is already queued).
    nonisolated func end(_ ending: Outbox.Ending) {
        outbox.close(ending: ending)
    }

    struct ClientFrame: Decodable {
        var type: String
        var eventId: String?
        var afterSeq: Int64?
        var body: String?
        var clientId: String?
        var attachmentId: String?
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
        let eventID = frame.eventId.flatMap(UUID.init(uuidString:))
        guard let eventID else {
            send(ephemeral: Frames.error("invalid_frame", "event_id must be an event id."))
            return
        }
        switch frame.type {
        case "subscribe": await subscribe(eventID, after: max(0, frame.afterSeq ?? 0))
        case "unsubscribe": await unsubscribe(eventID, reason: "requested")
        case "message": await post(eventID, body: frame.body, clientID: frame.clientId, attachmentID: frame.attachmentId)
        case "typing": await typing(eventID)
        case "read": await read(eventID, seq: frame.seq)
        default: send(ephemeral: Frames.error("invalid_frame", "Unknown frame type.", event: eventID))
        }
    }

    private func subscribe(_ event: UUID, after: Int64) async {
        do {
            try await chat.requireMember(event, userID)
            guard subscriptions[event] != nil || subscriptions.count < Self.maxSubscriptions else {
                send(ephemeral: Frames.error("too_many_subscriptions", "At most \(Self.maxSubscriptions) chats at once.", event: event))
                return
            }
            let blocked = try await chat.blockedBy(userID)
            hidden.withLock { $0 = blocked }
            let latest = try await chat.events.event(event)?.lastMessageSeq ?? 0
            hub.join(self, event)
            subscriptions[event] = Subscription(delivered: after, target: max(latest, after))
            await recordPresence(event, present: true)
            send(ephemeral: Frames.simple("subscribed", event: event, numbers: [("last_seq", Int(latest))]))
            pump(event)
        } catch let error as DomainError {
            send(ephemeral: Frames.error(error.code, error.message, event: event))
        } catch {
            logger.warning("subscribe failed", metadata: ["event": "\(event)", "error": "\(error)"])
            send(ephemeral: Frames.error("unavailable", "Try again shortly.", event: event))
        }
    }

    private func unsubscribe(_ event: UUID, reason: String) async {
        guard subscriptions.removeValue(forKey: event) != nil else { return }
        hub.leave(self, event)
        await recordPresence(event, present: false)
        send(ephemeral: Frames.simple("unsubscribed", event: event, fields: [("reason", reason)]))
    }

    /// Presence decides who gets a push for a message: a failure is logged (the
    /// row expires with the instance's heartbeat), not hidden.
    private func recordPresence(_ event: UUID, present: Bool) async {
        do {
            if present {
                try await chat.present(userID, in: event, instance: bus.instanceID)
            } else {
                try await chat.absent(userID, from: event, instance: bus.instanceID)
            }
        } catch {
            logger.warning("could not record chat presence", metadata: ["event": "\(event)", "present": "\(present)", "error": "\(error)"])
        }
    }

    /// A message with `seq` exists in `event`: make sure the client gets up to it.
    func offer(event: UUID, seq: Int64) {
        guard var subscription = subscriptions[event], seq > subscription.target else { return }
        subscription.target = seq
        subscriptions[event] = subscription
        pump(event)
    }

    private func pump(_ event: UUID) {
        guard var subscription = subscriptions[event], !subscription.pumping, subscription.delivered < subscription.target else { return }
        subscription.pumping = true
        subscriptions[event] = subscription
        Task { await self.catchUp(event) }
    }

    /// Sends everything after `delivered`, in order, as fast as the socket takes it.
    private func catchUp(_ event: UUID) async {
        var failures = 0
        while let subscription = subscriptions[event], subscription.delivered < subscription.target, !outbox.isClosed {
            await outbox.waitForRoom()
            guard let current = subscriptions[event] else { return }
            let batch: [ChatMessage]
            do {
                batch = try await hub.messages(event: event, after: current.delivered, limit: min(200, outbox.capacity / 2))
            } catch {
                // The database is away: try again, more slowly each time, while the socket lives.
                failures += 1
                logger.debug("catch-up failed", metadata: ["event": "\(event)", "error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(failures, 6))))
                continue
            }
            guard var latest = subscriptions[event] else { return }
            guard !batch.isEmpty else {
                // The target is committed (offers follow commits, a subscription's target is
                // read from the database), so this read was early: a load shared with a
                // caller that started before the commit, or a snapshot from before it. Look
                // again shortly, more slowly each time, while the socket lives; stopping
                // here would leave the client short until another message happened to come.
                failures += 1
                try? await Task.sleep(for: .milliseconds(min(2_000, 10 << min(failures, 8))))
                continue
            }
            failures = 0
            for message in batch where message.seq > latest.delivered {
                if !hides(message.sender.id) { outbox.push(Frames.message(message, links: hub.links)) }
                latest.delivered = message.seq
            }
            subscriptions[event] = latest
        }
        if var subscription = subscriptions[event] {
            subscription.pumping = false
            subscriptions[event] = subscription
        }
    }

    private func post(_ event: UUID, body: String?, clientID: String?, attachmentID: String?) async {
        do {
            let sent = try await chat.send(to: event, from: userID, body: body, clientID: clientID, attachmentID: attachmentID)
            var json = JSONWriter()
            json.objectStart()
            json.field("type", "sent")
            json.field("event_id", event)
            json.field("client_id", sent.message.clientID)
            json.field("seq", Int(sent.message.seq))
            json.field("created", sent.created)
            json.objectEnd()
            send(ephemeral: String(decoding: json.bytes, as: UTF8.self))
        } catch let error as DomainError {
            send(ephemeral: Frames.error(error.code, error.message, event: event, clientID: clientID))
        } catch {
            logger.warning("chat message not stored", metadata: ["event": "\(event)", "error": "\(error)"])
            send(ephemeral: Frames.error("unavailable", "The message was not stored; send it again with the same client_id.", event: event, clientID: clientID))
        }
    }

    private func typing(_ event: UUID) async {
        guard subscriptions[event] != nil else {
            send(ephemeral: Frames.error("not_subscribed", "Subscribe to the event first.", event: event))
            return
        }
        let now = ContinuousClock.now
        if let last = lastTyping[event], now - last < Self.typingInterval { return }
        lastTyping[event] = now
        do {
            try await bus.broadcast([.typing(event: event, user: userID, name: userName)])
        } catch {
            logger.warning("typing not broadcast", metadata: ["event": "\(event)", "error": "\(error)"])
        }
    }

    private func read(_ event: UUID, seq: Int64?) async {
        guard let seq else {
            send(ephemeral: Frames.error("invalid_frame", "read needs a seq.", event: event))
            return
        }
        do {
            // A marker that does not move forward is neither written nor announced.
            guard try await chat.markRead(event, user: userID, seq: seq) else { return }
            try await bus.broadcast([.read(event: event, user: userID, seq: seq)])
        } catch let error as DomainError {
            send(ephemeral: Frames.error(error.code, error.message, event: event))
        } catch {
            logger.warning("read marker failed", metadata: ["event": "\(event)", "error": "\(error)"])
            send(ephemeral: Frames.error("unavailable", "Try again shortly.", event: event))
        }
    }

    /// After an attendance change: subscriptions to events the user left end. A
    /// check that fails ends the subscription too (the client subscribes again):
    /// a failed check never leaves access in place.
    func recheckMembership() async {
        for event in subscriptions.keys {
            do {
                if try await !chat.isMember(event, userID) { await unsubscribe(event, reason: "not_attending") }
            } catch {
                logger.warning("membership check failed; ending the subscription", metadata: ["event": "\(event)", "error": "\(error)"])
                await unsubscribe(event, reason: "unavailable")
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
        for event in subscriptions.keys {
            hub.leave(self, event)
            await recordPresence(event, present: false)
        }
        subscriptions = [:]
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

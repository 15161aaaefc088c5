import Foundation
import Logging
import Synchronization

/// One client's socket: the I/O shell around its ``ChatSession`` (the protocol's
/// state, with no I/O) and ``LiveRoomsList``. It reads frames, asks the session what
/// to do, and does it: reads rooms through the hub, sends frames through its
/// ``FrameQueue`` (a catch-up reads only as fast as the socket takes frames, so a
/// slow reader costs a position, not a backlog), and joins and leaves rooms' traffic.
actor ChatConnection {
    nonisolated let userID: UUID
    /// The language its error frames are written in (the upgrade's `Accept-Language`).
    nonisolated let language: Language
    /// The session (access token) the socket was opened with: it closes when the session ends.
    nonisolated let session: UUID
    nonisolated let userName: String
    nonisolated let queue: FrameQueue
    /// People this user blocked: their messages, typing and read frames are not sent here.
    nonisolated let hidden = Mutex<Set<UUID>>([])
    /// The event of each subscribed event room (frames about it carry `event_id`).
    private nonisolated let events = Mutex<[UUID: UUID]>([:])
    /// The rooms with a subscription set up: typing and read frames go only to these
    /// (a socket joins a room's traffic before its membership is checked).
    private nonisolated let following = Mutex<Set<UUID>>([])
    private var budget: FrameBudget
    let hub: ChatHub
    let chat: ChatService
    private let feed: ChangeFeed
    let logger: Logger

    /// The protocol's state: subscriptions, what each was sent, those being set up.
    var protocolState = ChatSession()
    private var lastTyping: [UUID: ContinuousClock.Instant] = [:]
    static let typingInterval: Duration = .seconds(2)
    /// What this socket's subscriptions were last sent of each poll, but its votes: a
    /// subscription starts with none, so a client is sent each poll whole before its votes
    /// alone. Past ``pollsKept`` they are all let go (the next change of each goes whole).
    private var pollsSent: [PollKey: ChatMessage] = [:]
    /// The rooms whose subscription asked for `poll_votes`.
    private var votesAlone: Set<UUID> = []
    static let pollsKept = 256
    struct PollKey: Hashable {
        let room: UUID
        let seq: Int64
    }
    /// The chats list kept live (`watch_rooms`).
    var roomsList = LiveRoomsList()
    static let roomUpdateDelay: Duration = .milliseconds(200)

    init(
        identity: Identity, userName: String, language: Language, hub: ChatHub, chat: ChatService, feed: ChangeFeed, limits: SocketLimits,
        logger: Logger
    ) {
        self.userID = identity.userID
        self.language = language
        self.session = identity.tokenID
        self.userName = userName
        self.hub = hub
        self.chat = chat
        self.feed = feed
        self.queue = FrameQueue(capacity: limits.queueFrames, byteCapacity: limits.queueBytes)
        self.budget = FrameBudget(rate: limits.frameRate, burst: limits.frameBurst)
        var logger = logger
        logger[metadataKey: "user"] = "\(identity.userID)"
        self.logger = logger
    }

    /// Queues a frame that may be dropped when the client is behind.
    nonisolated func send(ephemeral frame: String) {
        queue.push(frame)
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
    nonisolated func end(_ ending: FrameQueue.Ending) {
        queue.close(ending: ending)
    }

    struct ClientFrame: Decodable {
        var type: String
        var roomId: String?
        var eventId: String?
        var afterSeq: Int64?
        var afterChange: Int64?
        /// The client takes `poll_votes` frames (older clients get the whole message).
        var pollVotes: Bool?
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
        guard !queue.isClosed else { return }
        guard budget.take(at: .now) else {
            send(ephemeral: errorFrame("rate_limited", Sentence("Too many frames; this socket is closed.")))
            end(.tooManyFrames)
            logger.info("closing a socket that sent too many frames")
            return
        }
        guard text.utf8.count <= 16_384, (try? RequestBody.checkDepth(Array(text.utf8))) != nil,
            let frame = try? RequestBody.decoder.decode(ClientFrame.self, from: Data(text.utf8))
        else {
            send(ephemeral: errorFrame("invalid_frame", Sentence("Frames are JSON objects with a type.")))
            return
        }
        if frame.type == "watch_rooms" {
            await watchRooms()
            return
        }
        // A room is named by `room_id`; an event's room also by `event_id` (the same id).
        guard let room = (frame.roomId ?? frame.eventId).flatMap(UUID.init(text:)) else {
            send(ephemeral: errorFrame("invalid_frame", Sentence("room_id must be a room id (an event's id for its chat).")))
            return
        }
        switch frame.type {
        case "subscribe":
            await subscribe(
                room, after: max(0, frame.afterSeq ?? 0), afterChange: frame.afterChange.map { max(0, $0) },
                pollVotes: frame.pollVotes ?? false)
        case "unsubscribe": await unsubscribe(room, reason: "requested")
        case "message":
            await post(
                room,
                ChatService.Draft(
                    body: frame.body, clientID: frame.clientId, attachmentID: frame.attachmentId,
                    replyTo: frame.replyTo, mentions: frame.mentions))
        case "typing": await typing(room)
        case "read": await read(room, seq: frame.seq)
        default: send(ephemeral: errorFrame("invalid_frame", Sentence("Unknown frame type."), room: address(of: room)))
        }
    }

    private func subscribe(_ id: UUID, after: Int64, afterChange: Int64?, pollVotes: Bool) async {
        // Live traffic first, then the room: nothing stored in between is missed.
        hub.join(self, id)
        protocolState.beginSubscribe(id)
        defer { if protocolState.endSubscribe(id) { hub.leave(self, id) } }
        do {
            let room = try await chat.requireMemberSubscribing(id, userID)
            guard protocolState.admits(id) else {
                send(
                    ephemeral: errorFrame(
                        "too_many_subscriptions", Sentence("At most \(ChatSession.maxSubscriptions) chats at once."),
                        room: RoomAddress(id: id, eventID: room.eventID)))
                return
            }
            events.withLock { $0[id] = room.eventID }
            pollsSent = pollsSent.filter { $0.key.room != id }
            if pollVotes { votesAlone.insert(id) } else { votesAlone.remove(id) }
            let blocked = try await chat.blockedBySubscribing(userID)
            hidden.withLock { $0 = blocked }
            // The member may have left meanwhile (the read above came first): no subscription outlives the attendance.
            while protocolState.takeRecheck(id) { _ = try await chat.requireMemberSubscribing(id, userID) }
            // What the hub remembers of the room may be older than the changes counted here.
            hub.noteChange(id, upTo: room.lastChangeSeq)
            let pump = protocolState.subscribed(
                id, after: after, afterChange: afterChange, lastSeq: room.lastMessageSeq, lastChange: room.lastChangeSeq)
            following.withLock { _ = $0.insert(id) }
            await recordPresence(id, present: true)
            send(
                ephemeral: Frames.simple(
                    "subscribed", room: address(of: id),
                    numbers: [("last_seq", Int(room.lastMessageSeq)), ("last_change_seq", Int(room.lastChangeSeq))]))
            if pump { startCatchUp(id) }
        } catch {
            send(ephemeral: refusal(error, "subscribe failed", room: id))
        }
    }

    func unsubscribe(_ room: UUID, reason: String) async {
        let (ended, leave) = protocolState.unsubscribe(room)
        guard ended else { return }
        following.withLock { _ = $0.remove(room) }
        if leave { hub.leave(self, room) }
        await recordPresence(room, present: false)
        send(ephemeral: Frames.simple("unsubscribed", room: address(of: room), fields: [("reason", reason)]))
    }

    /// Presence decides who gets a push for a message: a failure is logged (the
    /// row expires with the instance's heartbeat), not hidden.
    /// Never refused past capacity: a member counted absent would be sent pushes.
    private func recordPresence(_ room: UUID, present: Bool) async {
        do {
            try await Admission.owedWork {
                if present {
                    try await chat.present(userID, in: room, instance: feed.instanceID)
                } else {
                    try await chat.absent(userID, from: room, instance: feed.instanceID)
                }
            }
        } catch {
            logger.warning("could not record chat presence", metadata: ["room": "\(room)", "present": "\(present)", "error": "\(error)"])
        }
    }

    /// A message with `seq` exists in `room`: make sure the client gets up to it.
    func offer(room: UUID, seq: Int64) {
        if protocolState.offer(room, seq: seq) { startCatchUp(room) }
    }

    /// A change numbered `change` happened in `room`: make sure the client gets up to it.
    func offer(room: UUID, change: Int64) {
        if protocolState.offer(room, change: change) { startCatchUp(room) }
    }

    private func startCatchUp(_ room: UUID) {
        guard let epoch = protocolState.epoch(of: room) else { return }
        Task { await self.catchUp(room, epoch: epoch) }
    }

    /// Sends everything after what was delivered, in order, as fast as the socket takes it.
    private func catchUp(_ room: UUID, epoch: Int) async {
        var failures = 0
        while protocolState.isBehind(room, epoch: epoch), !queue.isClosed {
            // Each call below that suspends hops off this actor and back: only when it must.
            if !queue.hasRoom { await queue.waitForRoom() }
            guard protocolState.isCurrent(room, epoch: epoch) else { return }
            let progressed: Bool
            do {
                var changed = false
                var sent = false
                if let after = protocolState.changesWanted(room, epoch: epoch) {
                    let batch = try await hub.changes(room: room, after: after, limit: min(200, queue.capacity / 2))
                    changed = protocolState.changesRead(room, epoch: epoch, batch, send: push)
                }
                if let after = protocolState.messagesWanted(room, epoch: epoch) {
                    let limit = min(200, queue.capacity / 2)
                    let batch: [ChatMessage]
                    if let recent = hub.recentMessages(room: room, after: after, limit: limit) {
                        batch = recent
                    } else {
                        batch = try await hub.messages(room: room, after: after, limit: limit)
                    }
                    sent = protocolState.messagesRead(room, epoch: epoch, batch, send: push)
                }
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
                // The kept reads of the room's changes are older than what is wanted: read again.
                hub.forgetChangeReads(room)
                try? await Task.sleep(for: .milliseconds(min(2_000, 10 << min(failures, 8))))
            }
        }
        protocolState.catchUpEnded(room, epoch: epoch)
    }

    /// Queues a frame of a room's traffic: whether it went (a message from someone
    /// this user blocked goes nowhere, and counts as gone).
    private func push(_ frame: ChatSession.Outgoing) -> Bool {
        let hiding = hidden.withLock { $0 }
        switch frame {
        case .message(let message, let afterChange):
            guard let seen = Blocks.view(message, hiding: hiding, viewer: userID) else { return true }
            guard queue.push(hub.messageFrame(seen, afterChange: afterChange, sharedView: hiding.isEmpty && seen.poll == nil)) else {
                return false
            }
            if seen.poll != nil { notePollSent(seen, shape: ChatHub.pollShape(seen)) }
            return true
        case .change(let message) where hiding.isEmpty && message.poll != nil:
            // A vote reaches every socket of the room: its frames are encoded once for them all.
            guard let frame = hub.pollFrame(message) else {
                guard let seen = Blocks.view(message, hiding: [], viewer: userID) else { return true }
                return queue.push(Frames.change(seen, links: hub.links))
            }
            // Who the poll is hidden from is read with the message (a block since the frame was made counts).
            if message.poll?.hiddenFrom.contains(userID) == true { return true }
            if votesAlone.contains(message.roomID), pollsSent[PollKey(room: message.roomID, seq: message.seq)] == frame.shape {
                return queue.push(frame.votes(for: userID))
            }
            guard queue.push(frame.whole(for: userID)) else { return false }
            notePollSent(message, shape: frame.shape)
            return true
        case .change(let message) where message.poll != nil:
            guard let seen = Blocks.view(message, hiding: hiding, viewer: userID) else { return true }
            let shape = ChatHub.pollShape(seen)
            if votesAlone.contains(message.roomID), pollsSent[PollKey(room: message.roomID, seq: message.seq)] == shape {
                return queue.push(Frames.pollVotes(seen))
            }
            guard queue.push(Frames.change(seen, links: hub.links)) else { return false }
            notePollSent(seen, shape: shape)
            return true
        case .change(let message):
            guard let seen = Blocks.view(message, hiding: hiding, viewer: userID) else { return true }
            return queue.push(Frames.change(seen, links: hub.links))
        }
    }

    func forgetPollsSent() { pollsSent = [:] }

    /// The client holds this shape of the poll (``ChatHub/pollShape(_:)``): while only its
    /// votes change, it is sent them alone (`poll_votes`). Kept per subscription.
    private func notePollSent(_ message: ChatMessage, shape: ChatMessage) {
        if pollsSent.count >= Self.pollsKept { pollsSent.removeAll(keepingCapacity: true) }
        pollsSent[PollKey(room: message.roomID, seq: message.seq)] = shape
    }

    private func post(_ room: UUID, _ draft: ChatService.Draft) async {
        do {
            // Past capacity the message is refused (an `overloaded` frame): the client sends it again.
            let sent = try await Admission.clientWork(of: userID) { try await chat.send(to: room, from: userID, draft) }
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
            send(
                ephemeral: refusal(
                    error, "chat message not stored", room: room, clientID: draft.clientID,
                    otherwise: Sentence("The message was not stored; send it again with the same client_id.")))
        }
    }

    private func typing(_ room: UUID) async {
        guard protocolState.subscriptions[room] != nil else {
            send(ephemeral: errorFrame("not_subscribed", Sentence("Subscribe to the room first."), room: address(of: room)))
            return
        }
        let now = ContinuousClock.now
        if let last = lastTyping[room], now - last < Self.typingInterval { return }
        lastTyping[room] = now
        do {
            try await feed.publish([.typing(room: room, user: userID, name: userName)])
        } catch {
            logger.warning("typing not broadcast", metadata: ["room": "\(room)", "error": "\(error)"])
        }
    }

    private func read(_ room: UUID, seq: Int64?) async {
        guard let seq else {
            send(ephemeral: errorFrame("invalid_frame", Sentence("read needs a seq."), room: address(of: room)))
            return
        }
        do {
            // A marker that does not move forward is neither written nor announced.
            try await Admission.clientWork(of: userID) { try await chat.markRead(room, user: userID, seq: seq) }
        } catch {
            send(ephemeral: refusal(error, "read marker failed", room: room))
        }
    }

    /// Cleans up after the socket closed.
    func closed() async {
        queue.close()
        following.withLock { $0 = [] }
        for room in protocolState.close() {
            hub.leave(self, room)
            await recordPresence(room, present: false)
        }
    }
}

import Foundation

/// The chat protocol of one socket, as a value with no I/O: which rooms are
/// subscribed and what each has been sent, the subscriptions being set up, and the
/// chats list kept live. ``ChatConnection`` is the I/O shell around it: it hands
/// the session what happened (a client frame's outcome, an offer from the feed, a
/// read that finished, the frame queue taking or refusing a frame) and does what the
/// session answers (start a catch-up, send frames, leave a room's traffic).
///
/// Each subscription remembers the last `seq` delivered and the last change number
/// (edit, deletion, reaction) accounted for. Every frame of a room's history or live
/// traffic comes from one catch-up per subscription that reads "everything after
/// what was delivered" in order, so no message or change is skipped or sent twice,
/// whatever arrives while the history is read.
///
/// Exactly once, across reconnections: a message is sent in its newest known state,
/// and only once the change position covers that state (`after_change` in the frame
/// is never below the message's `change_seq`); a change is sent only for messages
/// already delivered. So a client that resumes with the `after_change` of the last
/// frame it got is sent each later change once: the rows changed after it.
struct ChatSession: Sendable {
    struct Subscription: Sendable, Equatable {
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

    /// A subscription being set up: the socket joins the room's live traffic before
    /// the room is read, and what is offered meanwhile is counted into the targets
    /// when the subscription is set (a message stored between reading the room and
    /// joining would otherwise reach the socket only with the next one).
    ///
    /// `recheck`: an attendance change was handled while the subscription was being
    /// set up, after its membership was read; it is read again before it is set.
    struct Joining: Sendable, Equatable {
        var seq: Int64 = 0
        var change: Int64 = 0
        var recheck = false
    }

    /// A frame of a room's history or live traffic.
    enum Outgoing: Sendable, Equatable {
        /// A message, and the change position to resume from once it is received.
        case message(ChatMessage, afterChange: Int64)
        /// A message the client holds changed (it comes whole, as it is now).
        case change(ChatMessage)
    }

    static let maxSubscriptions = 100

    private(set) var subscriptions: [UUID: Subscription] = [:]
    private(set) var joining: [UUID: Joining] = [:]
    private var epochs = 0

    // MARK: Subscribing

    /// A subscribe frame for `room` begins: the socket has joined the room's traffic.
    mutating func beginSubscribe(_ room: UUID) {
        joining[room] = Joining()
    }

    /// Whether one more room may be subscribed.
    func admits(_ room: UUID) -> Bool {
        subscriptions[room] != nil || subscriptions.count < Self.maxSubscriptions
    }

    /// Whether the membership must be read again before the subscription is set
    /// (the attendance changed since it was read); clears the mark.
    mutating func takeRecheck(_ room: UUID) -> Bool {
        guard joining[room]?.recheck == true else { return false }
        joining[room]?.recheck = false
        return true
    }

    /// The room as read (`lastSeq`, `lastChange`) and the client's resume point: the
    /// subscription is set. Whether a catch-up must start (then with ``epoch(of:)``).
    mutating func subscribed(_ room: UUID, after: Int64, afterChange: Int64?, lastSeq: Int64, lastChange: Int64) -> Bool {
        // Without `after_change`, a client starting from the beginning is sent every
        // message as it is now (nothing to replay); one resuming is sent every change
        // of what it holds.
        let fromChange = min(afterChange ?? (after == 0 ? lastChange : 0), lastChange)
        epochs += 1
        let offered = joining[room] ?? Joining()
        subscriptions[room] = Subscription(
            delivered: after, target: max(lastSeq, after, offered.seq),
            deliveredChange: fromChange, targetChange: max(lastChange, offered.change), epoch: epochs)
        return startPump(room)
    }

    /// The subscribe frame is done (set up or refused): whether the socket should
    /// leave the room's traffic (no subscription came of it).
    mutating func endSubscribe(_ room: UUID) -> Bool {
        joining[room] = nil
        return subscriptions[room] == nil
    }

    /// Ends a subscription: whether there was one, and whether the socket should
    /// leave the room's traffic (not when a subscription is being set up again).
    mutating func unsubscribe(_ room: UUID) -> (ended: Bool, leave: Bool) {
        guard subscriptions.removeValue(forKey: room) != nil else { return (false, false) }
        return (true, joining[room] == nil)
    }

    /// The socket closed: the rooms it was subscribed to.
    mutating func close() -> [UUID] {
        defer { subscriptions = [:] }
        return Array(subscriptions.keys)
    }

    /// An attendance changed: those being set up read their membership again before
    /// they are set; the rooms subscribed are returned to be checked.
    mutating func attendanceChanged() -> [UUID] {
        for room in joining.keys { joining[room]?.recheck = true }
        return Array(subscriptions.keys)
    }

    // MARK: Offers

    /// A message with `seq` exists in `room`: whether a catch-up must start.
    mutating func offer(_ room: UUID, seq: Int64) -> Bool {
        if let joined = joining[room]?.seq { joining[room]?.seq = max(joined, seq) }
        guard var subscription = subscriptions[room], seq > subscription.target else { return false }
        subscription.target = seq
        subscriptions[room] = subscription
        return startPump(room)
    }

    /// A change numbered `change` happened in `room`: whether a catch-up must start.
    mutating func offer(_ room: UUID, change: Int64) -> Bool {
        if let joined = joining[room]?.change { joining[room]?.change = max(joined, change) }
        guard var subscription = subscriptions[room], change > subscription.targetChange else { return false }
        subscription.targetChange = change
        subscriptions[room] = subscription
        return startPump(room)
    }

    private mutating func startPump(_ room: UUID) -> Bool {
        guard var subscription = subscriptions[room], !subscription.pumping, !subscription.caughtUp else { return false }
        subscription.pumping = true
        subscriptions[room] = subscription
        return true
    }

    /// The epoch of the room's subscription (a catch-up carries it).
    func epoch(of room: UUID) -> Int? { subscriptions[room]?.epoch }

    // MARK: Catching up

    /// Whether the catch-up of this epoch has more to send.
    func isBehind(_ room: UUID, epoch: Int) -> Bool {
        guard let subscription = subscriptions[room], subscription.epoch == epoch else { return false }
        return !subscription.caughtUp
    }

    /// Whether this epoch's subscription is still the room's.
    func isCurrent(_ room: UUID, epoch: Int) -> Bool { subscriptions[room]?.epoch == epoch }

    /// The catch-up of this epoch stopped (caught up, or the socket closed).
    mutating func catchUpEnded(_ room: UUID, epoch: Int) {
        if subscriptions[room]?.epoch == epoch { subscriptions[room]?.pumping = false }
    }

    /// The change position to read the room's changes after, when changes are due.
    func changesWanted(_ room: UUID, epoch: Int) -> Int64? {
        guard let s = subscriptions[room], s.epoch == epoch, s.deliveredChange < s.targetChange else { return nil }
        return s.deliveredChange
    }

    /// The seq to read the room's messages after, when messages are due.
    func messagesWanted(_ room: UUID, epoch: Int) -> Int64? {
        guard let s = subscriptions[room], s.epoch == epoch, s.delivered < s.target else { return nil }
        return s.delivered
    }

    /// The changes read after the position: those of messages delivered are sent,
    /// those of messages not delivered yet kept for their turn. `send` says whether a
    /// frame went out (a full queue refuses it: the batch stops there, the position
    /// with it). Whether the position moved.
    mutating func changesRead(_ room: UUID, epoch: Int, _ batch: [ChatMessage], send: (Outgoing) -> Bool) -> Bool {
        guard var latest = subscriptions[room], latest.epoch == epoch else { return false }
        var moved = false
        for message in batch where message.changeSeq > latest.deliveredChange {
            if message.seq <= latest.delivered {
                if !send(.change(message)) { break }
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

    /// The messages read after `delivered`: each is sent in its newest known state,
    /// until one carries a change the position has not reached (changes go first).
    /// Whether the position moved.
    mutating func messagesRead(_ room: UUID, epoch: Int, _ batch: [ChatMessage], send: (Outgoing) -> Bool) -> Bool {
        guard var latest = subscriptions[room], latest.epoch == epoch else { return false }
        var moved = false
        for read in batch where read.seq > latest.delivered {
            var message = read
            if let kept = latest.pending[read.seq], kept.changeSeq > read.changeSeq { message = kept }
            if message.changeSeq > latest.deliveredChange {
                latest.targetChange = max(latest.targetChange, message.changeSeq)
                break
            }
            if !send(.message(message, afterChange: latest.deliveredChange)) { break }
            latest.pending[read.seq] = nil
            latest.delivered = message.seq
            moved = true
        }
        subscriptions[room] = latest
        return moved
    }
}

/// The chats list kept live (`watch_rooms`), as a value: the rooms the user is in,
/// and those with news to send.
struct LiveRoomsList: Sendable {
    private(set) var watching = false
    private(set) var rooms: Set<UUID> = []
    private var dirty: Set<UUID> = []
    private var flushing = false

    /// `watch_rooms`: whether this starts watching (a second one changes nothing).
    mutating func watch() -> Bool {
        guard !watching else { return false }
        watching = true
        return true
    }

    /// The rooms the user is in, as just read: those left (to announce as
    /// `room_removed`), and those joined since the last read (none on the first).
    mutating func roomsRead(_ now: Set<UUID>) -> (left: [UUID], joined: Set<UUID>) {
        let first = rooms.isEmpty
        let left = rooms.subtracting(now).sorted { $0.uuidString < $1.uuidString }
        let joined = first ? [] : now.subtracting(rooms)
        rooms = now
        return (left, joined)
    }

    /// Something happened in a room: whether a flush must be scheduled (several
    /// events in a short while make one frame per room).
    mutating func activity(_ room: UUID) -> Bool {
        guard watching, rooms.contains(room) else { return false }
        dirty.insert(room)
        guard !flushing else { return false }
        flushing = true
        return true
    }

    /// The flush is due: the rooms whose entries are sent again.
    mutating func flush() -> Set<UUID> {
        defer {
            dirty = []
            flushing = false
        }
        return dirty
    }
}

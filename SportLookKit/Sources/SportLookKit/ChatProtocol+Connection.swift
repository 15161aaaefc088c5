import Foundation

/// The connection's life as the rules see it, and what each frame from the server means.
extension ChatProtocol {
    // MARK: The connection

    /// A try to connect begins.
    mutating func connecting(now: Instant) {
        healthy = false
        opened = now
        setState(.connecting)
    }

    /// The socket opened: every followed room is subscribed from where it stands, held
    /// read markers and the outbox go out.
    mutating func connected(now: Instant) {
        connection += 1
        bucket = TokenBucket(rate: pacing.framesPerSecond, burst: Double(pacing.burst), now: now)
        setState(.online)
        for id in rooms.keys.sorted() where rooms[id]?.active == true {
            rooms[id]?.staleUntilUnsubscribed = false
            rooms[id]?.resubscribe = nil
            subscribe(id, now: now)
            if let read = rooms[id]?.pendingRead {
                transmit(.read(room: id, seq: read), now: now)
                rooms[id]?.pendingRead = nil
            }
        }
        if watching { transmit(.watchRooms, now: now) }
        tick(now: now)
    }

    /// The socket closed, or the try failed: the pause before the next try, in seconds.
    /// `jitter` (0...1) picks it between half of the pause's cap and all of it.
    mutating func lost(now: Instant, jitter: Double) -> Double {
        // A connection that answered, or stayed up a while, starts the pauses over; one
        // closed at once (refused, a frame limit) makes them grow.
        if healthy || opened.map({ now - $0 > .seconds(30) }) == true { attempt = 0 }
        let cap = min(backoff.longest, backoff.first * pow(2, Double(min(attempt, 30))))
        let delay = cap / 2 + cap / 2 * min(1, max(0, jitter))
        attempt += 1
        for id in rooms.keys { rooms[id]?.awaitingSubscribed = false }
        setState(.offline(retryIn: delay))
        return delay
    }

    /// The session stops: every stream ends and the outbox empties.
    mutating func stop() {
        for room in rooms.values { effects.append(.finish(stream: room.stream)) }
        rooms = [:]
        outbox = []
        watching = false
        setState(.stopped)
    }

    private mutating func setState(_ new: ChatSession.State) {
        guard new != state else { return }
        state = new
        effects.append(.state(new))
    }

    // MARK: Frames in

    /// A frame arrived on the current socket.
    mutating func received(_ text: String, now: Instant) {
        received(SocketEvent(decoding: text), now: now)
    }

    mutating func received(_ event: SocketEvent, now: Instant) {
        switch event {
        case .subscribed(let id):
            healthy = true
            rooms[id]?.awaitingSubscribed = false
        case .message(let message, let afterChange):
            guard var room = live(message.room) else { return }
            if message.seq > room.lastSeq {
                room.lastSeq = message.seq
                effects.append(.deliver(.message(message), stream: room.stream))
            }
            room.lastChange = max(room.lastChange, afterChange ?? 0)
            rooms[message.room] = room
        case .edited(let message, let afterChange):
            changed(message, afterChange: afterChange, as: .edited(message))
        case .deleted(let message, let afterChange):
            changed(message, afterChange: afterChange, as: .deleted(message))
        case .pollVotes(let id, let votes):
            guard var room = live(id), votes.changeSeq > room.lastChange, votes.seq <= room.lastSeq else { return }
            room.lastChange = votes.changeSeq
            effects.append(.deliver(.pollVotes(votes), stream: room.stream))
            rooms[id] = room
        case .sent(let clientID, let seq):
            healthy = true
            guard let index = outbox.firstIndex(where: { $0.clientID == clientID }) else { return }
            let item = outbox.remove(at: index)
            if let seq, let stream = rooms[item.room]?.stream {
                effects.append(.deliver(.sent(clientID: clientID, seq: seq), stream: stream))
            }
            flush(now: now)
        case .error(let error):
            refused(error, now: now)
        case .unsubscribed(let id, let reason):
            guard rooms[id]?.active == true else { return }
            if reason == "requested" {
                rooms[id]?.staleUntilUnsubscribed = false
            } else if reason == "unavailable" {
                // The server could not check the membership just now: asked again after a pause.
                rooms[id]?.resubscribe = (now + .seconds(Self.unavailablePause), connection)
            } else {
                end(id, reason: reason)
            }
        case .typing(let id, let user, let name):
            if let stream = rooms[id]?.stream { effects.append(.deliver(.typing(user: user, name: name), stream: stream)) }
        case .read(let id, let user, let seq):
            if let stream = rooms[id]?.stream { effects.append(.deliver(.read(user: user, seq: seq), stream: stream)) }
        case .roomUpdated(let entry):
            if watching { effects.append(.roomList(.updated(entry))) }
        case .roomRemoved(let id):
            if watching { effects.append(.roomList(.removed(id))) }
        case .unreadable(let id, _):
            // Skipping it would leave a gap the app never learns of: the stream ends instead.
            if rooms[id]?.active == true { end(id, reason: "unreadable_message") }
        case .watchingRooms, .notification, .database, .unknown:
            break
        }
    }

    /// A message delivered before changed (an edit, a reaction, a deletion): told once, in change order.
    private mutating func changed(_ message: Message, afterChange: Int?, as event: ChatEvent) {
        guard var room = live(message.room) else { return }
        let change = afterChange ?? message.changeSeq
        // A change to a message not delivered yet arrives with the message itself.
        guard change > room.lastChange, message.seq <= room.lastSeq else { return }
        room.lastChange = change
        effects.append(.deliver(event, stream: room.stream))
        rooms[message.room] = room
    }

    /// The room's subscription, when its frames are this stream's.
    private func live(_ id: String) -> Room? {
        guard let room = rooms[id], room.active, !room.staleUntilUnsubscribed else { return nil }
        return room
    }

    private mutating func refused(_ error: SocketError, now: Instant) {
        let retry = error.retryAfter ?? 1
        if let clientID = error.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) {
            if error.passes {
                outbox[index].notBefore = now + .seconds(retry)
                outbox[index].sentOn = nil
            } else {
                let item = outbox.remove(at: index)
                if let stream = rooms[item.room]?.stream {
                    effects.append(.deliver(.refused(clientID: clientID, code: error.code, message: error.message), stream: stream))
                }
            }
            flush(now: now)
            return
        }
        // Only a subscription waiting for its answer is refused by an error naming the
        // room; others answer a `read` or `typing`, which are not worth more.
        guard let id = error.room, rooms[id]?.active == true, rooms[id]?.awaitingSubscribed == true else { return }
        rooms[id]?.awaitingSubscribed = false
        if error.passes {
            rooms[id]?.resubscribe = (now + .seconds(retry), connection)
        } else {
            end(id, reason: error.code)
        }
    }

    /// The server ended the room's subscription for good: the stream is told, and the
    /// room's messages waiting to go are refused.
    private mutating func end(_ id: String, reason: String) {
        guard let stream = rooms[id]?.stream else { return }
        rooms[id]?.active = false
        effects.append(.deliver(.ended(reason: reason), stream: stream))
        let dropped = outbox.filter { $0.room == id }
        outbox.removeAll { $0.room == id }
        for item in dropped {
            effects.append(
                .deliver(
                    .refused(clientID: item.clientID, code: reason, message: "The room was left before the message was stored."),
                    stream: stream))
        }
    }
}

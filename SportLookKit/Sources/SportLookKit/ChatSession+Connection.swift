import Foundation

/// The connection: opening, reading frames, pacing, backing off after a cut, and resuming where it left off.
extension ChatSession {
    // MARK: The connection

    func run(_ run: Int) async {
        var attempt = 0
        while !stopped && !Task.isCancelled && run == self.runID {
            state = .connecting
            healthy = false
            let opened = ContinuousClock.now
            do {
                guard let token = await token() else { throw ChatSessionError.noToken }
                let socket = try await open(token: token)
                // Stopped (or stopped and started again) while it opened: not this run's any more.
                guard !stopped, !Task.isCancelled, run == self.runID else {
                    await socket.close()
                    break
                }
                self.socket = socket
                connection += 1
                let (frames, continuation) = AsyncStream.makeStream(of: String.self)
                outgoing = continuation
                let pacing = pacing
                let sender = Task {
                    var bucket = TokenBucket(rate: pacing.framesPerSecond, burst: Double(pacing.burst))
                    for await text in frames {
                        if let wait = bucket.take() { try? await Task.sleep(for: .seconds(wait)) }
                        do { try await socket.send(text) } catch {
                            await socket.close()
                            break
                        }
                    }
                }
                state = .online
                for id in rooms.keys.sorted() where rooms[id]?.active == true {
                    sendSubscribe(id)
                    if let read = rooms[id]?.pendingRead {
                        transmit(["type": "read", "room_id": id, "seq": read])
                        rooms[id]?.pendingRead = nil
                    }
                }
                if watching != nil { transmit(["type": "watch_rooms"]) }
                flush()
                for await text in socket.received {
                    handle(text)
                }
                continuation.finish()
                sender.cancel()
                await socket.close()
            } catch {
                // A failed connection is one more try; the pause grows.
            }
            guard run == self.runID else { break }
            socket = nil
            outgoing = nil
            guard !stopped && !Task.isCancelled else { break }
            // A connection that answered, or stayed up a while, starts the pauses over;
            // one closed at once (refused, a frame limit) makes them grow.
            if healthy || ContinuousClock.now - opened > .seconds(30) { attempt = 0 }
            let delay = backoff.delay(attempt: attempt)
            attempt += 1
            state = .offline(retryIn: delay)
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// Opens a socket, or fails once `connectTimeout` has passed (a connection cut
    /// during the handshake may otherwise never say so).
    private func open(token: String) async throws -> any ChatSocket {
        let connector = connector
        let url = url
        let timeout = backoff.connectTimeout
        return try await withThrowingTaskGroup(of: (any ChatSocket)?.self) { group in
            group.addTask { try await connector.connect(to: url, token: token) }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let socket = first else { throw ChatSessionError.connectTimedOut }
            return socket
        }
    }

    func sendSubscribe(_ room: String) {
        guard let position = rooms[room] else { return }
        var frame: [String: Any] = ["type": "subscribe", "room_id": room, "after_seq": position.lastSeq, "poll_votes": true]
        // From the start, every message comes in its current state: no change to replay.
        if position.lastSeq > 0 || position.lastChange > 0 { frame["after_change"] = position.lastChange }
        rooms[room]?.awaitingSubscribed = true
        transmit(frame)
    }

    /// Sends the oldest unconfirmed message of each room, when it may go now (one in
    /// flight per room, so a room stores them in the order they were sent, whatever is
    /// refused for a while); sends again one left unanswered; wakes when the next must.
    func flush() {
        guard state == .online else { return }
        let now = ContinuousClock.now
        let answerTimeout = Duration.seconds(pacing.answerTimeout)
        var next: ContinuousClock.Instant?
        var heads = Set<String>()
        for i in outbox.indices where heads.insert(outbox[i].room).inserted {
            let item = outbox[i]
            if item.sentOn == connection, let sentAt = item.sentAt {
                guard now - sentAt >= answerTimeout else {
                    next = min(next ?? sentAt + answerTimeout, sentAt + answerTimeout)
                    continue
                }
            }
            if let notBefore = item.notBefore, notBefore > now {
                next = min(next ?? notBefore, notBefore)
                continue
            }
            var frame: [String: Any] = ["type": "message", "room_id": item.room, "client_id": item.clientID, "body": item.body]
            if let reply = item.replyTo { frame["reply_to"] = reply }
            transmit(frame)
            outbox[i].sentOn = connection
            outbox[i].sentAt = now
            next = min(next ?? now + answerTimeout, now + answerTimeout)
        }
        guard let next else { return }
        // One wake-up, at the earliest time something is due.
        if let timer, timer.due <= next { return }
        timer?.task.cancel()
        timer = (
            Task { [weak self] in
                do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
                await self?.wake()
            }, next
        )
    }

    private func wake() {
        timer = nil
        flush()
    }

    /// Queues a frame on the current socket (frames go out in the order queued).
    func transmit(_ frame: [String: Any]) {
        guard let outgoing, let data = try? JSONSerialization.data(withJSONObject: frame) else { return }
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    private func handle(_ text: String) {
        guard let frame = try? ServerFrame.decoder.decode(ServerFrame.self, from: Data(text.utf8)) else { return }
        switch frame.type {
        case "subscribed":
            guard let id = frame.roomID else { return }
            healthy = true
            rooms[id]?.awaitingSubscribed = false
        case "message":
            guard let message = frame.message, var room = rooms[message.roomId], room.active, !room.staleUntilUnsubscribed else { return }
            if message.seq > room.lastSeq {
                room.lastSeq = message.seq
                room.continuation.yield(.message(message))
            }
            room.lastChange = max(room.lastChange, frame.afterChange ?? 0)
            rooms[message.roomId] = room
        case "message_edited", "message_deleted":
            guard let message = frame.message, var room = rooms[message.roomId], room.active, !room.staleUntilUnsubscribed else { return }
            let change = frame.afterChange ?? message.changeSeq
            // A change to a message not delivered yet arrives with the message itself.
            guard change > room.lastChange, message.seq <= room.lastSeq else { return }
            room.lastChange = change
            room.continuation.yield(frame.type == "message_deleted" ? .deleted(message) : .edited(message))
            rooms[message.roomId] = room
        case "poll_votes":
            guard let id = frame.roomID, let votes = frame.votes, var room = rooms[id], room.active, !room.staleUntilUnsubscribed,
                votes.changeSeq > room.lastChange, votes.seq <= room.lastSeq
            else { return }
            room.lastChange = votes.changeSeq
            room.continuation.yield(.pollVotes(votes))
            rooms[id] = room
        case "sent":
            healthy = true
            guard let clientID = frame.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) else { return }
            let item = outbox.remove(at: index)
            if let seq = frame.seq { rooms[item.room]?.continuation.yield(.sent(clientID: clientID, seq: seq)) }
            flush()
        case "error":
            handleError(frame)
        case "unsubscribed":
            guard let id = frame.roomID, let reason = frame.reason, rooms[id]?.active == true else { return }
            guard reason != "requested" else {
                rooms[id]?.staleUntilUnsubscribed = false
                return
            }
            if reason == "unavailable" {
                // The server could not check the membership just now: asked again after a pause.
                resubscribe(id, after: 5)
            } else {
                rooms[id]?.active = false
                rooms[id]?.continuation.yield(.ended(reason: reason))
                dropOutbox(of: id, code: reason)
            }
        case "typing":
            guard let id = frame.roomID, let user = frame.user else { return }
            rooms[id]?.continuation.yield(.typing(user: user.id, name: user.name ?? ""))
        case "read":
            guard let id = frame.roomID, let user = frame.user, let seq = frame.seq else { return }
            rooms[id]?.continuation.yield(.read(user: user.id, seq: seq))
        case "room_updated":
            if let entry = frame.room { watching?.yield(.updated(entry)) }
        case "room_removed":
            if let id = frame.roomID { watching?.yield(.removed(id)) }
        default:
            break
        }
    }

    /// Room ids as the server writes them (lowercase), whatever case the app used.
    static func canonical(_ room: String) -> String { room.lowercased() }

    /// Codes after which the same frame is sent again (after `retry_after`).
    static let transient: Set<String> = ["overloaded", "rate_limited", "unavailable"]

    private func handleError(_ frame: ServerFrame) {
        let code = frame.code ?? "error"
        let retry = frame.retryAfter ?? 1
        if let clientID = frame.clientID, let index = outbox.firstIndex(where: { $0.clientID == clientID }) {
            if Self.transient.contains(code) {
                outbox[index].notBefore = .now + .seconds(retry)
                outbox[index].sentOn = nil
                flush()
            } else {
                let item = outbox.remove(at: index)
                rooms[item.room]?.continuation.yield(.refused(clientID: clientID, code: code, message: frame.text ?? ""))
                flush()
            }
            return
        }
        // Only a subscription waiting for its answer is refused by an error naming the
        // room; others answer a `read` or `typing`, which are not worth more.
        guard let id = frame.roomID, rooms[id]?.active == true, rooms[id]?.awaitingSubscribed == true else { return }
        rooms[id]?.awaitingSubscribed = false
        if Self.transient.contains(code) {
            resubscribe(id, after: retry)
        } else {
            rooms[id]?.active = false
            rooms[id]?.continuation.yield(.ended(reason: code))
            dropOutbox(of: id, code: code)
        }
    }

    /// The room's messages waiting to go will not: each is refused with the room's end.
    private func dropOutbox(of room: String, code: String) {
        let dropped = outbox.filter { $0.room == room }
        outbox.removeAll { $0.room == room }
        for item in dropped {
            rooms[room]?.continuation.yield(
                .refused(clientID: item.clientID, code: code, message: "The room was left before the message was stored."))
        }
    }

    private func resubscribe(_ room: String, after seconds: Double) {
        let connection = connection
        pendingTasks.removeAll { $0.isCancelled }
        pendingTasks.append(
            Task { [weak self] in
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
                await self?.subscribeAgain(room, on: connection)
            })
    }

    private func subscribeAgain(_ room: String, on connection: Int) {
        // A new connection subscribes every room anyway.
        guard state == .online, connection == self.connection, rooms[room]?.active == true else { return }
        sendSubscribe(room)
    }
}

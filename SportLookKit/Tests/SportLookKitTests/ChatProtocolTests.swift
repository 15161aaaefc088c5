import Foundation
import Testing

@testable import SportLookKit

/// The chat protocol's rules (``ChatProtocol``) on a made-up clock, fed the frames a
/// server would send: no socket, no sleep.
@Suite("The chat protocol's rules")
struct ChatProtocolTests {
    static let room = "0b7c5a5e-7d36-4a43-9c1b-0a5f3c1d2e01"
    static let other = "0b7c5a5e-7d36-4a43-9c1b-0a5f3c1d2e02"

    @Test(
        "a cut during a send: the session resumes from where it stood, sends the message again with its client_id, and tells each message and its confirmation once"
    )
    func cutDuringSend() throws {
        let chat = Harness()
        let stream = chat.join(Self.room)
        chat.connect()
        #expect(chat.frames == [.subscribe(room: Self.room, afterSeq: 0, afterChange: nil, pollVotes: true)])
        chat.receive(Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1), Frame.message(Self.room, seq: 2, afterChange: 0))
        let id = try chat.send("who brings the ball?", clientID: "c-1")
        #expect(chat.frames == [.message(room: Self.room, clientID: "c-1", body: "who brings the ball?")])

        // The socket is cut before `sent` comes back: offline, then the next connection.
        chat.lose(jitter: 1)
        #expect(chat.rules.state == .offline(retryIn: 0.5))
        #expect(chat.frames.isEmpty && chat.rules.nextWake == nil, "nothing goes out while offline")
        chat.connect()
        #expect(
            chat.frames == [
                .subscribe(room: Self.room, afterSeq: 2, afterChange: 0, pollVotes: true),
                .message(room: Self.room, clientID: id, body: "who brings the ball?"),
            ])
        // The server had stored it: the history sends it, and both sends are answered.
        chat.receive(
            Frame.subscribed(Self.room), Frame.message(Self.room, seq: 2), Frame.message(Self.room, seq: 3, clientID: id),
            Frame.sent(id, seq: 3), Frame.sent(id, seq: 3))
        #expect(chat.messages(stream) == [1, 2, 3])
        #expect(chat.sent(stream) == [id: 3])
        #expect(chat.rules.outbox.isEmpty)
        #expect(chat.rules.position(of: Self.room.uppercased())?.seq == 3)
    }

    @Test("a resume racing an edit: a change older than the position, or to a message not delivered yet, is not told; a newer one once")
    func resumeRacingEdit() {
        let chat = Harness()
        let stream = chat.join(Self.room, afterSeq: 3, afterChange: 5)
        chat.connect()
        #expect(chat.frames == [.subscribe(room: Self.room, afterSeq: 3, afterChange: 5, pollVotes: true)])
        chat.receive(
            Frame.subscribed(Self.room),
            Frame.change(Self.room, seq: 2, change: 4),  // delivered before the cut
            Frame.change(Self.room, seq: 2, change: 6),
            Frame.change(Self.room, seq: 2, change: 6),  // the same change again
            Frame.change(Self.room, seq: 9, change: 7),  // its message comes with it
            Frame.message(Self.room, seq: 4, afterChange: 7),
            Frame.change(Self.room, seq: 3, change: 7, deleted: true),  // accounted for by the message's after_change
            Frame.change(Self.room, seq: 3, change: 8, deleted: true),
            Frame.votes(Self.room, seq: 4, change: 8),
            Frame.votes(Self.room, seq: 4, change: 9))
        #expect(chat.changes(stream) == ["edited 2 at 6", "deleted 3 at 8", "votes 4 at 9"])
        #expect(chat.messages(stream) == [4])
        #expect(chat.rules.position(of: Self.room)?.seq == 4)
        #expect(chat.rules.position(of: Self.room)?.change == 9)
    }

    @Test(
        "following a room again: the earlier subscription's frames are not the new stream's until the server ends it, or the connection ends"
    )
    func followedAgain() {
        let chat = Harness()
        let first = chat.join(Self.room)
        chat.connect()
        chat.receive(Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1))
        _ = chat.frames
        let second = chat.join(Self.room)
        #expect(chat.ended.contains(first), "the first stream ends")
        #expect(
            chat.frames == [.unsubscribe(room: Self.room), .subscribe(room: Self.room, afterSeq: 0, afterChange: nil, pollVotes: true)])
        chat.receive(Frame.message(Self.room, seq: 2))
        #expect(chat.messages(second).isEmpty, "the earlier subscription's frame")
        chat.receive(Frame.unsubscribed(Self.room, "requested"), Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1))
        #expect(chat.messages(second) == [1])

        // Cut before the server confirmed the end: the new connection's frames are the stream's.
        let third = chat.join(Self.room)
        chat.lose(jitter: 0)
        chat.connect()
        chat.receive(Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1))
        #expect(chat.messages(third) == [1])
    }

    @Test("overloaded and rate_limited: the message goes again after retry_after, not before, and a room's messages keep their order")
    func retryAfter() throws {
        let chat = Harness()
        let stream = chat.join(Self.room)
        _ = chat.join(Self.other)
        chat.connect()
        chat.receive(Frame.subscribed(Self.room), Frame.subscribed(Self.other))
        _ = chat.frames
        let a = try chat.send("one", clientID: "a")
        let b = try chat.send("two", clientID: "b")
        let c = try chat.send("elsewhere", clientID: "c", to: Self.other)
        #expect(chat.frames.map(\.clientID) == [a, c], "one in flight per room; another room's goes")

        chat.receive(Frame.error("overloaded", clientID: a, retryAfter: 2))
        #expect(chat.frames.isEmpty)
        #expect(chat.rules.nextWake == chat.now + .seconds(2))
        chat.advance(.milliseconds(1_999))
        #expect(chat.frames.isEmpty, "not before retry_after")
        chat.advance(.milliseconds(1))
        #expect(chat.frames.map(\.clientID) == [a])
        chat.receive(Frame.sent(a, seq: 1))
        #expect(chat.frames.map(\.clientID) == [b], "the next of the room once the first is stored")
        chat.receive(Frame.error("rate_limited", clientID: b, retryAfter: 7))
        chat.advance(.seconds(6))
        #expect(chat.frames.isEmpty)
        chat.advance(.seconds(1))
        #expect(chat.frames.map(\.clientID) == [b])
        chat.receive(Frame.sent(b, seq: 2))
        #expect(chat.sent(stream) == [a: 1, b: 2])
        #expect(chat.rules.outbox.map(\.clientID) == [c])

        // A refusal for good is told, and the room's next message goes.
        let d = try chat.send("too much", clientID: "d")
        _ = chat.frames
        chat.receive(Frame.error("invalid_message", clientID: d))
        #expect(chat.refused(stream) == ["d invalid_message"])
    }

    @Test("a message left unanswered is sent again after the answer timeout, once per timeout")
    func answerTimeout() throws {
        let chat = Harness()
        _ = chat.join(Self.room)
        chat.connect()
        _ = chat.frames
        let id = try chat.send("anyone?", clientID: "x")
        _ = chat.frames
        chat.advance(.seconds(9))
        #expect(chat.frames.isEmpty)
        chat.advance(.seconds(1))
        #expect(chat.frames.map(\.clientID) == [id])
        chat.advance(.seconds(5))
        #expect(chat.frames.isEmpty)
    }

    @Test("a room removed while offline: the subscription is refused, the stream ends and its unsent messages are refused with the reason")
    func roomRemovedWhileOffline() throws {
        let chat = Harness()
        let stream = chat.join(Self.room)
        chat.connect()
        chat.receive(Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1))
        _ = chat.frames
        chat.lose(jitter: 0)
        _ = try chat.send("still coming?", clientID: "late")
        chat.markRead(upTo: 1)
        #expect(chat.frames.isEmpty)
        chat.connect()
        #expect(
            chat.frames == [
                .subscribe(room: Self.room, afterSeq: 1, afterChange: 0, pollVotes: true), .read(room: Self.room, seq: 1),
                .message(room: Self.room, clientID: "late", body: "still coming?"),
            ])
        chat.receive(Frame.error("not_a_member", room: Self.room))
        #expect(chat.events[stream]?.contains(.ended(reason: "not_a_member")) == true)
        #expect(chat.refused(stream) == ["late not_a_member"])
        #expect(chat.rules.outbox.isEmpty)
        chat.receive(Frame.message(Self.room, seq: 2))
        #expect(chat.messages(stream) == [1], "nothing more from the room")
        #expect(throws: ChatSessionError.notFollowed) { try chat.send("hello?", clientID: "y") }
        // A later connection does not subscribe it again.
        chat.lose(jitter: 0)
        chat.connect()
        #expect(chat.frames.isEmpty)
    }

    @Test("unavailable: the room is subscribed again after a pause on the same connection, not on a later one twice")
    func unavailable() {
        let chat = Harness()
        _ = chat.join(Self.room)
        chat.connect()
        _ = chat.frames
        chat.receive(Frame.unsubscribed(Self.room, "unavailable"))
        chat.advance(.seconds(4))
        #expect(chat.frames.isEmpty)
        chat.advance(.seconds(1))
        #expect(chat.frames == [.subscribe(room: Self.room, afterSeq: 0, afterChange: nil, pollVotes: true)])
        chat.receive(Frame.error("unavailable", room: Self.room, retryAfter: 3))
        chat.lose(jitter: 0)
        chat.connect()
        #expect(chat.frames.count == 1, "the new connection subscribes")
        chat.advance(.seconds(5))
        #expect(chat.frames.isEmpty, "the old connection's pause does nothing")
    }

    @Test("frames go out at most burst at once, then at the rate; typing at most every three seconds; read markers held while offline")
    func pacing() {
        let chat = Harness(pacing: .init(framesPerSecond: 2, burst: 3))
        let rooms = (1...5).map { "0b7c5a5e-7d36-4a43-9c1b-0a5f3c1d2f0\($0)" }
        for room in rooms { _ = chat.join(room) }
        chat.connect()
        let start = chat.now
        #expect(chat.timed.map { $0.at - start } == [.zero, .zero, .zero, .milliseconds(500), .seconds(1)])
        chat.advance(.seconds(10))
        chat.typing(in: rooms[0])
        chat.advance(.seconds(2))
        chat.typing(in: rooms[0])
        chat.advance(.seconds(1))
        chat.typing(in: rooms[0])
        #expect(chat.frames == [.typing(room: rooms[0]), .typing(room: rooms[0])])
    }

    @Test(
        "the pause after a drop doubles up to the longest, jittered between half and all of it, and starts over after a connection that answered"
    )
    func backoff() {
        let chat = Harness(backoff: .init(first: 1, longest: 8))
        var pauses: [Double] = []
        for jitter in [1.0, 1, 1, 1, 1, 0] {
            chat.rules.connecting(now: chat.now)
            pauses.append(chat.rules.lost(now: chat.now, jitter: jitter))
        }
        #expect(pauses == [1, 2, 4, 8, 8, 4])
        chat.connect()
        chat.receive(Frame.subscribed(Self.room))
        #expect(chat.rules.lost(now: chat.now, jitter: 0) == 0.5, "answered: from the first pause again")
        chat.rules.connecting(now: chat.now)
        chat.advance(.seconds(31))
        chat.rules.connected(now: chat.now)
        #expect(chat.rules.lost(now: chat.now, jitter: 1) == 1, "up 30 s: from the first pause again")
    }

    @Test(
        "a message this version cannot read (a newer server's reaction) ends the room's stream: no message after it is told, so none is skipped unseen"
    )
    func unreadableMessage() {
        let chat = Harness()
        let stream = chat.join(Self.room)
        chat.connect()
        var newer = Frame.chatMessage(Self.room, seq: 2, clientID: "other-2", change: 0, deleted: false)
        newer["reactions"] = [["emoji": "🦄", "count": 1, "user_ids": ["5f0c1d2e-0000-4000-8000-000000000001"]]]
        let unreadable = Frame.json(["type": "message", "message": newer])
        #expect(SocketEvent(decoding: unreadable) == .unreadable(room: Self.room, type: "message"))
        chat.receive(Frame.subscribed(Self.room), Frame.message(Self.room, seq: 1), unreadable, Frame.message(Self.room, seq: 3))
        #expect(chat.messages(stream) == [1])
        #expect(chat.events[stream]?.last == .ended(reason: "unreadable_message"))
    }

    @Test("socket frames decode once into typed events; a newer server's kinds are unknown, never an error")
    func typedEvents() throws {
        #expect(SocketEvent(decoding: #"{"type":"database","writable":false}"#) == .database(writable: false))
        #expect(SocketEvent(decoding: #"{"type":"time_travel","when":1}"#) == .unknown(type: "time_travel"))
        #expect(SocketEvent(decoding: "not json") == .unknown(type: ""))
        #expect(SocketEvent(decoding: #"{"type":"message"}"#) == .unknown(type: "message"))
        #expect(SocketEvent(decoding: Frame.sent("k", seq: 4)) == .sent(clientID: "k", seq: 4))
        #expect(
            SocketEvent(decoding: Frame.error("rate_limited", clientID: "k", retryAfter: 3))
                == .error(SocketError(code: "rate_limited", message: "no", clientID: "k", retryAfter: 3)))
        guard case .message(let message, afterChange: 2) = SocketEvent(decoding: Frame.message(Self.room, seq: 7, afterChange: 2)) else {
            Issue.record("a message frame")
            return
        }
        #expect(message.seq == 7 && message.room == Self.room)
        let subscribe = try JSONDecoder().decode(
            SubscribeFrame.self,
            from: Data(SocketCommand.subscribe(room: Self.room, afterSeq: 3, afterChange: 4, pollVotes: true).text.utf8))
        #expect(subscribe == SubscribeFrame(type: "subscribe", room_id: Self.room, after_seq: 3, after_change: 4, poll_votes: true))
        let fromStart = try JSONDecoder().decode(
            SubscribeFrame.self,
            from: Data(SocketCommand.subscribe(room: Self.room, afterSeq: 0, afterChange: nil, pollVotes: false).text.utf8))
        #expect(fromStart == SubscribeFrame(type: "subscribe", room_id: Self.room, after_seq: 0, after_change: nil, poll_votes: nil))
    }
}

/// A `subscribe` frame as the server reads it.
struct SubscribeFrame: Decodable, Equatable {
    var type: String
    var room_id: String
    var after_seq: Int
    var after_change: Int?
    var poll_votes: Bool?
}

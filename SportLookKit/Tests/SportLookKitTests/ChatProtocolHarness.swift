import Foundation
import Testing

@testable import SportLookKit

/// The chat protocol's rules on a made-up clock: what they send and tell, kept as it
/// happens, for the tests to read.
final class Harness {
    var rules: ChatProtocol
    private(set) var now = ContinuousClock.now
    /// Frames sent and not yet looked at, with when each may go.
    private var pending: [(frame: SocketCommand, at: ContinuousClock.Instant)] = []
    /// What each stream was told.
    private(set) var events: [Int: [ChatEvent]] = [:]
    private(set) var ended: Set<Int> = []

    init(backoff: ChatSession.Backoff = .init(), pacing: ChatSession.Pacing = .init()) {
        rules = ChatProtocol(backoff: backoff, pacing: pacing, now: now)
    }

    /// The frames sent since the last look.
    var frames: [SocketCommand] { timed.map(\.frame) }

    /// The frames sent since the last look, with when each may go.
    var timed: [(frame: SocketCommand, at: ContinuousClock.Instant)] {
        defer { pending = [] }
        return pending
    }

    func join(_ room: String, afterSeq: Int = 0, afterChange: Int = 0) -> Int {
        defer { collect() }
        return rules.join(room, afterSeq: afterSeq, afterChange: afterChange, now: now)
    }

    /// A try to connect that opens the socket.
    func connect() {
        rules.connecting(now: now)
        rules.connected(now: now)
        collect()
    }

    /// The socket is lost; `jitter` picks the pause.
    func lose(jitter: Double) {
        _ = rules.lost(now: now, jitter: jitter)
        collect()
    }

    func receive(_ texts: String...) {
        for text in texts { rules.received(text, now: now) }
        collect()
    }

    @discardableResult
    func send(_ body: String, clientID: String, to room: String = ChatProtocolTests.room) throws -> String {
        defer { collect() }
        return try rules.send(body, to: room, clientID: clientID, replyTo: nil, now: now)
    }

    func markRead(_ room: String = ChatProtocolTests.room, upTo seq: Int) {
        rules.markRead(room, upTo: seq, now: now)
        collect()
    }

    func typing(in room: String) {
        rules.typing(in: room, now: now)
        collect()
    }

    /// Time passes; what falls due is done.
    func advance(_ duration: Duration) {
        now += duration
        rules.tick(now: now)
        collect()
    }

    func messages(_ stream: Int) -> [Int] {
        events[stream, default: []].compactMap { if case .message(let m) = $0 { m.seq } else { nil } }
    }

    func sent(_ stream: Int) -> [String: Int] {
        var sent: [String: Int] = [:]
        for case .sent(let id, let seq) in events[stream, default: []] {
            #expect(sent[id] == nil, "\(id) confirmed twice")
            sent[id] = seq
        }
        return sent
    }

    /// Each change told, as "edited 2 at 6".
    func changes(_ stream: Int) -> [String] {
        events[stream, default: []].compactMap {
            switch $0 {
            case .edited(let m): "edited \(m.seq) at \(m.changeSeq)"
            case .deleted(let m): "deleted \(m.seq) at \(m.changeSeq)"
            case .pollVotes(let v): "votes \(v.seq) at \(v.changeSeq)"
            default: nil
            }
        }
    }

    /// Each refusal told, as "client-id code".
    func refused(_ stream: Int) -> [String] {
        events[stream, default: []].compactMap { if case .refused(let id, let code, _) = $0 { "\(id) \(code)" } else { nil } }
    }

    private func collect() {
        for effect in rules.takeEffects() {
            switch effect {
            case .send(let frame, let at): pending.append((frame, at))
            case .deliver(let event, let stream): events[stream, default: []].append(event)
            case .finish(let stream): ended.insert(stream)
            case .roomList, .state: break
            }
        }
    }
}

extension SocketCommand {
    /// A message frame's `client_id`.
    var clientID: String? {
        if case .message(_, let id, _, _, _, _) = self { id } else { nil }
    }
}

/// Frames as a server writes them.
enum Frame {
    static func json(_ fields: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
    }

    static func chatMessage(_ room: String, seq: Int, clientID: String, change: Int, deleted: Bool) -> [String: Any] {
        [
            "id": UUID().uuidString.lowercased(), "room_id": room, "event_id": room, "seq": seq,
            "sender": ["id": "5f0c1d2e-0000-4000-8000-000000000001", "name": "Ada"], "body": deleted ? "" : "message \(seq)",
            "client_id": clientID, "created_at": "2026-11-30T10:00:00.000Z", "attachment": NSNull(), "reply_to": NSNull(),
            "mentions": [Any](), "reactions": [Any](), "change_seq": change, "edited_at": NSNull(), "deleted": deleted,
            "deleted_at": deleted ? "2026-11-30T10:05:00.000Z" : NSNull(), "poll": NSNull(),
        ]
    }

    static func subscribed(_ room: String) -> String {
        json(["type": "subscribed", "room_id": room, "last_seq": 0, "last_change_seq": 0])
    }

    static func unsubscribed(_ room: String, _ reason: String) -> String {
        json(["type": "unsubscribed", "room_id": room, "reason": reason])
    }

    static func message(_ room: String, seq: Int, clientID: String? = nil, afterChange: Int? = nil) -> String {
        var fields: [String: Any] = [
            "type": "message", "message": chatMessage(room, seq: seq, clientID: clientID ?? "other-\(seq)", change: 0, deleted: false),
        ]
        if let afterChange { fields["after_change"] = afterChange }
        return json(fields)
    }

    static func change(_ room: String, seq: Int, change: Int, deleted: Bool = false) -> String {
        json([
            "type": deleted ? "message_deleted" : "message_edited", "after_change": change,
            "message": chatMessage(room, seq: seq, clientID: "other-\(seq)", change: change, deleted: deleted),
        ])
    }

    static func votes(_ room: String, seq: Int, change: Int) -> String {
        json([
            "type": "poll_votes", "room_id": room, "seq": seq, "after_change": change, "counts": [1, 0],
            "taken_by": [NSNull(), NSNull()], "voters_count": 1, "my_votes": [Int](),
        ])
    }

    static func sent(_ clientID: String, seq: Int) -> String {
        json(["type": "sent", "client_id": clientID, "seq": seq])
    }

    static func error(_ code: String, room: String? = nil, clientID: String? = nil, retryAfter: Int? = nil) -> String {
        var fields: [String: Any] = ["type": "error", "code": code, "message": "no"]
        if let room { fields["room_id"] = room }
        if let clientID { fields["client_id"] = clientID }
        if let retryAfter { fields["retry_after"] = retryAfter }
        return json(fields)
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// What one client holds of a room, built only from the frames it was sent: each
/// message in its latest state, and the position to resume from.
struct RoomReplica {
    var messages: [Int: API.ChatMessage] = [:]
    var afterSeq = 0
    var afterChange = 0
    /// (seq, change) of every change frame applied: none may come twice.
    var changesSeen: Set<[Int]> = []
    var problems: [String] = []

    mutating func apply(_ frames: [API.Frame]) {
        for frame in frames {
            if let message = frame.message {
                let seq = message.message.seq
                if messages[seq] != nil { problems.append("message \(seq) sent twice") }
                if seq != afterSeq + 1 { problems.append("message \(seq) after \(afterSeq): a gap") }
                messages[seq] = message.message
                afterSeq = max(afterSeq, seq)
                afterChange = max(afterChange, message.afterChange)
            } else if let change = frame.change {
                let key = [change.message.seq, change.message.changeSeq]
                if !changesSeen.insert(key).inserted { problems.append("change \(key) sent twice") }
                if messages[change.message.seq] == nil { problems.append("a change of message \(change.message.seq), not held") }
                if change.afterChange <= afterChange { problems.append("change \(change.afterChange) at or before \(afterChange)") }
                messages[change.message.seq] = change.message
                afterChange = change.afterChange
            }
        }
    }
}

@Suite("Rooms across instances", .timeLimit(.minutes(10)))
struct RoomsAcrossInstancesTests {
    @Test(
        "a conversation on two instances: clients dropping and resuming on either end with every message once and every edit and deletion once"
    )
    func conversationResume() async throws {
        try await withTwoInstances(secondSetup: .live, configure: { $0.chatRateLimit = 1_000_000 }) { a, b, _, _ in
            let clock = ManualClock(Date())
            let (event, owner, people) = try await chatRoom(a, clock: clock, members: 1)
            _ = event
            let ann = owner
            let bo = people[0]
            // They share the event: they write freely.
            let room = try await a.conversation(with: bo.id, token: ann.token).id
            let total = 400
            let instances = [a, b]
            let finished = Moment()
            async let posting: Void = {
                defer { finished.mark() }
                for n in 1...total {
                    // Ann writes on one instance, Bo on the other.
                    let (api, who) = n % 2 == 0 ? (a, ann) : (b, bo)
                    _ = try await api.say("message \(n)", in: room, token: who.token, clientID: "c\(n)")
                    // Now and then the author edits or deletes a recent message, on the other instance.
                    if n % 25 == 0 {
                        let other = n % 2 == 0 ? b : a
                        let reply = try await other.patch(
                            "/v1/rooms/\(room)/messages/\(n - 3)", token: (n - 3) % 2 == 0 ? ann.token : bo.token,
                            json: ["body": "message \(n - 3), edited"])
                        guard reply.status == .ok else { throw ClusterError("edit answered \(reply.status): \(reply.text)") }
                    }
                    if n % 40 == 0 {
                        let reply = try await a.delete(
                            "/v1/rooms/\(room)/messages/\(n - 7)", token: (n - 7) % 2 == 0 ? ann.token : bo.token)
                        guard reply.status == .ok else { throw ClusterError("delete answered \(reply.status): \(reply.text)") }
                    }
                }
            }()
            // Three clients for each of the two, each alternating instances.
            let replicas = try await withThrowingTaskGroup(of: RoomReplica.self) { group in
                for i in 0..<6 {
                    let person = i % 2 == 0 ? ann : bo
                    group.addTask {
                        var rng = TestRandom(seed: UInt64(i + 11))
                        var replica = RoomReplica()
                        var round = 0
                        while true {
                            round += 1
                            let api = instances[round % 2]
                            let socket = try await TestSocket.connect(try socketURL(api), token: person.token)
                            socket.send([
                                "type": "subscribe", "room_id": room, "after_seq": replica.afterSeq, "after_change": replica.afterChange,
                            ])
                            if finished.instant == nil {
                                try await Task.sleep(for: .milliseconds(Int.random(in: 20...250, using: &rng)))
                            } else {
                                // After the last change: stay until everything is here.
                                let final = try await a.rooms(person.token).items.first { $0.id == room }
                                let (lastSeq, lastChange) = (final?.lastSeq ?? 0, final?.lastChangeSeq ?? 0)
                                let held = replica
                                try await eventually("the client to catch up", timeout: .seconds(60)) {
                                    var probe = held
                                    probe.apply(try socket.frames)
                                    return probe.afterSeq >= lastSeq && probe.afterChange >= lastChange || socket.isClosed
                                }
                            }
                            await socket.close()
                            replica.apply(try socket.frames)
                            if finished.instant != nil, round > 1 {
                                let final = try await a.rooms(person.token).items.first { $0.id == room }
                                if replica.afterSeq >= final?.lastSeq ?? 0 && replica.afterChange >= final?.lastChangeSeq ?? 0 {
                                    return replica
                                }
                            }
                        }
                    }
                }
                var out: [RoomReplica] = []
                for try await replica in group { out.append(replica) }
                return out
            }
            try await posting
            var history: [API.ChatMessage] = []
            var after = 0
            while true {
                let page = try await a.page(
                    API.ChatMessage.self, "/v1/rooms/\(room)/messages?after_seq=\(after)&limit=100", token: ann.token)
                history += page.items
                guard let last = page.items.last?.seq, page.nextCursor != nil else { break }
                after = last
            }
            #expect(history.map(\.seq) == Array(1...total))
            #expect(history.filter(\.deleted).count == total / 40 && history.filter { $0.editedAt != nil }.count == total / 25)
            for replica in replicas {
                #expect(replica.problems.isEmpty, "\(replica.problems.prefix(5))")
                #expect(replica.messages.keys.sorted() == Array(1...total))
                for message in history
                where replica.messages[message.seq]?.body != message.body || replica.messages[message.seq]?.deleted != message.deleted {
                    Issue.record(
                        "message \(message.seq): the client holds \(String(describing: replica.messages[message.seq]?.body)), the room \(message.body)"
                    )
                }
            }
        }
    }
}

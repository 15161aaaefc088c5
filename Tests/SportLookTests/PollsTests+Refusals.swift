import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

extension PollsTests {
    @Test(
        "a vote is refused for someone not in the room, on a message that is no poll or no message, in a cancelled game; one that reaches the lock after the close or the deletion is refused there",
        arguments: engines)
    func voteRefusals(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let poll = try await Self.poll(api, in: event, token: owner.token)
            let outsider = try await api.register("Outsider")
            #expect(try await Self.vote(api, event, poll.seq, [0], token: outsider.token).status == .forbidden)
            let plain = try await api.sendMessage("Bring water", clientID: "plain", to: event, token: owner.token)
            #expect(try await Self.vote(api, event, plain.seq, [0], token: people[0].token).errorCode == "not_a_poll")
            #expect(try await Self.vote(api, event, poll.seq + 100, [0], token: people[0].token).status == .notFound)
            #expect(try await Self.vote(api, event, poll.seq, [3], token: people[0].token).status == .unprocessableContent)
            #expect(try await Self.vote(api, event, poll.seq, [0], token: people[0].token).status == .ok)

            // A vote that read the poll open before its close, or before its deletion, and reaches the
            // room's lock after it, is refused there (on PostgreSQL by the database's own function).
            let (room, voter) = (try #require(UUID(uuidString: event)), try #require(UUID(uuidString: people[1].id)))
            let (store, notification) = (services.chat.store, services.chat.write.feed.chatChangeNotification(room: room))
            func cast(_ seq: Int, at now: Date) async throws -> ChatStore.VoteOutcome {
                try await services.database.transaction { sql in
                    try await store.castVote(
                        room: room, seq: Int64(seq), user: voter, [1], onePerOption: false, at: now, notification: notification, on: sql)
                }
            }
            #expect(try await api.post("/v1/rooms/\(event)/messages/\(poll.seq)/poll/close", token: owner.token).status == .ok)
            #expect(try await cast(poll.seq, at: clock.now()) == .closed)
            let closed = try await api.messages(event, token: owner.token).first { $0.seq == poll.seq }
            #expect(closed?.poll?.value1.counts == [1, 0, 0] && closed?.poll?.value1.closed == true)
            let deleted = try await Self.poll(api, in: event, token: owner.token, clientID: "deleted")
            #expect(try await api.delete("/v1/rooms/\(event)/messages/\(deleted.seq)", token: owner.token).status == .ok)
            #expect(try await cast(deleted.seq, at: clock.now()) == .gone)
            #expect(try await Self.vote(api, event, deleted.seq, [0], token: people[0].token).errorCode == "not_a_poll")

            let second = try await Self.poll(api, in: event, token: owner.token, clientID: "second")
            #expect(try await api.delete("/v1/events/\(event)", token: owner.token).status == .noContent)
            #expect(try await Self.vote(api, event, second.seq, [0], token: people[0].token).errorCode == "event_cancelled")
            let counts = try await api.messages(event, token: owner.token).first { $0.seq == second.seq }?.poll?.value1.counts
            #expect(counts == [0, 0, 0])
        }
    }

    @Test(
        "a vote that changed nothing (an option someone else took, the choice already made) does not count against the chat rate",
        arguments: engines)
    func refusedVotesAreNotCounted(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.chatRateLimit = 2 }) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 2)
            let list = try await Self.poll(api, in: event, token: owner.token, "Who brings what?", extra: ["one_per_option": true])
            #expect(try await Self.vote(api, event, list.seq, [0], token: people[0].token).status == .ok)
            for _ in 0..<3 { #expect(try await Self.vote(api, event, list.seq, [0], token: people[1].token).errorCode == "option_taken") }
            #expect(try await Self.vote(api, event, list.seq, [1], token: people[1].token).status == .ok)
            for _ in 0..<3 { #expect(try await Self.vote(api, event, list.seq, [1], token: people[1].token).status == .ok) }
            #expect(try await Self.vote(api, event, list.seq, [2], token: people[1].token).status == .ok)
            let fast = try await Self.vote(api, event, list.seq, [1], token: people[1].token)
            #expect(fast.status == .tooManyRequests && fast.headers[.retryAfter] != nil, "two changes in the window")
        }
    }
}

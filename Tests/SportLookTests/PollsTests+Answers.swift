import Foundation
import HTTPTypes
import Testing

@testable import SportLook

extension PollsTests {
    @Test(
        "a vote's answer counts every voter and names each option's first 20, the voter among them wherever they are, without those the voter blocked: as the room's history shows it to them",
        arguments: engines)
    func voteAnswerAsHistory(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 25)
            let (voter, blocked) = (people[24], [people[0], people[5]])
            let poll = try await Self.poll(api, in: event, token: owner.token, options: ["Tue", "Wed"])
            let secret = try await Self.poll(
                api, in: event, token: owner.token, "Captain?", options: ["Ann", "Bo"], extra: ["anonymous": true])
            // One a second, so the order they voted in is the order of their times.
            for person in people[..<24] {
                clock.advance(by: 1)
                #expect(try await Self.vote(api, event, poll.seq, [0], token: person.token).status == .ok)
            }
            #expect(try await Self.vote(api, event, secret.seq, [1], token: people[0].token).status == .ok)
            for person in blocked {
                #expect(try await api.post("/v1/users/\(person.id)/block", token: voter.token).status == .noContent)
            }
            clock.advance(by: 1)
            let answer = try #require(try await Self.vote(api, event, poll.seq, [0], token: voter.token).decode(API.ChatMessage.self).poll)
            let named = people[..<24].filter { person in !blocked.contains { $0.id == person.id } }.prefix(20).map(\.id)
            #expect(answer.counts == [23, 0] && answer.votersCount == 23 && answer.myVotes == [0])
            #expect(answer.options[0].userIDs == named && answer.options[1].userIDs.isEmpty)
            let history = try #require(try await api.messages(event, token: voter.token).first { $0.seq == poll.seq }?.poll)
            #expect(history.counts == answer.counts && history.votersCount == answer.votersCount && history.myVotes == answer.myVotes)
            #expect(history.options.map(\.userIDs) == answer.options.map(\.userIDs))

            // Someone who blocked nobody: all 25 counted, the first 20 named.
            let other = try #require(
                try await Self.vote(api, event, poll.seq, [1], token: people[1].token).decode(API.ChatMessage.self).poll)
            #expect(other.counts == [24, 1] && other.votersCount == 25 && other.myVotes == [1])
            #expect(other.options[0].userIDs == Array(([people[0]] + people[2..<24] + [voter]).prefix(20).map(\.id)))

            // An anonymous poll's counts are everyone's, blocked or not, and name no one.
            let anonymous = try #require(
                try await Self.vote(api, event, secret.seq, [1], token: voter.token).decode(API.ChatMessage.self).poll)
            #expect(anonymous.counts == [0, 2] && anonymous.votersCount == 2 && anonymous.myVotes == [1])
            #expect(anonymous.options.allSatisfy { $0.userIDs.isEmpty })
        }
    }
}

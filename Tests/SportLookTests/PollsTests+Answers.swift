import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

extension PollsTests {
    @Test(
        "a vote's answer counts every voter and names each option's first 20 in the order they voted, without those the voter blocked, and the voter's own choices: as the room's history shows it to them",
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
            let answer = try #require(
                try await Self.vote(api, event, poll.seq, [0], token: voter.token).decode(API.ChatMessage.self).poll?.value1)
            let named = people[..<24].filter { person in !blocked.contains { $0.id == person.id } }.prefix(20).map(\.id)
            #expect(answer.counts == [23, 0] && answer.votersCount == 23 && answer.myVotes == [0])
            #expect(answer.options[0].userIds == named && answer.options[1].userIds.isEmpty)
            try await Self.expectAsHistory(answer, api, event, poll.seq, token: voter.token)

            // Someone who blocked nobody: all 25 counted, the first 20 named.
            let other = try #require(
                try await Self.vote(api, event, poll.seq, [1], token: people[1].token).decode(API.ChatMessage.self).poll?.value1)
            #expect(other.counts == [24, 1] && other.votersCount == 25 && other.myVotes == [1])
            #expect(other.options[0].userIds == Array(([people[0]] + people[2..<24] + [voter]).prefix(20).map(\.id)))
            try await Self.expectAsHistory(other, api, event, poll.seq, token: people[1].token)

            // An anonymous poll's counts are everyone's, blocked or not, and name no one.
            let anonymous = try #require(
                try await Self.vote(api, event, secret.seq, [1], token: voter.token).decode(API.ChatMessage.self).poll?.value1)
            #expect(anonymous.counts == [0, 2] && anonymous.votersCount == 2 && anonymous.myVotes == [1])
            #expect(anonymous.options.allSatisfy { $0.userIds.isEmpty })
            try await Self.expectAsHistory(anonymous, api, event, secret.seq, token: voter.token)

            // Several choices, cast at one instant (the order of their ids breaks the tie): the blocked
            // people's two choices each are neither counted nor named for the voter, nor among those who voted.
            let several = try await Self.poll(
                api, in: event, token: owner.token, "Which nights?", options: ["Mon", "Tue", "Wed"], extra: ["multiple": true])
            for (i, person) in people[..<8].enumerated() {
                let choices = i < 6 ? [0, 1] : [2]
                #expect(try await Self.vote(api, event, several.seq, choices, token: person.token).status == .ok)
            }
            let mine = try #require(
                try await Self.vote(api, event, several.seq, [1, 2], token: voter.token).decode(API.ChatMessage.self).poll?.value1)
            #expect(mine.counts == [4, 5, 3] && mine.votersCount == 7 && mine.myVotes == [1, 2])
            try await Self.expectAsHistory(mine, api, event, several.seq, token: voter.token)
            let owners = try #require(try await api.messages(event, token: owner.token).first { $0.seq == several.seq }?.poll?.value1)
            #expect(owners.counts == [6, 7, 3] && owners.votersCount == 9 && owners.myVotes.isEmpty)
        }
    }

    /// The poll in a vote's answer is the poll the room's history shows the same person.
    static func expectAsHistory(_ answer: API.Poll, _ api: API, _ room: String, _ seq: Int, token: String) async throws {
        let history = try #require(try await api.messages(room, token: token).first { $0.seq == seq }?.poll?.value1)
        #expect(history.counts == answer.counts && history.votersCount == answer.votersCount && history.myVotes == answer.myVotes)
        #expect(history.options.map(\.userIds) == answer.options.map(\.userIds))
    }
}

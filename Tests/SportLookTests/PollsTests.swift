import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite(
    "Polls in the chat: votes counted once and seen live, sign-up lists, the close and its reminder, a time poll made a series",
    .timeLimit(.minutes(10)))
struct PollsTests {
    /// Sends a poll to the room; the message as stored.
    static func poll(
        _ api: API, in room: String, token: String, _ question: String = "Which evening?", options: [String] = ["Tue", "Wed", "Thu"],
        extra: [String: Any] = [:], clientID: String = UUID().uuidString
    ) async throws -> API.ChatMessage {
        var poll: [String: Any] = ["options": options.map { ["label": $0] }]
        for (key, value) in extra { poll[key] = value }
        return try await api.post(
            "/v1/rooms/\(room)/messages", token: token, json: ["body": question, "client_id": clientID, "poll": poll]
        ).decode(API.ChatMessage.self, expecting: .created)
    }

    static func vote(_ api: API, _ room: String, _ seq: Int, _ options: [Int], token: String) async throws -> Reply {
        try await api.put("/v1/rooms/\(room)/messages/\(seq)/poll/votes", token: token, json: ["options": options])
    }

    /// A weekly series as `POST /v1/series` takes it, but its first date and time (the slot's).
    static func series(zone: String) -> [String: Any] {
        [
            "title": "Wednesday football", "sport": "football", "location": ["lat": 55.6761, "lon": 12.5683], "time_zone": zone,
            "rule": "FREQ=WEEKLY",
        ]
    }

    @Test(
        "a poll is refused with clear fields when malformed; votes are changed, counted once, and seen live on a second socket",
        arguments: engines)
    func votesCountedOnceAndLive(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 4)
            let send = { (poll: [String: Any]) in
                try await api.post(
                    "/v1/rooms/\(event)/messages", token: owner.token, json: ["body": "Q?", "client_id": UUID().uuidString, "poll": poll])
            }
            #expect(try await send(["options": [["label": "Only"]]]).errorFields["poll.options"] != nil)
            #expect(try await send(["options": (0..<11).map { ["label": "o\($0)"] }]).errorFields["poll.options"] != nil)
            #expect(try await send(["options": [["label": "Tue"], ["label": "tue"]]]).errorFields["poll.options[1].label"] != nil)
            #expect(try await send(["options": [["label": "A"], ["label": ""]]]).errorFields["poll.options[1].label"] != nil)
            #expect(try await send(["options": [["label": "A"], ["label": "B"]], "kind": "vote"]).errorFields["poll.kind"] != nil)
            let soon = RFC3339.format(clock.now().addingTimeInterval(60))
            #expect(try await send(["options": [["label": "A"], ["label": "B"]], "closes_at": soon]).errorFields["poll.closes_at"] != nil)
            #expect(
                try await send(["options": [["label": "A"], ["label": "B"]], "anonymous": true, "one_per_option": true])
                    .errorFields["poll.anonymous"] != nil)
            #expect(try await api.messages(event, token: owner.token).isEmpty, "nothing refused was stored")

            let poll = try await Self.poll(api, in: event, token: owner.token)
            #expect(poll.poll?.value1.options.map(\.label) == ["Tue", "Wed", "Thu"] && poll.poll?.value1.counts == [0, 0, 0])
            #expect(poll.poll?.value1.closed == false && poll.poll?.value1.multiple == false && poll.body == "Which evening?")

            // A second socket follows the room: once it holds the poll, only its votes come (`poll_votes`).
            let watcher = try await TestSocket.subscribed(try socketURL(api), token: people[3].token, to: event, pollVotes: true)
            try await watcher.waitFor("the poll") { $0.message?.message.seq == poll.seq }
            // An older client, which does not ask for votes alone, gets the message whole each time.
            let older = try await TestSocket.subscribed(try socketURL(api), token: people[3].token, to: event)
            // A voter's own socket: the same frames, with their own choices in them.
            let voter = try await TestSocket.subscribed(try socketURL(api), token: people[0].token, to: event, pollVotes: true)

            // Two taps each: one vote each (taps at once: remindedOnceAndClosed, where requests run concurrently).
            for (n, person) in people.prefix(3).enumerated() {
                for _ in 0..<2 {
                    let reply = try await Self.vote(api, event, poll.seq, [n == 2 ? 1 : 0], token: person.token)
                    #expect(reply.status == .ok, "\(reply.status): \(reply.text)")
                }
            }
            var seen = try await api.messages(event, token: people[0].token)[0].poll?.value1
            #expect(seen?.counts == [2, 1, 0] && seen?.votersCount == 3 && seen?.myVotes == [0])
            #expect(Set(seen?.options[0].userIds ?? []) == [people[0].id, people[1].id])
            try await watcher.waitFor("the counts, live") { $0.votes?.counts == [2, 1, 0] && $0.votes?.votersCount == 3 }
            try await older.waitFor("the counts, in the message") { $0.change?.message.poll?.value1.counts == [2, 1, 0] }
            #expect(try older.frames.allSatisfy { $0.votes == nil })
            await older.close()

            // A reaction is more than votes: the poll comes whole, then its votes alone again.
            let reacted = try await api.post(
                "/v1/rooms/\(event)/messages/\(poll.seq)/reactions", token: people[3].token, json: ["emoji": "👍"])
            #expect(reacted.status == .ok, "\(reacted.status): \(reacted.text)")
            try await watcher.waitFor("the reaction, whole") { $0.change?.message.reactions.isEmpty == false }

            // Once answered, its question stays as people read it.
            let reworded = try await api.patch("/v1/rooms/\(event)/messages/\(poll.seq)", token: owner.token, json: ["body": "Which week?"])
            #expect(reworded.status == .conflict)
            #expect(try reworded.errorCode == "poll_answered")

            // A changed vote moves, a withdrawn one goes; one choice only.
            seen = try await Self.vote(api, event, poll.seq, [2], token: people[0].token).decode(API.ChatMessage.self).poll?.value1
            #expect(seen?.counts == [1, 1, 1] && seen?.myVotes == [2])
            // The answer is the message as a read gives it, voters in the order they voted.
            let read = try await api.messages(event, token: people[0].token).first { $0.seq == poll.seq }?.poll?.value1
            #expect(read?.options.map(\.userIds) == seen?.options.map(\.userIds) && read?.myVotes == seen?.myVotes)
            #expect(read?.options.map(\.userIds) == [[people[1].id], [people[2].id], [people[0].id]])
            try await voter.waitFor("the voter's own choice, live") { $0.votes?.myVotes == [2] }
            try await watcher.waitFor("the same counts, without a choice") { $0.votes?.counts == [1, 1, 1] && $0.votes?.myVotes == [] }
            // Every change came once, in order, and none of the votes brought the message again.
            let positions = try watcher.frames.compactMap { $0.votes?.afterChange ?? $0.change?.afterChange }
            #expect(positions == positions.sorted() && Set(positions).count == positions.count, "\(positions)")
            #expect(try watcher.frames.filter { $0.change != nil }.count == 1, "only the reaction came whole")
            #expect(try watcher.frames.allSatisfy { $0.votes.map { $0.seq == poll.seq && $0.takenBy == [nil, nil, nil] } ?? true })

            // A socket resuming from before the votes is sent the poll whole first.
            let resumed = try await TestSocket.connect(try socketURL(api), token: people[3].token)
            resumed.send(["type": "subscribe", "room_id": event, "after_seq": poll.seq, "after_change": 0, "poll_votes": true])
            let first = try await resumed.waitFor("the poll, as it is now") { $0.change?.message.seq == poll.seq || $0.votes != nil }
            #expect(first.change?.message.poll?.value1.counts == [1, 1, 1])
            await resumed.close()
            await voter.close()
            #expect(try await Self.vote(api, event, poll.seq, [0, 1], token: people[0].token).errorFields["options"] != nil)
            #expect(try await Self.vote(api, event, poll.seq, [3], token: people[0].token).errorFields["options"] != nil)
            #expect(try await Self.vote(api, event, poll.seq, [1, 1], token: people[0].token).errorFields["options"] != nil)
            seen = try await Self.vote(api, event, poll.seq, [], token: people[1].token).decode(API.ChatMessage.self).poll?.value1
            #expect(seen?.counts == [0, 1, 1] && seen?.myVotes == [])
            try await watcher.waitFor("the withdrawal, live") { $0.votes?.counts == [0, 1, 1] }

            // Only the people in the room vote; a message that is no poll takes no votes.
            let (outsider, _) = try await api.register("Outsider")
            #expect(try await Self.vote(api, event, poll.seq, [0], token: outsider).status == .forbidden)
            let plain = try await api.say("plain", in: event, token: owner.token)
            #expect(try await Self.vote(api, event, plain.seq, [0], token: people[0].token).errorCode == "not_a_poll")

            // Its author closes it early: no more votes; the counts stay.
            #expect(
                try await api.post("/v1/rooms/\(event)/messages/\(poll.seq)/poll/close", token: people[0].token).errorCode == "not_yours")
            let closed = try await api.post("/v1/rooms/\(event)/messages/\(poll.seq)/poll/close", token: owner.token).decode(
                API.ChatMessage.self)
            #expect(closed.poll?.value1.closed == true && closed.poll?.value1.counts == [0, 1, 1])
            #expect(try await Self.vote(api, event, poll.seq, [0], token: people[3].token).errorCode == "poll_closed")
            try await watcher.waitFor("the close, live") { $0.change?.message.poll?.value1.closed == true }
            await watcher.close()

            // Deleting the poll takes its votes with it.
            #expect(
                try await api.delete("/v1/rooms/\(event)/messages/\(poll.seq)", token: owner.token).decode(API.ChatMessage.self).poll == nil
            )
        }
    }

    @Test(
        "an anonymous poll shows counts and each person their own choice; a sign-up list gives each option to one person",
        arguments: engines)
    func anonymousAndSignUp(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.chatRateLimit = 3 }) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 5)
            let secret = try await Self.poll(
                api, in: event, token: owner.token, "Captain?", options: ["Ann", "Bo"], extra: ["anonymous": true])
            _ = try await Self.vote(api, event, secret.seq, [1], token: people[0].token)
            _ = try await Self.vote(api, event, secret.seq, [0], token: people[1].token)
            let mine = try await api.messages(event, token: people[0].token)[0].poll?.value1
            #expect(mine?.counts == [1, 1] && mine?.myVotes == [1] && mine?.options.allSatisfy(\.userIds.isEmpty) == true)
            #expect(try await api.messages(event, token: owner.token)[0].poll?.value1.myVotes == [])
            // Blocking a voter does not take their vote out of an anonymous poll's counts (which would name it).
            #expect(try await api.post("/v1/users/\(people[0].id)/block", token: people[4].token).status == .noContent)
            #expect(try await api.messages(event, token: people[4].token)[0].poll?.value1.counts == [1, 1])

            let bring = try await Self.poll(
                api, in: event, token: owner.token, "Who brings what?", options: ["Ball", "Bibs", "Cones"],
                extra: ["one_per_option": true, "multiple": true])
            #expect(try await Self.vote(api, event, bring.seq, [0, 1], token: people[0].token).status == .ok)
            let taken = try await Self.vote(api, event, bring.seq, [1], token: people[1].token)
            #expect(taken.status == .conflict)
            #expect(try taken.errorCode == "option_taken")
            // Two at once for the cones: exactly one takes them.
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for person in people[2...3] {
                    group.addTask { try await Self.vote(api, event, bring.seq, [2], token: person.token).status.code }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(answers.sorted() == [200, 409])
            // Ann gives the bibs back; then Bo takes them.
            #expect(try await Self.vote(api, event, bring.seq, [0], token: people[0].token).status == .ok)
            let list = try await Self.vote(api, event, bring.seq, [1], token: people[1].token).decode(API.ChatMessage.self).poll?.value1
            #expect(list?.counts == [1, 1, 1] && list?.options[1].userIds == [people[1].id])
            // Votes count against the chat rate, as messages do (each goes to every socket in the room).
            for option in [0, 1, 0] { #expect(try await Self.vote(api, event, secret.seq, [option], token: people[4].token).status == .ok) }
            let fast = try await Self.vote(api, event, secret.seq, [1], token: people[4].token)
            #expect(fast.status == .tooManyRequests && fast.headers[.retryAfter] != nil)
        }
    }

    @Test(
        "people who have not voted are reminded once, a day before the close; the close comes on time and tells its author",
        arguments: engines)
    func remindedOnceAndClosed(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 5)
            // Member4 muted the room, Member3 blocked the owner: neither is reminded.
            #expect(try await api.put("/v1/rooms/\(event)/mute", token: people[4].token, json: [:]).status == .noContent)
            #expect(try await api.post("/v1/users/\(owner.id)/block", token: people[3].token).status == .noContent)
            let closesAt = clock.now().addingTimeInterval(3 * 86_400)
            let poll = try await Self.poll(api, in: event, token: owner.token, extra: ["closes_at": RFC3339.format(closesAt)])
            // Four taps at once: one vote, one change.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let reply = try await Self.vote(api, event, poll.seq, [0], token: people[0].token)
                        #expect(reply.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            let tapped = try await api.messages(event, token: owner.token)[0]
            #expect(tapped.poll?.value1.counts == [1, 0, 0] && tapped.poll?.value1.votersCount == 1 && tapped.changeSeq == 1)
            try await services.runDueJobs()
            #expect(try await api.notifications(people[1].token).filter { $0.kind == .pollReminder }.isEmpty, "not yet")

            clock.advance(by: 2 * 86_400 + 1)
            try await services.runDueJobs()
            for (n, person) in people.enumerated() {
                let reminders = try await api.notifications(person.token).filter { $0.kind == .pollReminder }
                #expect(reminders.count == (n == 1 || n == 2 ? 1 : 0), "Member\(n): \(reminders.map(\.title))")
            }
            #expect(try await api.notifications(people[1].token).first { $0.kind == .pollReminder }?.title == "Poll: Which evening?")
            clock.advance(by: 3_600)
            try await services.runDueJobs()
            #expect(try await api.notifications(people[1].token).filter { $0.kind == .pollReminder }.count == 1, "once")
            #expect(try await Self.vote(api, event, poll.seq, [1], token: people[1].token).status == .ok)

            clock.advance(by: 86_400)
            #expect(try await Self.vote(api, event, poll.seq, [1], token: people[2].token).errorCode == "poll_closed", "closed at its time")
            try await services.runDueJobs()
            let closed = try await api.messages(event, token: owner.token).first { $0.seq == poll.seq }?.poll?.value1
            #expect(closed?.closed == true && closed?.counts == [1, 1, 0])
            #expect(try await api.notifications(owner.token).filter { $0.kind == .pollClosed }.count == 1)
        }
    }

    @Test("a closed time poll becomes a weekly series at the slot's local time, once, inviting those who chose it", arguments: engines)
    func timePollBecomesSeries(engine: DatabaseEngine) async throws {
        let clock = try SeriesTests.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 4)
            let zone = "Europe/Copenhagen"
            let tuesday = try SeriesTests.tuesday(after: clock, zone: zone)
            let copenhagen = try #require(TimeZone(identifier: zone))
            let slots = [tuesday.at(minutes: 19 * 60, in: copenhagen), tuesday.adding(days: 1).at(minutes: 18 * 60 + 30, in: copenhagen)]
            let made = try await api.post(
                "/v1/rooms/\(event)/messages", token: owner.token,
                json: [
                    "body": "Which evening, every week?", "client_id": "when",
                    "poll": [
                        "kind": "time", "multiple": true,
                        "options": slots.map {
                            ["starts_at": RFC3339.format($0), "ends_at": RFC3339.format($0.addingTimeInterval(5_400))]
                        },
                    ],
                ])
            let poll = try made.decode(API.ChatMessage.self, expecting: .created)
            #expect(poll.poll?.value1.kind == .time && poll.poll?.value1.options.compactMap(\.startsAt).count == 2)
            #expect(try await Self.vote(api, event, poll.seq, [0, 1], token: people[0].token).status == .ok)
            #expect(try await Self.vote(api, event, poll.seq, [1], token: people[1].token).status == .ok)
            #expect(try await Self.vote(api, event, poll.seq, [1], token: people[2].token).status == .ok)
            #expect(try await Self.vote(api, event, poll.seq, [0], token: people[3].token).status == .ok)
            // Member2 blocked the owner since: not invited.
            #expect(try await api.post("/v1/users/\(owner.id)/block", token: people[2].token).status == .noContent)

            let path = "/v1/rooms/\(event)/messages/\(poll.seq)/poll/schedule"
            let series = Self.series(zone: zone)
            #expect(try await api.post(path, token: owner.token, json: ["option": 1, "series": series]).errorCode == "poll_open")
            _ = try await api.post("/v1/rooms/\(event)/messages/\(poll.seq)/poll/close", token: owner.token)
            #expect(try await api.post(path, token: people[0].token, json: ["option": 1, "series": series]).status == .forbidden)
            #expect(try await api.post(path, token: owner.token, json: ["option": 5, "series": series]).errorFields["option"] != nil)
            var bad = series
            bad["time_zone"] = nil
            #expect(try await api.post(path, token: owner.token, json: ["option": 1, "series": bad]).status.code == 422)

            // Two at once: one series.
            let answers = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await api.post(path, token: owner.token, json: ["option": 1, "series": Self.series(zone: zone)]) }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(answers.map(\.status.code).sorted() == [201, 409])
            struct Made: Decodable {
                var message: API.ChatMessage
                var seriesID: String?
                var gameID: String?
                var invited: [String]
                enum CodingKeys: String, CodingKey { case message, invited, seriesID = "series_id", gameID = "game_id" }
            }
            let result = try #require(answers.first { $0.status == .created }).decode(Made.self)
            #expect(result.message.poll?.value1.seriesId == result.seriesID && result.seriesID != nil)
            #expect(Set(result.invited) == [people[0].id, people[1].id], "the slot's voters, not the one who blocked the owner")
            let games = try await SeriesTests.games(services, try #require(result.seriesID))
            #expect(games.first?.date == tuesday.adding(days: 1).description && games.first?.start == slots[1])
            let invitations = try await api.invitations(people[1].token)
            #expect(invitations.map(\.eventId) == [result.gameID])
            #expect(try await api.invitations(people[3].token).isEmpty)

            // An anonymous time poll's game invites nobody: who chose the slot stays unknown.
            let secret = try await api.post(
                "/v1/rooms/\(event)/messages", token: owner.token,
                json: [
                    "body": "Which evening, quietly?", "client_id": "secret",
                    "poll": ["kind": "time", "anonymous": true, "options": slots.map { ["starts_at": RFC3339.format($0)] }],
                ]
            ).decode(API.ChatMessage.self, expecting: .created)
            #expect(try await Self.vote(api, event, secret.seq, [0], token: people[3].token).status == .ok)
            _ = try await api.post("/v1/rooms/\(event)/messages/\(secret.seq)/poll/close", token: owner.token)
            let game = try await api.post(
                "/v1/rooms/\(event)/messages/\(secret.seq)/poll/schedule", token: owner.token,
                json: [
                    "option": 0, "event": ["title": "Tuesday game", "sport": "football", "location": ["lat": 55.6761, "lon": 12.5683]],
                ]
            ).decode(Made.self, expecting: .created)
            #expect(game.invited.isEmpty && game.gameID != nil && game.message.poll?.value1.eventId == game.gameID)
            #expect(try await api.invitations(people[3].token).isEmpty)
            #expect(try await api.invitations(people[2].token).isEmpty)
        }
    }

    @Test("a poll is not there for the people its author blocked, nor its votes for those who blocked the voters", arguments: engines)
    func blockedPeopleSeeNoPoll(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 4)
            let (ann, bo, cy, di) = (people[0], people[1], people[2], people[3])
            for person in [ann, di] {
                #expect(try await api.post("/v1/users/\(person.id)/block", token: owner.token).status == .noContent)
            }
            let annSocket = try await TestSocket.subscribed(try socketURL(api), token: ann.token, to: event)
            let poll = try await Self.poll(api, in: event, token: owner.token)
            try await api.say("after the poll", in: event, token: owner.token)
            try await annSocket.waitFor("the message after the poll") { $0.message?.message.body == "after the poll" }
            #expect(
                try annSocket.frames.allSatisfy {
                    $0.message?.message.seq != poll.seq && $0.change?.message.seq != poll.seq && $0.votes == nil
                })
            #expect(try await api.messages(event, token: ann.token).map(\.seq) == [2])
            // Nor is it pushed to Di (no socket; Ann's is open): of the two messages, Di hears of the second only.
            let toDi = "kind = 'chat_message' AND UPPER(payload) LIKE '%\(di.id.uppercased())%'"
            #expect(try await count(services, "jobs", where: toDi + " AND payload LIKE '%Which evening%'") == 0)
            #expect(try await count(services, "jobs", where: toDi + " AND payload LIKE '%after the poll%'") == 1)
            #expect(
                try await count(services, "jobs", where: "kind = 'chat_message' AND payload LIKE '%Which evening%'") == 2, "Bo's and Cy's")
            #expect(try await Self.vote(api, event, poll.seq, [0], token: ann.token).status == .notFound)
            // Cy blocked Bo: Cy sees the poll without Bo's vote.
            #expect(try await api.post("/v1/users/\(bo.id)/block", token: cy.token).status == .noContent)
            _ = try await Self.vote(api, event, poll.seq, [0], token: bo.token)
            let seen = try await api.messages(event, token: cy.token).first { $0.seq == poll.seq }?.poll?.value1
            #expect(seen?.counts == [0, 0, 0] && seen?.options[0].userIds.isEmpty == true)
            #expect(try await api.messages(event, token: owner.token).first?.poll?.value1.counts == [1, 0, 0])
            await annSocket.close()
        }
    }

    @Test(
        "a group's poll stays in the group: outsiders and a member who left neither read, vote, close nor schedule it, on any route or socket",
        arguments: engines)
    func groupPollStaysInTheGroup(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public", name: "Padel club")
            #expect(try await api.post("/v1/groups/\(group.id)/membership", token: member.token).status.code < 300)
            let poll = try await Self.poll(api, in: group.id, token: owner.token, "Friday or Saturday?", options: ["Fri", "Sat"])
            #expect(try await Self.vote(api, group.id, poll.seq, [1], token: member.token).status == .ok)
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: member.token).status.code < 300)
            let base = "/v1/rooms/\(group.id)/messages/\(poll.seq)/poll"
            for person in [outsider, member] {
                for reply in [
                    try await api.get("/v1/rooms/\(group.id)/messages", token: person.token),
                    try await Self.vote(api, group.id, poll.seq, [0], token: person.token),
                    try await api.post(base + "/close", token: person.token),
                    try await api.post(base + "/schedule", token: person.token, json: ["option": 0, "event": ["title": "x"]]),
                ] {
                    #expect(reply.status == .forbidden && !reply.text.contains("Friday"), "\(reply.status): \(reply.text)")
                }
                #expect(!(try await api.rooms(person.token).items.contains { $0.id == group.id }))
                let socket = try await TestSocket.connect(try socketURL(api), token: person.token)
                socket.send(["type": "subscribe", "room_id": group.id, "after_seq": 0])
                try await socket.waitFor("the refusal") { $0.type == "error" }
                #expect(try socket.frames.allSatisfy { $0.message == nil && $0.change == nil && $0.votes == nil })
                await socket.close()
            }
            let kept = try await api.page(API.ChatMessage.self, "/v1/rooms/\(group.id)/messages", token: owner.token).items
            #expect(kept.first?.poll?.value1.counts == [0, 1], "the vote cast while a member stays")
        }
    }
}

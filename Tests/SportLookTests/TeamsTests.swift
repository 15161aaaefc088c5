import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite(
    "Fair teams: balanced against brute force, fixed players, rebalancing with the fewest moves, the timed publication",
    .timeLimit(.minutes(10)))
struct TeamsTests {
    struct Shown: Decodable {
        struct Plan: Decodable {
            var count: Int
            var method: String
            var publishMinutes: Int?
            var publishedAt: String?
            enum CodingKeys: String, CodingKey { case count, method, publishMinutes = "publish_minutes", publishedAt = "published_at" }
        }
        struct Player: Decodable {
            var id: String
            var name: String
            var fixed: Bool
        }
        struct Team: Decodable {
            var number: Int
            var players: [Player]
        }
        var plan: Plan?
        var teams: [Team]
        var unplaced: [Player]

        /// Each player's team number.
        var teamOf: [String: Int] {
            Dictionary(uniqueKeysWithValues: teams.flatMap { team in team.players.map { ($0.id, team.number) } })
        }
    }

    /// A seeded generator: the same cases on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The least cost of every assignment of the players to `teams` teams that leaves
    /// the fixed ones where they are.
    static func bruteForce(_ players: [TeamSplit.Player], teams: Int) -> TeamSplit.Cost {
        var best: TeamSplit.Cost?
        var teamOf = [Int](repeating: 0, count: players.count)
        func walk(_ i: Int) {
            if i == players.count {
                let cost = TeamSplit.cost(teamOf, players, teams: teams)
                if best == nil || cost < best! { best = cost }
                return
            }
            for t in 0..<teams where players[i].fixed == nil || players[i].fixed == t {
                teamOf[i] = t
                walk(i + 1)
            }
        }
        walk(0)
        return best!
    }

    static func randomPlayers(_ count: Int, teams: Int, fixedShare: Double, current: Bool, using g: inout SplitMix) -> [TeamSplit.Player] {
        (0..<count).map { _ in
            let fixed = Double.random(in: 0..<1, using: &g) < fixedShare ? Int.random(in: 0..<teams, using: &g) : nil
            return TeamSplit.Player(
                id: UUID(), strength: 50 * Int.random(in: 0...14, using: &g), fixed: fixed,
                current: fixed ?? (current && Bool.random(using: &g) ? Int.random(in: 0..<teams, using: &g) : nil))
        }
    }

    @Test("on small inputs the split is as good as the best of every split: sizes, then moves, then the gap; fixed players stay")
    func splitMatchesBruteForce() {
        var g = SplitMix(state: 67)
        for round in 0..<400 {
            let teams = Int.random(in: 2...4, using: &g)
            let count = Int.random(in: teams...(teams == 4 ? 7 : 8), using: &g)
            // Half the rounds rebalance published teams (some people already on one).
            let players = Self.randomPlayers(count, teams: teams, fixedShare: 0.2, current: round % 2 == 1, using: &g)
            let split = TeamSplit.split(players, teams: teams)
            let best = Self.bruteForce(players, teams: teams)
            #expect(TeamSplit.cost(split, players, teams: teams) == best, "round \(round): \(players)")
            for (i, p) in players.enumerated() where p.fixed != nil { #expect(split[i] == p.fixed, "round \(round): a fixed player moved") }
        }
    }

    @Test(
        "above the exact limit: sizes differ by at most one, fixed players stay, no swap improves two teams, a rebalance moves only the fewest"
    )
    func largeSplits() {
        var g = SplitMix(state: 2026)
        for round in 0..<20 {
            let count = Int.random(in: 16...40, using: &g)
            let players = Self.randomPlayers(count, teams: 2, fixedShare: 0.1, current: false, using: &g)
            let split = TeamSplit.split(players, teams: 2)
            let sizes = [0, 1].map { t in split.filter { $0 == t }.count }
            if players.filter({ $0.fixed == 0 }).count <= (count + 1) / 2 && players.filter({ $0.fixed == 1 }).count <= (count + 1) / 2 {
                #expect(abs(sizes[0] - sizes[1]) <= 1, "round \(round)")
            }
            for (i, p) in players.enumerated() where p.fixed != nil { #expect(split[i] == p.fixed) }
            let gap = TeamSplit.cost(split, players, teams: 2).gap
            for a in players.indices where players[a].fixed == nil {
                for b in players.indices where players[b].fixed == nil && split[b] != split[a] {
                    var swapped = split
                    swapped.swapAt(a, b)
                    #expect(TeamSplit.cost(swapped, players, teams: 2).gap >= gap, "round \(round): a swap improves the split")
                }
            }
            // Published: three leave, one joins. Only as many move as the sizes need.
            var kept = players.enumerated().map { i, p in
                TeamSplit.Player(id: p.id, strength: p.strength, fixed: p.fixed, current: split[i])
            }
            kept.removeLast(3)
            kept.append(TeamSplit.Player(id: UUID(), strength: 350))
            let again = TeamSplit.split(kept, teams: 2)
            var sizesAfter = [0, 0]
            for p in kept { if let t = p.current { sizesAfter[t] += 1 } }
            // Newcomers fill the smaller team; each player over the larger target size then moves.
            for _ in kept.filter({ $0.current == nil }) { sizesAfter[sizesAfter[0] <= sizesAfter[1] ? 0 : 1] += 1 }
            let needed = max(0, sizesAfter.max()! - (kept.count + 1) / 2)
            let moves = kept.indices.filter { kept[$0].current != nil && kept[$0].current != again[$0] }.count
            #expect(moves == needed, "round \(round): \(moves) moves where \(needed) were needed")
            let sizesNow = [0, 1].map { t in again.filter { $0 == t }.count }
            if kept.allSatisfy({ $0.fixed == nil }) { #expect(abs(sizesNow[0] - sizesNow[1]) <= 1) }
        }
    }

    @Test("a random split keeps sizes within one and fixed players where they are")
    func randomSplit() {
        var g = SplitMix(state: 7)
        for _ in 0..<100 {
            let teams = Int.random(in: 2...4, using: &g)
            let players = Self.randomPlayers(Int.random(in: 4...30, using: &g), teams: teams, fixedShare: 0.05, current: false, using: &g)
            let split = TeamSplit.random(players, teams: teams, using: &g)
            let sizes = (0..<teams).map { t in split.filter { $0 == t }.count }
            let fixedMost = (0..<teams).map { t in players.filter { $0.fixed == t }.count }.max()!
            if fixedMost <= players.count / teams { #expect(sizes.max()! - sizes.min()! <= 1) }
            for (i, p) in players.enumerated() where p.fixed != nil { #expect(split[i] == p.fixed) }
        }
    }

    static func setLevel(_ api: API, _ token: String, _ level: Double) async throws {
        #expect(try await api.patch("/v1/me/player", token: token, json: ["levels": ["football": level]]).status == .ok)
    }

    static func shown(_ api: API, _ event: String, _ token: String) async throws -> Shown {
        try await api.get("/v1/events/\(event)/teams", token: token).decode(Shown.self, expecting: .ok)
    }

    @Test(
        "the organiser publishes balanced teams to the people going; a keeper stays; a leaver and a newcomer rebalance with the fewest moves and the moved are told",
        arguments: engines)
    func publishAndRebalance(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let event = try await api.createEvent(organiser.token, startsIn: 3 * 86_400, now: clock.now()).id
            try await Self.setLevel(api, organiser.token, 3)
            var people: [(id: String, token: String, name: String)] = []
            for (name, level) in [("Ann", 6.0), ("Bo", 5.0), ("Cy", 4.0), ("Di", 3.0), ("Ed", 2.0)] {
                let person = try await api.register(name)
                try await Self.setLevel(api, person.token, level)
                try await api.join(event, token: person.token)
                people.append((person.id, person.token, name))
            }
            let stranger = try await api.register("Stranger")
            let levelOf = [organiser.id: 3.0, people[0].id: 6, people[1].id: 5, people[2].id: 4, people[3].id: 3, people[4].id: 2]
            // Going people see who is going but no teams until the organiser publishes.
            let before = try await Self.shown(api, event, people[0].token)
            #expect(before.plan == nil && before.teams.isEmpty && before.unplaced.count == 6)
            #expect(try await api.put("/v1/events/\(event)/teams", token: people[0].token, json: ["publish": true]).status == .forbidden)
            for bad: [String: Any] in [
                ["count": 5], ["count": 1], ["count": 0, "fixed": [["user_id": people[0].id, "team": 1]]],
                ["count": -3, "fixed": [["user_id": people[0].id, "team": 1]]], ["count": 4, "method": "alphabetical"],
                ["method": "alphabetical"], ["publish_minutes": -1], ["publish_minutes": 20_000],
                ["fixed": [["user_id": stranger.id, "team": 1]]], ["fixed": [["user_id": people[0].id, "team": 3]]],
                ["fixed": [["user_id": people[0].id, "team": 1], ["user_id": people[0].id, "team": 2]]],
                ["fixed": people.prefix(4).map { ["user_id": $0.id, "team": 1] }],
            ] {
                let refused = try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: bad)
                #expect(refused.status == .unprocessableContent, "\(bad): \(refused.text)")
            }
            #expect(try await services.teams.store.plan(of: UUID(uuidString: event)!) == nil, "a refused plan writes nothing")

            // Ann (6) is fixed to team 2 as a keeper.
            let published = try await api.put(
                "/v1/events/\(event)/teams", token: organiser.token,
                json: ["count": 2, "publish": true, "fixed": [["user_id": people[0].id, "team": 2]]]
            ).decode(Shown.self, expecting: .ok)
            #expect(published.plan?.publishedAt != nil && published.unplaced.isEmpty)
            let teamOf = published.teamOf
            #expect(teamOf[people[0].id] == 2)
            #expect(published.teams.map(\.players.count).sorted() == [3, 3])
            // Compared with every split of the same people with Ann fixed: the best.
            let all = published.teams.flatMap { team in
                team.players.map { p in
                    TeamSplit.Player(
                        id: UUID(uuidString: p.id)!, strength: Int(levelOf[p.id]! * 100), fixed: p.fixed ? team.number - 1 : nil)
                }
            }
            let chosenFirst = TeamSplit.cost(all.map { teamOf[$0.id.lowercased]! - 1 }, all, teams: 2)
            #expect(chosenFirst == Self.bruteForce(all, teams: 2), "\(chosenFirst)")
            // Each person going is told their own team; a stranger sees none.
            for person in people {
                try await eventually("\(person.name) told") {
                    try await api.told(person.token, .teamsPublished, about: event).first?.data.team
                        == teamOf[person.id]
                }
            }
            #expect(try await api.get("/v1/events/\(event)/teams", token: stranger.token).status == .forbidden)

            // Two of one team leave (neither the keeper nor the organiser). After the first
            // the sizes hold (3 and 2): nobody moves. After the second (3 and 1) one must.
            let leavers = [1, 2].flatMap { number in
                let ids = published.teams[number - 1].players.map(\.id).filter { $0 != people[0].id && $0 != organiser.id }
                return ids.count >= 2 ? [Array(ids.prefix(2))] : []
            }.first!
            #expect(
                try await api.delete("/v1/events/\(event)/attendance", token: people.first { $0.id == leavers[0] }!.token).status
                    == .noContent)
            let middle = try await Self.shown(api, event, organiser.token)
            #expect(middle.teamOf == teamOf.filter { $0.key != leavers[0] }, "nobody moved")
            #expect(
                try await api.delete("/v1/events/\(event)/attendance", token: people.first { $0.id == leavers[1] }!.token).status
                    == .noContent)
            let after = try await Self.shown(api, event, organiser.token)
            #expect(after.teams.map(\.players.count) == [2, 2])
            #expect(after.teamOf[people[0].id] == 2, "the keeper stays")
            let moved = middle.teamOf.filter { $0.key != leavers[1] && after.teamOf[$0.key] != $0.value }.map(\.key)
            // Compared with every split: no fewer moves are possible, and the gap is the best with that many.
            let players = all.filter { !leavers.contains($0.id.lowercased) }.map { p in
                TeamSplit.Player(id: p.id, strength: p.strength, fixed: p.fixed, current: teamOf[p.id.lowercased]! - 1)
            }
            let best = Self.bruteForce(players, teams: 2)
            let chosen = TeamSplit.cost(players.map { after.teamOf[$0.id.lowercased]! - 1 }, players, teams: 2)
            #expect(chosen == best, "\(chosen) against the best \(best)")
            #expect(moved.count == 1 && best.moves == 1)
            // Whoever moved is told their new team.
            let movedToken = people.first { $0.id == moved.first }?.token ?? organiser.token
            try await eventually("the moved player told") {
                try await api.told(movedToken, .teamMoved, about: event).first?.data.team == after.teamOf[moved[0]]
            }
            // Fay joins: placed on a team without moving anyone, and told which.
            let fay = try await api.register("Fay")
            try await Self.setLevel(api, fay.token, 4)
            try await api.join(event, token: fay.token)
            let withFay = try await Self.shown(api, event, organiser.token)
            #expect(withFay.teamOf.filter { $0.key != fay.id } == after.teamOf && withFay.teamOf[fay.id] != nil)
            try await eventually("Fay told") {
                try await api.told(fay.token, .teamsPublished, about: event).first?.data.team
                    == withFay.teamOf[fay.id]
            }

            // A random split is a choice too; taking the teams back leaves none.
            let random = try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: ["method": "random", "count": 3])
                .decode(Shown.self, expecting: .ok)
            #expect(random.plan?.method == "random" && random.teams.map(\.players.count).sorted() == [1, 2, 2])
            #expect(try await api.delete("/v1/events/\(event)/teams", token: organiser.token).status == .noContent)
            #expect(try await Self.shown(api, event, organiser.token).plan == nil)

            // Once the game starts its teams stay as they are.
            clock.advance(by: 3 * 86_400 + 60)
            let late = try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: ["publish": true])
            #expect(late.status == .conflict)
            #expect(try late.errorCode == "game_started")
        }
    }

    @Test("a published split weighs each player's level: the two strongest go to different teams, game after game", arguments: engines)
    func strongestApart(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            for round in 0..<8 {
                let organiser = try await api.register("Org\(round)")
                try await Self.setLevel(api, organiser.token, 0)
                let event = try await api.createEvent(organiser.token, startsIn: 86_400, now: clock.now()).id
                var strong: [String] = []
                for (n, level) in [7.0, 0, 7, 0, 0].enumerated() {
                    let person = try await api.register("P\(round)-\(n)")
                    try await Self.setLevel(api, person.token, level)
                    try await api.join(event, token: person.token)
                    if level == 7 { strong.append(person.id) }
                }
                let shown = try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: ["publish": true]).decode(
                    Shown.self, expecting: .ok)
                #expect(shown.teamOf[strong[0]] != shown.teamOf[strong[1]], "round \(round): \(shown.teamOf)")
            }
        }
    }

    @Test(
        "teams planned with publish_minutes are published by a job at that time, once; a draft's fixed players are the organiser's to see; a blocked person is left out of what the blocker sees",
        arguments: engines)
    func timedPublication(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let event = try await api.createEvent(organiser.token, startsIn: 86_400, now: clock.now()).id
            try await api.join(event, token: ann.token)
            try await api.join(event, token: bo.token)
            #expect(try await api.patch("/v1/me", token: bo.token, json: ["language": "da"]).status == .ok)
            let draft = try await api.put(
                "/v1/events/\(event)/teams", token: organiser.token,
                json: ["publish_minutes": 60, "fixed": [["user_id": ann.id, "team": 1]]]
            ).decode(Shown.self, expecting: .ok)
            #expect(draft.plan?.publishedAt == nil && draft.plan?.publishMinutes == 60)
            #expect(draft.teamOf == [ann.id: 1])
            // Ann sees the plan, not its fixed players.
            let asAnn = try await Self.shown(api, event, ann.token)
            #expect(asAnn.plan?.publishedAt == nil && asAnn.teamOf.isEmpty && asAnn.unplaced.count == 3)
            let due = try await services.scheduler.due(.teamsDue, of: .event(UUID(uuidString: event)!))
            #expect(due == [clock.now().addingTimeInterval(86_400 - 3_600)])

            // The start moves an hour later: so does the publication.
            #expect(
                try await api.patch(
                    "/v1/events/\(event)", token: organiser.token,
                    json: ["starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400 + 3_600))]
                ).status == .ok)
            #expect(
                try await services.scheduler.due(.teamsDue, of: .event(UUID(uuidString: event)!)) == [
                    clock.now().addingTimeInterval(86_400)
                ])
            clock.advance(by: 86_400 - 60)
            try await services.runDueJobs()
            #expect(try await Self.shown(api, event, ann.token).plan?.publishedAt == nil)
            clock.advance(by: 120)
            try await services.runDueJobs()
            let out = try await Self.shown(api, event, ann.token)
            #expect(out.plan?.publishedAt != nil && out.teamOf[ann.id] == 1 && out.teams.map(\.players.count).sorted() == [1, 2])
            try await eventually("Bo told") { try await api.told(bo.token, .teamsPublished, about: event).count == 1 }
            // In his language, as the push said it; the inbox keeps the words.
            let told = try #require(try await api.told(bo.token, .teamsPublished, about: event).first)
            #expect(told.title == "Hold til Five-a-side" && told.body == "Du spiller på hold \(out.teamOf[bo.id]!).")
            let annTold = try #require(try await api.told(ann.token, .teamsPublished, about: event).first)
            #expect(annTold.title == "Teams for Five-a-side" && annTold.body == "You play on team 1.")
            try await services.runDueJobs()
            #expect(try await api.told(bo.token, .teamsPublished, about: event).count == 1, "published once")

            // Ann blocks Bo: the teams she sees leave him out, and his leave hers.
            #expect(try await api.post("/v1/users/\(bo.id)/block", token: ann.token).status == .noContent)
            #expect(try await Self.shown(api, event, ann.token).teamOf[bo.id] == nil)
            #expect(try await Self.shown(api, event, bo.token).teamOf[ann.id] == nil)
            #expect(try await Self.shown(api, event, organiser.token).teamOf.count == 3)
        }
    }
}

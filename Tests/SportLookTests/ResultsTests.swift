import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Results that move levels: entering, confirming, disputing, standing, once and for competitive games only", .timeLimit(.minutes(10)))
struct ResultsTests {
    struct Result: Decodable {
        var scores: [Int]
        var status: String
        var enteredTeam: Int
        var levelsMoved: Bool
        @Nullable var enteredBy: API.UserSummary?
        enum CodingKeys: String, CodingKey {
            case scores, status, enteredTeam = "entered_team", levelsMoved = "levels_moved", enteredBy = "entered_by"
        }
    }
    struct History: Decodable {
        struct Move: Decodable {
            var sport: String
            var eventId: String?
            var before: Double
            var after: Double
            var level: Double
            enum CodingKeys: String, CodingKey { case sport, before, after, level, eventId = "event_id" }
        }
        var items: [Move]
    }
    struct Player: Decodable { var levels: [String: Double] }

    static func player(_ id: UUID = UUID(), _ rating: Int, games: Int = 0, rated: Bool = true) -> Ratings.Player {
        Ratings.Player(id: id, rating: rating, games: games, rated: rated)
    }

    @Test("a win moves the winners up and the losers down, more for a surprise and for players with few rated games, capped and clamped")
    func arithmetic() {
        let (a, b, c, d) = (UUID(), UUID(), UUID(), UUID())
        // Equal teams: the winners gain what the losers lose.
        let even = Ratings.update(teams: [[Self.player(a, 300, games: 20)], [Self.player(b, 300, games: 20)]], scores: [2, 1])
        #expect(even[a]! > 300 && even[b]! < 300 && even[a]! - 300 == 300 - even[b]!)
        // A draw between equals moves nobody.
        let draw = Ratings.update(teams: [[Self.player(a, 300)], [Self.player(b, 300)]], scores: [1, 1])
        #expect(draw[a] == 300 && draw[b] == 300)
        // The weaker side winning moves more than the stronger side winning.
        let upset = Ratings.update(teams: [[Self.player(a, 200, games: 20)], [Self.player(b, 400, games: 20)]], scores: [3, 0])
        let expected = Ratings.update(teams: [[Self.player(a, 400, games: 20)], [Self.player(b, 200, games: 20)]], scores: [3, 0])
        #expect(upset[a]! - 200 > expected[a]! - 400)
        // A new player moves more than a seasoned one; no move passes the cap.
        let mixed = Ratings.update(
            teams: [[Self.player(a, 300, games: 0), Self.player(c, 300, games: 30)], [Self.player(b, 300), Self.player(d, 300)]],
            scores: [5, 0])
        #expect(mixed[a]! - 300 > mixed[c]! - 300)
        let huge = Ratings.update(teams: [[Self.player(a, 0)], [Self.player(b, 700)]], scores: [9, 0])
        #expect(huge[a] == Ratings.cap && huge[b] == 700 - Ratings.cap)
        // Clamped to the scale.
        let edge = Ratings.update(teams: [[Self.player(a, 690)], [Self.player(b, 10)]], scores: [1, 0])
        #expect(edge[a]! <= 700 && edge[b]! >= 0)
        let floor = Ratings.update(teams: [[Self.player(a, 700)], [Self.player(b, 5)]], scores: [0, 1])
        #expect(floor[b]! <= 700 && floor[a]! >= 650)
        // Someone without a level weighs in but gets none.
        let unrated = Ratings.update(
            teams: [[Self.player(a, 300), Self.player(c, 350, rated: false)], [Self.player(b, 300)]], scores: [1, 0])
        #expect(unrated[c] == nil && unrated[a] != nil)
        #expect(Ratings.level(324) == Level(3) && Ratings.level(326) == Level(3.5))
    }

    /// A game of `players` (with their football levels) and its organiser, teams published.
    static func game(
        _ api: API, _ clock: ManualClock, competitive: Bool, levels: [Double]
    ) async throws -> (
        event: String, organiser: (id: String, token: String), players: [(id: String, token: String)], teams: TeamsTests.Shown
    ) {
        let organiser = try await api.register("Org")
        let event = try await api.post(
            "/v1/events", token: organiser.token,
            json: [
                "title": "Rated five-a-side", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                "ends_at": RFC3339.format(clock.now().addingTimeInterval(86_400 + 3_600)), "location": ["lat": 48.8566, "lon": 2.3522],
                "competitive": competitive,
            ]
        ).decode(API.Event.self, expecting: .created).id
        var players: [(id: String, token: String)] = []
        for (n, level) in levels.enumerated() {
            let person = try await api.register("P\(n)")
            try await TeamsTests.setLevel(api, person.token, level)
            try await api.join(event, token: person.token)
            players.append((person.id, person.token))
        }
        let teams = try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: ["publish": true]).decode(
            TeamsTests.Shown.self, expecting: .ok)
        return (event, (organiser.id, organiser.token), players, teams)
    }

    static func level(_ api: API, _ token: String) async throws -> Double? {
        try await api.get("/v1/me/player", token: token).decode(Player.self, expecting: .ok).levels["football"]
    }

    static func history(_ api: API, _ token: String) async throws -> [History.Move] {
        try await api.get("/v1/me/levels/history?sport=football", token: token).decode(History.self, expecting: .ok).items
    }

    @Test(
        "a competitive game's score, entered by one team and confirmed by another, moves each rated player's level once; the history shows it",
        arguments: engines)
    func confirmedMovesLevels(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let g = try await Self.game(api, clock, competitive: true, levels: [3, 3, 3, 3, 3])
            let team = g.teams.teamOf
            let one = g.players.filter { team[$0.id] == 1 }
            let two = g.players.filter { team[$0.id] == 2 }
            let stranger = try await api.register("Stranger")
            // Everyone may be found nearby, by their level in football.
            for p in g.players {
                let found = try await api.patch(
                    "/v1/me", token: p.token,
                    json: ["sports": ["football"], "discoverable": true, "location": ["lat": 48.8566, "lon": 2.3522]])
                #expect(found.status == .ok)
            }
            func nearby(_ level: Double) async throws -> Set<String> {
                Set(
                    try await api.allPages(
                        API.PersonNearby.self,
                        "/v1/users/nearby?lat=48.8566&lon=2.3522&radius_km=5&sport=football&min_level=\(level)&max_level=\(level)",
                        token: stranger.token
                    ).map(\.id))
            }
            try await eventually("all five at level 3") { try await nearby(3) == Set(g.players.map(\.id)) }
            // Before the start nobody enters a score.
            let early = try await api.post("/v1/events/\(g.event)/result", token: one[0].token, json: ["scores": [3, 1]])
            #expect(early.status == .conflict)
            #expect(try early.errorCode == "result_not_open")
            clock.advance(by: 86_400 + 3_600 + 60)
            #expect(
                try await api.post("/v1/events/\(g.event)/result", token: stranger.token, json: ["scores": [3, 1]]).status == .forbidden)
            for bad: [String: Any] in [["scores": [3]], ["scores": [3, 1, 2]], ["scores": [-1, 2]], ["scores": [1000, 2]], [:]] {
                let refused = try await api.post("/v1/events/\(g.event)/result", token: one[0].token, json: bad)
                #expect(refused.status == .unprocessableContent, "\(bad): \(refused.text)")
            }
            // Team 1 wins 3–1; team 2 is told and asked.
            let entered = try await api.post("/v1/events/\(g.event)/result", token: one[0].token, json: ["scores": [3, 1]]).decode(
                Result.self, expecting: .created)
            #expect(entered.status == "pending" && entered.enteredTeam == 1 && !entered.levelsMoved)
            let again = try await api.post("/v1/events/\(g.event)/result", token: two[0].token, json: ["scores": [0, 5]])
            #expect(try again.errorCode == "result_exists")
            try await eventually("team 2 asked") {
                try await api.told(two[0].token, .resultEntered, about: g.event).first?.title == "Score for Rated five-a-side: 3–1"
            }
            #expect(try await api.told(one[1].token, .resultEntered, about: g.event).isEmpty, "the entering team is not asked")
            // A teammate cannot confirm; a stranger cannot even see it.
            let own = try await api.post("/v1/events/\(g.event)/result/confirm", token: one[1].token)
            #expect(try own.errorCode == "other_team_only")
            #expect(try await api.get("/v1/events/\(g.event)/result", token: stranger.token).status == .forbidden)
            // Two of team 2 confirm at once: one confirmation counts, the levels move once.
            async let first = api.post("/v1/events/\(g.event)/result/confirm", token: two[0].token)
            async let second = api.post("/v1/events/\(g.event)/result/confirm", token: two[1].token)
            let answers = [try await first, try await second]
            #expect(answers.map(\.status.code).sorted() == [200, 409], "\(answers.map(\.text))")
            let shown = try await api.get("/v1/events/\(g.event)/result", token: one[1].token).decode(Result.self, expecting: .ok)
            #expect(shown.status == "confirmed" && shown.levelsMoved && shown.enteredBy?.id == one[0].id)
            // Someone who blocks the player who entered it sees the score, not who entered it.
            #expect(try await api.post("/v1/users/\(one[0].id)/block", token: two[0].token).status == .noContent)
            let blocked = try await api.get("/v1/events/\(g.event)/result", token: two[0].token).decode(Result.self, expecting: .ok)
            #expect(blocked.enteredBy == nil && blocked.scores == [3, 1])
            for p in one {
                let moves = try await Self.history(api, p.token)
                #expect(moves.count == 1 && moves[0].before == 3 && moves[0].after > 3 && moves[0].eventId == g.event)
            }
            for p in two {
                let moves = try await Self.history(api, p.token)
                #expect(moves.count == 1 && moves[0].after < 3)
                // A new player's first loss: a move of 0.40 to 2.60, shown as level 2.5.
                #expect(try await Self.level(api, p.token) == moves[0].level)
            }
            // The job that would have let it stand finds nothing to do; nothing moves twice.
            clock.advance(by: Results.answerWindow + 60)
            try await services.runDueJobs()
            #expect(try await Self.history(api, one[0].token).count == 1)
            let late = try await api.post("/v1/events/\(g.event)/result/dispute", token: two[0].token)
            #expect(late.status == .conflict)
            // A level set by hand replaces the rating results made; the same level keeps it.
            let me = UUID(uuidString: one[0].id)!
            func rating() async throws -> Int? {
                try await services.database.read { sql in try await services.results.store.ratings(of: [me], in: "football", on: sql) }[me]?
                    .rating
            }
            #expect(try await rating() == 340)
            #expect(try await api.patch("/v1/me/player", token: one[0].token, json: ["levels": ["football": 3.5]]).status == .ok)
            #expect(try await rating() == 340, "the same level keeps its rating")
            #expect(try await api.patch("/v1/me/player", token: one[0].token, json: ["levels": ["football": 5]]).status == .ok)
            #expect(try await rating() == 500)
            #expect(try await api.patch("/v1/me/player", token: one[0].token, json: ["levels": ["football": 3.5]]).status == .ok)
            // The people index follows through the change feed: a level filter finds each at their new level.
            try await eventually("new levels nearby") {
                let (up, down, stayed) = (try await nearby(3.5), try await nearby(2.5), try await nearby(3))
                return up == Set(one.map(\.id)) && down == Set(two.map(\.id)) && stayed.isEmpty
            }
            #expect(try await api.get("/v1/me/levels/history?sport=curling-on-mars", token: one[0].token).status == .unprocessableContent)
        }
    }

    @Test(
        "a disputed score counts for nothing; an unanswered one stands after a day; a friendly game's score moves no level",
        arguments: engines)
    func disputedStandingAndFriendly(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let rated = try await Self.game(api, clock, competitive: true, levels: [4, 4])
            let friendly = try await Self.game(api, clock, competitive: false, levels: [4, 4])
            let standing = try await Self.game(api, clock, competitive: true, levels: [2, 2])
            clock.advance(by: 86_400 + 600)
            func sides(
                _ g: (
                    event: String, organiser: (id: String, token: String), players: [(id: String, token: String)], teams: TeamsTests.Shown
                )
            )
                -> (String, String)
            {
                let team = g.teams.teamOf
                let tokens = ([g.organiser] + g.players).reduce(into: [String: String]()) { $0[$1.id] = $1.token }
                let first = team.first { $0.value == 1 }!.key
                let second = team.first { $0.value == 2 }!.key
                return (tokens[first]!, tokens[second]!)
            }
            // Disputed.
            let (r1, r2) = sides(rated)
            _ = try await api.post("/v1/events/\(rated.event)/result", token: r1, json: ["scores": [2, 0]]).decode(
                Result.self, expecting: .created)
            let disputed = try await api.post("/v1/events/\(rated.event)/result/dispute", token: r2).decode(Result.self, expecting: .ok)
            #expect(disputed.status == "disputed" && !disputed.levelsMoved)
            // Friendly, confirmed.
            let (f1, f2) = sides(friendly)
            _ = try await api.post("/v1/events/\(friendly.event)/result", token: f1, json: ["scores": [2, 0]]).decode(
                Result.self, expecting: .created)
            let confirmed = try await api.post("/v1/events/\(friendly.event)/result/confirm", token: f2).decode(Result.self, expecting: .ok)
            #expect(confirmed.status == "confirmed" && !confirmed.levelsMoved)
            // Unanswered: stands a day later, by the job, and moves levels once.
            let (s1, s2) = sides(standing)
            _ = try await api.post("/v1/events/\(standing.event)/result", token: s2, json: ["scores": [0, 4]]).decode(
                Result.self, expecting: .created)
            clock.advance(by: Results.answerWindow - 60)
            try await services.runDueJobs()
            #expect(
                try await api.get("/v1/events/\(standing.event)/result", token: s1).decode(Result.self, expecting: .ok).status == "pending")
            clock.advance(by: 120)
            try await services.runDueJobs()
            try await services.runDueJobs()
            let stood = try await api.get("/v1/events/\(standing.event)/result", token: s1).decode(Result.self, expecting: .ok)
            #expect(stood.status == "stood" && stood.levelsMoved)
            let answerLate = try await api.post("/v1/events/\(standing.event)/result/dispute", token: s1)
            #expect(try answerLate.errorCode == "result_settled")
            // Whose levels moved: only the standing game's players, once each.
            for p in [standing.organiser] + standing.players {
                let moves = try await Self.history(api, p.token)
                if p.id == standing.organiser.id {
                    #expect(moves.isEmpty, "the organiser has no football level")
                } else {
                    #expect(moves.count == 1)
                }
            }
            for p in rated.players + friendly.players { #expect(try await Self.history(api, p.token).isEmpty) }
            // After two days past the end, no score is entered.
            let late = try await Self.game(api, clock, competitive: true, levels: [3])
            clock.advance(by: 86_400 + 3_600 + Results.enterWindow + 60)
            let closed = try await api.post("/v1/events/\(late.event)/result", token: late.players[0].token, json: ["scores": [1, 0]])
            #expect(try closed.errorCode == "result_closed")
        }
    }

    @Test("whether a game is competitive is fixed once someone has joined", arguments: engines)
    func competitiveFixed(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let event = try await api.createEvent(organiser.token, now: clock.now()).id
            #expect(
                try await api.patch("/v1/events/\(event)", token: organiser.token, json: ["competitive": true]).text.contains(
                    "\"competitive\":true"))
            try await api.join(event, token: ann.token)
            let fixed = try await api.patch("/v1/events/\(event)", token: organiser.token, json: ["competitive": false])
            #expect(fixed.status == .conflict)
            #expect(try fixed.errorCode == "competitive_fixed")
            #expect(
                try await api.patch("/v1/events/\(event)", token: organiser.token, json: ["competitive": true]).status == .ok,
                "unchanged is fine")
            #expect(try await api.get("/v1/events/\(event)", token: ann.token).text.contains("\"competitive\":true"))
        }
    }

    @Test(
        "someone who left after the start has no say in the score and no level move; a cancelled game's score moves nothing",
        arguments: engines)
    func leaversAndCancelled(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let g = try await Self.game(api, clock, competitive: true, levels: [3, 3, 3])
            let team = g.teams.teamOf
            clock.advance(by: 86_400 + 60)
            // A player leaves during the game.
            let leaver = g.players[0]
            #expect(try await api.delete("/v1/events/\(g.event)/attendance", token: leaver.token).status == .noContent)
            let refused = try await api.post("/v1/events/\(g.event)/result", token: leaver.token, json: ["scores": [1, 0]])
            #expect(try refused.errorCode == "not_on_a_team")
            let tokens = ([g.organiser] + g.players).reduce(into: [String: String]()) { $0[$1.id] = $1.token }
            let mate = team.first { $0.key != leaver.id && $0.value == team[leaver.id] }!.key
            let rival = team.first { $0.value != team[leaver.id] }!.key
            _ = try await api.post("/v1/events/\(g.event)/result", token: tokens[mate]!, json: ["scores": [2, 2]]).decode(
                Result.self, expecting: .created)
            #expect(try await api.post("/v1/events/\(g.event)/result/confirm", token: leaver.token).status == .forbidden)
            _ = try await api.post("/v1/events/\(g.event)/result/confirm", token: tokens[rival]!).decode(Result.self, expecting: .ok)
            #expect(try await Self.history(api, leaver.token).isEmpty, "the leaver's level stays")

            // A cancelled game: its pending score neither stands nor is confirmed.
            let c = try await Self.game(api, clock, competitive: true, levels: [3, 3, 3])
            clock.advance(by: 86_400 + 60)
            let cTeam = c.teams.teamOf
            let cTokens = ([c.organiser] + c.players).reduce(into: [String: String]()) { $0[$1.id] = $1.token }
            let first = cTeam.first { $0.value == 1 }!.key
            let second = cTeam.first { $0.value == 2 }!.key
            _ = try await api.post("/v1/events/\(c.event)/result", token: cTokens[first]!, json: ["scores": [5, 0]]).decode(
                Result.self, expecting: .created)
            #expect(try await api.delete("/v1/events/\(c.event)", token: c.organiser.token).status.code < 300)
            let late = try await api.post("/v1/events/\(c.event)/result/confirm", token: cTokens[second]!)
            #expect(try late.errorCode == "event_cancelled")
            clock.advance(by: Results.answerWindow + 60)
            try await services.runDueJobs()
            for p in c.players { #expect(try await Self.history(api, p.token).isEmpty) }
        }
    }
}

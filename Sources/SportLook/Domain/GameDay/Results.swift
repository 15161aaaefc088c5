import Foundation

/// Results that move levels. From the start until two days after the end, a player on
/// one of the published teams enters the score; a player of another team confirms or
/// disputes it within a day, after which an unanswered score stands (a `result_stands`
/// job). A disputed score counts for nothing. The counting score of a competitive game
/// moves, once, the level of each player who has one in the sport (``Ratings``), kept
/// as a history the player sees; new levels reach the indexes through the change feed,
/// as a level set by hand does. Results are seen by the people going alone.
struct Results: Sendable {
    let store: ResultStore
    let teams: TeamStore
    let events: EventStore
    let players: PlayerStore
    let accounts: AccountStore
    let notifier: Notifier
    let scheduler: Scheduler
    let access: EventAccess
    let blocks: Blocks
    let write: Writer
    let clock: any AppClock

    /// How long after the end a score may still be entered.
    static let enterWindow: TimeInterval = 48 * 3_600
    /// How long another team has to confirm or dispute it.
    static let answerWindow: TimeInterval = 24 * 3_600
    static let scores = 0...999

    struct Input: Decodable, Sendable {
        var scores: [Int]?
    }

    /// The caller, a player of a team, enters the score: one number per team, in the
    /// teams' order.
    func enter(_ id: UUID, by user: UUID, _ input: Input) async throws -> GameResult {
        var v = Validator()
        let scores = input.scores ?? []
        if input.scores == nil { v.fail("scores", Sentence("is required: one score for each team, in the teams' order")) }
        v.check(scores.count <= Teams.teamCounts.upperBound, "scores", Sentence("must give one score for each team (2 to 4)"))
        v.check(scores.allSatisfy(Self.scores.contains), "scores", Sentence("must be whole numbers from 0 to 999"))
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard now >= event.startsAt else {
                throw DomainError.conflict(
                    "result_not_open", Sentence("The score is entered from the start, \(RFC3339.format(event.startsAt))."))
            }
            guard now <= event.endsAt.addingTimeInterval(Self.enterWindow) else {
                throw DomainError.conflict("result_closed", Sentence("Scores are entered until two days after the end."))
            }
            guard let plan = try await teams.plan(of: id, on: sql), plan.publishedAt != nil else {
                throw DomainError.conflict("no_teams", Sentence("The game had no teams: there is no score to enter."))
            }
            let teamOf = try await teams(of: event, on: sql)
            guard let mine = teamOf[user] else {
                throw DomainError.forbidden("not_on_a_team", Sentence("Only the players of a team enter the score."))
            }
            guard scores.count == plan.count else {
                throw DomainError.validation(["scores": Sentence("must give one score for each of the \(plan.count) teams, in their order")]
                )
            }
            guard try await store.result(of: id, on: sql) == nil else {
                throw DomainError.conflict("result_exists", Sentence("The score was entered already."))
            }
            let name = try await accounts.user(user, on: sql)?.name ?? ""
            let result = GameResult(
                eventID: id, scores: scores, enteredBy: UserSummary(id: user, name: name), enteredTeam: mine, enteredAt: now,
                status: .pending)
            try await store.insert(result, on: sql)
            try await scheduler.schedule(
                .resultStands(event: id, enteredAt: now), dedupeKey: "result_stands:\(id.lowercased):\(now.millisecondsSince1970)",
                after: Self.answerWindow, on: sql)
            changes.record(.jobs)
            let others = teamOf.filter { $0.value != mine }.map(\.key)
            try await notifier.resultEntered(
                event, scores: scores, by: UserSummary(id: user, name: name), to: others, at: now, on: sql, changes: &changes)
            return result
        }
    }

    /// A player of another team than the one that entered the score confirms it (it
    /// counts) or disputes it (it counts for nothing).
    func answer(_ id: UUID, by user: UUID, confirming: Bool) async throws -> GameResult {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard let result = try await store.result(of: id, on: sql) else { throw DomainError.notFound(.result) }
            let teamOf = try await teams(of: event, on: sql)
            guard let mine = teamOf[user], mine != result.enteredTeam else {
                throw DomainError.forbidden("other_team_only", Sentence("A player of another team confirms or disputes the score."))
            }
            guard result.status == .pending else {
                let settled =
                    switch result.status {
                    case .confirmed: Sentence("The score is already confirmed.")
                    case .disputed: Sentence("The score is already disputed.")
                    case .pending, .stood: Sentence("The score already stands.")
                    }
                throw DomainError.conflict("result_settled", settled)
            }
            guard now <= result.enteredAt.addingTimeInterval(Self.answerWindow) else {
                throw DomainError.conflict("answer_closed", Sentence("A score is answered within a day of being entered."))
            }
            _ = try await store.settle(id, as: confirming ? .confirmed : .disputed, by: user, at: now, on: sql)
            try await scheduler.unschedule(.resultStands, of: .event(id), on: sql)
            if confirming { try await apply(event, scores: result.scores, teamOf: teamOf, at: now, on: sql, changes: &changes) }
            return try await store.result(of: id, on: sql) ?? result
        }
    }

    /// Runs the due `result_stands` job: a score entered at `enteredAt` that nobody
    /// answered stands, and counts.
    func stand(_ id: UUID, enteredAt: Date) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await events.lock(id, on: sql), event.status == .active,
                let result = try await store.result(of: id, on: sql),
                result.enteredAt.millisecondsSince1970 == enteredAt.millisecondsSince1970,
                try await store.settle(id, as: .stood, by: nil, at: now, on: sql)
            else { return }
            try await apply(
                event, scores: result.scores, teamOf: try await teams(of: event, on: sql), at: now, on: sql, changes: &changes)
        }
    }

    /// Who of the people going is on which team (numbered from 0): someone who left or was
    /// removed after the start keeps no say in the score.
    private func teams(of event: Event, on sql: DatabaseSession) async throws -> [UUID: Int] {
        var out: [UUID: Int] = [:]
        for member in try await teams.lineup(event: event.id, sport: event.sport, on: sql) { out[member.user.id] = member.team }
        return out
    }

    /// Moves the levels of a competitive game's players by its counting score, once.
    private func apply(
        _ event: Event, scores: [Int], teamOf: [UUID: Int], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        guard event.competitive, try await store.markApplied(event.id, at: now, on: sql) else { return }
        let people = Array(teamOf.keys)
        let rated = try await store.ratings(of: people, in: event.sport, on: sql)
        let known = rated.values.map(\.rating)
        let standIn = known.isEmpty ? Teams.defaultStrength : known.reduce(0, +) / known.count
        // A team nobody is on any more (all left) is no opponent: it is left out.
        let playing = scores.indices.filter { team in teamOf.values.contains(team) }
        guard playing.count >= 2 else { return }
        let sides = playing.map { team in
            teamOf.filter { $0.value == team }.map { id, _ in
                Ratings.Player(id: id, rating: rated[id]?.rating ?? standIn, games: rated[id]?.games ?? 0, rated: rated[id] != nil)
            }
        }
        for (user, after) in Ratings.update(teams: sides, scores: playing.map { scores[$0] }) {
            guard let before = rated[user] else { continue }
            try await store.rate(
                user, in: event.sport, from: before.rating, to: after, level: Ratings.level(after), games: before.games + 1,
                event: event.id, at: now, on: sql)
            try await players.touch(user, at: now, on: sql)
            if let row = try await accounts.user(user, on: sql) { changes.profile(row) }
        }
    }

    /// The score, to the people going (403 `attendees_private` to anyone else; 404
    /// `result` when none was entered).
    func result(_ id: UUID, for viewer: UUID) async throws -> GameResult {
        try await access.require(id, for: viewer)
        guard EventAccess.seesAttendance(try await events.attendances(user: viewer, events: [id])[id]) else {
            throw DomainError.forbidden("attendees_private", Sentence("Only the people going see the score."))
        }
        guard var result = try await store.result(of: id) else { throw DomainError.notFound(.result) }
        // People blocked either way do not see each other's names.
        let hidden = try await blocks.eitherWay(viewer)
        if let person = result.enteredBy, hidden.contains(person.id) { result.enteredBy = nil }
        if let person = result.answeredBy, hidden.contains(person.id) { result.answeredBy = nil }
        return result
    }

    /// The caller's level moves, newest first: in one sport, or every sport.
    func history(of user: UUID, sport: String?) async throws -> [LevelChange] {
        var moves = try await Database.lagTolerant { try await store.history(of: user, sport: sport, limit: 100) }
        // A game of a group they have left keeps its place without its title.
        let hidden = try await access.hidden(Set(moves.compactMap(\.eventID)), from: user)
        for i in moves.indices where moves[i].eventID.map(hidden.contains) == true { moves[i].eventTitle = nil }
        return moves
    }
}

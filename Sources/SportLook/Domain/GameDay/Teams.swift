import Foundation

/// Fair teams. The organiser of a game sets a plan — 2 to 4 teams, balanced by strength
/// or at random, players fixed to a team (a keeper) — and publishes it, by hand or
/// through a job `publish_minutes` before the start. Published teams are shown to the
/// people going alone (the rule of ``EventAccess/seesAttendance(_:)``); until the start,
/// every join, leave and promotion rebalances them with the fewest moves
/// (``TeamSplit``), and the people moved, or newly placed, are told.
struct Teams: Sendable {
    let store: TeamStore
    let events: EventStore
    let notifier: Notifier
    let scheduler: Scheduler
    let blocks: Blocks
    let access: EventAccess
    let write: Writer
    let clock: any AppClock

    /// The strength (level in hundredths) of someone with no level in the sport, among
    /// people none of whom has one.
    static let defaultStrength = 350
    /// Players the organiser may fix at once.
    static let maxFixed = 200
    static let teamCounts = 2...4
    /// `publish_minutes`: up to a week before the start.
    static let publishMinutes = 0...10_080

    /// `PUT /v1/events/{id}/teams`.
    struct Input: Decodable, Sendable {
        struct Fixed: Decodable, Sendable {
            var userID: UUID
            /// Numbered from 1.
            var team: Int
            // Keys arrive converted from snake case (`user_id` as `userId`).
            enum CodingKeys: String, CodingKey { case userID = "userId", team }
        }
        var count: Patch<Int> = .absent
        var method: Patch<String> = .absent
        var publishMinutes: Patch<Int> = .absent
        var fixed: Patch<[Fixed]> = .absent
        var publish: Patch<Bool> = .absent

        enum CodingKeys: String, CodingKey { case count, method, publishMinutes, fixed, publish }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            count = try c.patch(.count)
            method = try c.patch(.method)
            publishMinutes = try c.patch(.publishMinutes)
            fixed = try c.patch(.fixed)
            publish = try c.patch(.publish)
        }
    }

    /// What the viewer sees: the plan (nil without one) and everyone going, each with
    /// their team once published (the organiser also sees a draft's fixed players).
    struct Sheet: Sendable {
        var plan: TeamPlan?
        var members: [TeamMember]
    }

    // MARK: - The organiser's plan

    /// Sets the plan; publishes it (a fresh split, everyone told) when asked to, or when
    /// teams were already out.
    func plan(_ id: UUID, by organiser: UUID, _ input: Input) async throws -> Sheet {
        var v = Validator()
        let count = v.nonNull(input.count, "count") ?? 2
        v.check(Self.teamCounts.contains(count), "count", Sentence("must be 2, 3 or 4"))
        let methodText = v.nonNull(input.method, "method") ?? TeamMethod.balanced.rawValue
        let method = TeamMethod(rawValue: methodText)
        if method == nil { v.fail("method", Sentence("must be balanced or random")) }
        let minutes = input.publishMinutes.given
        if let minutes {
            v.check(Self.publishMinutes.contains(minutes), "publish_minutes", Sentence("must be 0 to 10080 (a week), or null"))
        }
        let fixed = v.nonNull(input.fixed, "fixed") ?? []
        v.check(fixed.count <= Self.maxFixed, "fixed", Sentence("must name at most \(Self.maxFixed) players"))
        // (A range of a count refused above would trap.)
        if Self.teamCounts.contains(count) {
            v.check(fixed.allSatisfy { (1...count).contains($0.team) }, "fixed", Sentence("names a team from 1 to \(count)"))
        }
        v.check(Set(fixed.map(\.userID)).count == fixed.count, "fixed", Sentence("names a player twice"))
        let publishNow = v.nonNull(input.publish, "publish") ?? false
        try v.throwIfInvalid()
        let now = clock.now()
        let hidden = try await blocks.eitherWay(organiser)
        return try await write { [self] sql, changes in
            let event = try await organised(id, by: organiser, at: now, on: sql)
            let lineup = try await store.lineup(event: id, sport: event.sport, on: sql)
            // People blocked either way are not the organiser's to place, nor to see.
            let going = Set(lineup.map(\.user.id)).subtracting(hidden)
            var v = Validator()
            v.check(fixed.allSatisfy { going.contains($0.userID) }, "fixed", Sentence("names someone who is not going"))
            let largest = (lineup.count + count - 1) / count
            for team in 1...count where fixed.filter({ $0.team == team }).count > max(largest, 1) {
                v.fail("fixed", Sentence("fixes more players to team \(team) than a team of \(lineup.count) going holds (\(largest))"))
            }
            v.check(count <= max(lineup.count, 2), "count", Sentence("must not be more teams than the \(lineup.count) people going"))
            try v.throwIfInvalid()
            let previous = try await store.plan(of: id, on: sql)
            let publish = publishNow || previous?.publishedAt != nil
            let plan = TeamPlan(
                eventID: id, count: count, method: method ?? .balanced, publishMinutes: minutes, publishedAt: publish ? now : nil,
                updatedAt: now)
            try await store.save(plan, on: sql)
            let pinned = Dictionary(uniqueKeysWithValues: fixed.map { ($0.userID, $0.team - 1) })
            // Each as the lineup has them (their rating with them), placed by the new plan alone.
            let members = lineup.map { member in
                var placed = member
                placed.team = pinned[member.user.id]
                placed.fixed = placed.team != nil
                return placed
            }
            if publish {
                try await scheduler.unschedule(.teamsDue, of: .event(id), on: sql)
                try await self.publish(plan, event, members, at: now, on: sql, changes: &changes)
            } else {
                // (``schedule(_:_:at:on:changes:)`` drops the job it replaces.)
                try await store.setTeams(event: id, members.compactMap { m in m.team.map { (m.user.id, $0, true) } }, on: sql)
                try await schedule(event, plan, at: now, on: sql, changes: &changes)
            }
            return Sheet(
                plan: plan, members: try await store.lineup(event: id, sport: event.sport, on: sql).filter { !hidden.contains($0.user.id) })
        }
    }

    /// Takes the teams back: the plan, the teams and any job to publish them go.
    func clear(_ id: UUID, by organiser: UUID) async throws {
        let now = clock.now()
        try await write { [self] sql, _ in
            _ = try await organised(id, by: organiser, at: now, on: sql)
            try await store.delete(event: id, on: sql)
            try await scheduler.unschedule(.teamsDue, of: .event(id), on: sql)
        }
    }

    /// The locked event, when `organiser` is its organiser and it has not started.
    private func organised(_ id: UUID, by organiser: UUID, at now: Date, on sql: DatabaseSession) async throws -> Event {
        guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
        guard event.organiserID == organiser else {
            throw DomainError.forbidden("organiser_only", Sentence("Only the organiser makes the teams."))
        }
        guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
        guard now < event.startsAt else {
            throw DomainError.conflict("game_started", Sentence("The game has started: its teams stay as they are."))
        }
        return event
    }

    // MARK: - Seeing them

    /// The teams as `viewer` may see them: 404 for an event they may not see, 403
    /// `attendees_private` unless they are going.
    func sheet(_ id: UUID, for viewer: UUID) async throws -> Sheet {
        try await access.require(id, for: viewer)
        guard let event = try await events.event(id) else { throw DomainError.notFound(.event) }
        let lineup = try await store.lineup(event: id, sport: event.sport)
        guard lineup.contains(where: { $0.user.id == viewer }) else {
            throw DomainError.forbidden("attendees_private", Sentence("Only the people going see who is on which team."))
        }
        let plan = try await store.plan(of: id)
        let hidden = try await blocks.eitherWay(viewer)
        var members = lineup.filter { !hidden.contains($0.user.id) }
        // A draft's fixed players are the organiser's to see.
        if plan?.publishedAt == nil && viewer != event.organiserID {
            for i in members.indices {
                members[i].team = nil
                members[i].fixed = false
            }
        }
        return Sheet(plan: plan, members: members)
    }

    // MARK: - Publishing and following

    /// Splits everyone going afresh by the plan, stores it and tells each their team.
    private func publish(
        _ plan: TeamPlan, _ event: Event, _ members: [TeamMember], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let players = Self.players(members, event: event, keepingTeams: false)
        var generator = SystemRandomNumberGenerator()
        let teamOf =
            plan.method == .random
            ? TeamSplit.random(players, teams: plan.count, using: &generator) : TeamSplit.split(players, teams: plan.count)
        try await store.setTeams(event: event.id, members.indices.map { (members[$0].user.id, teamOf[$0], members[$0].fixed) }, on: sql)
        try await notifier.teams(
            .published, event, people: members.indices.map { (members[$0].user.id, teamOf[$0]) }, at: now, on: sql, changes: &changes)
    }

    /// After the people going changed (inside the change's transaction, the event
    /// locked): published teams of a game not started yet take newcomers in and lose
    /// leavers, rebalanced with the fewest moves; the moved and the newly placed are told.
    func follow(_ event: Event, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        guard event.status == .active, now < event.startsAt, let plan = try await store.plan(of: event.id, on: sql),
            plan.publishedAt != nil
        else { return }
        let members = try await store.lineup(event: event.id, sport: event.sport, on: sql)
        let placed = try await store.placedCount(event: event.id, on: sql)
        // Nobody new and nobody gone: every row is someone going.
        if members.allSatisfy({ $0.team != nil }) && placed == members.count { return }
        let players = Self.players(members, event: event, keepingTeams: true)
        let teamOf = TeamSplit.split(players, teams: plan.count)
        try await store.setTeams(event: event.id, members.indices.map { (members[$0].user.id, teamOf[$0], members[$0].fixed) }, on: sql)
        let moved = members.indices.filter { members[$0].team != nil && members[$0].team != teamOf[$0] }
        let new = members.indices.filter { members[$0].team == nil }
        try await notifier.teams(
            .moved, event, people: moved.map { (members[$0].user.id, teamOf[$0]) }, at: now, on: sql, changes: &changes)
        try await notifier.teams(
            .published, event, people: new.map { (members[$0].user.id, teamOf[$0]) }, at: now, on: sql, changes: &changes)
    }

    /// The split's players: strength from the rating of the level in the event's sport,
    /// which results move (someone without one counts as the mean of those with one, else
    /// the middle of the event's range, else ``defaultStrength``); a rebalance keeps where
    /// each person is.
    static func players(_ members: [TeamMember], event: Event, keepingTeams: Bool) -> [TeamSplit.Player] {
        let known = members.compactMap(\.rating)
        let fallback =
            known.isEmpty
            ? event.levelRange.map { ($0.lowerBound.halves + $0.upperBound.halves) * 25 } ?? defaultStrength
            : known.reduce(0, +) / known.count
        return members.map { m in
            TeamSplit.Player(
                id: m.user.id, strength: m.rating ?? fallback, fixed: m.fixed ? m.team : nil,
                current: keepingTeams ? m.team : nil)
        }
    }

    // MARK: - The timed publication

    /// Queues the publication `publish_minutes` before the start (at once when that is past).
    func schedule(_ event: Event, _ plan: TeamPlan, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        try await scheduler.unschedule(.teamsDue, of: .event(event.id), on: sql)
        guard let minutes = plan.publishMinutes, plan.publishedAt == nil, event.status == .active, now < event.startsAt else { return }
        let due = event.startsAt.addingTimeInterval(-Double(minutes) * 60)
        try await scheduler.schedule(
            .teamsDue(event: event.id, startsAt: event.startsAt),
            dedupeKey:
                "teams_due:\(event.id.lowercased):\(event.startsAt.millisecondsSince1970):\(minutes):\(plan.updatedAt.millisecondsSince1970)",
            after: max(0, due.timeIntervalSince(now)), on: sql)
        changes.record(.jobs)
    }

    /// A moved start moves the publication still to come.
    func startMoved(_ event: Event, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        guard let plan = try await store.plan(of: event.id, on: sql) else { return }
        try await schedule(event, plan, at: now, on: sql, changes: &changes)
    }

    /// Runs the due publication of a game starting at `startsAt`: a game whose start
    /// moved since, or whose teams are out or gone, is left alone.
    func publishDue(_ id: UUID, startingAt startsAt: Date) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await events.lock(id, on: sql), event.status == .active,
                event.startsAt.millisecondsSince1970 == startsAt.millisecondsSince1970,
                now < event.endsAt, let plan = try await store.plan(of: id, on: sql), plan.publishedAt == nil,
                plan.publishMinutes != nil
            else { return }
            var published = plan
            published.publishedAt = now
            try await store.save(published, on: sql)
            let members = try await store.lineup(event: id, sport: event.sport, on: sql)
            try await publish(published, event, members, at: now, on: sql, changes: &changes)
        }
    }
}

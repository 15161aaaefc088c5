import Foundation
import GeoGrid
import Metrics

/// A substitute from nearby. A player going who cannot come asks for someone to take
/// their place. With people on the waitlist, leaving gives it to them as always (409
/// `waitlist_first`); otherwise the place is offered to one person the player names, or
/// to up to ``maxOffers`` people the people index finds near the game — discoverable,
/// playing its sport at a level inside its range, of its audience, not blocked by or
/// blocking anyone going, with a record the game (or ``defaultRule``) accepts — nearest
/// first. The first to accept takes the place under the event's lock, the others'
/// offers end, and the player leaves with no late cancellation: the place was filled.
/// Offers run out before the start (a `substitute_expiry` job); requests are limited per
/// person and per game.
struct Substitutes: Sendable {
    let store: SubstituteStore
    let events: EventService
    let index: UserIndex
    let sports: SportCatalog
    let blocks: Blocks
    let access: EventAccess
    let accounts: AccountStore
    let notifier: Notifier
    let scheduler: Scheduler
    let write: Writer
    let clock: any AppClock

    static let maxOffers = 20
    /// How far from the game the index looks, in kilometres.
    static let radiusKm = 15.0
    /// How many of the nearest people the index hands over at a time, and checks at most.
    static let candidates = 200
    static let maxChecked = 1_000
    /// People whose rules are read at once.
    static let batch = 32
    /// Requests a person may make in a day, and a game may have in all.
    static let perPersonPerDay = 3
    static let perGame = 5
    /// Offers run out this long before the start, and hold at most ``holdFor``.
    static let closesBeforeStart: TimeInterval = 30 * 60
    static let holdFor: TimeInterval = 6 * 3_600
    /// The record a substitute needs when the game asks for none.
    static let defaultRule = RecordRule(lastGames: 10, maxNoShows: 2)

    struct Input: Decodable, Sendable {
        /// Offer the place to this person alone.
        var userID: UUID?

        init(userID: UUID? = nil) { self.userID = userID }

        /// Keys arrive converted from snake case (`user_id` as `userId`). An unknown key
        /// is refused: a misspelt `user_id` must not offer the place to twenty strangers.
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            if let unknown = c.allKeys.first(where: { $0.stringValue != "userId" }) {
                throw DecodingError.dataCorruptedError(
                    forKey: unknown, in: c, debugDescription: "unknown field: only user_id may be given")
            }
            userID = try c.decodeIfPresent(UUID.self, forKey: Key(stringValue: "userId"))
        }
    }

    /// The caller asks for a substitute at game `id`.
    func request(_ id: UUID, by user: UUID, _ input: Input) async throws -> SubstituteRequest {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await events.store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.status == .active else { throw DomainError.conflict("event_cancelled", Sentence("The event is cancelled.")) }
            guard event.organiserID != user else {
                throw DomainError.conflict(
                    "organiser_cannot_leave", Sentence("The organiser cannot hand the game on; cancel the event instead."))
            }
            guard try await events.store.attendance(event: id, user: user, on: sql)?.status == .going else {
                throw DomainError.forbidden("not_going", Sentence("Only a player going can ask for a substitute."))
            }
            let closes = event.startsAt.addingTimeInterval(-Self.closesBeforeStart)
            guard now < closes else {
                throw DomainError.conflict("too_late", Sentence("Substitutes are asked for until 30 minutes before the start."))
            }
            guard event.waitlistCount == 0 else {
                throw DomainError.conflict(
                    "waitlist_first", Sentence("People are waiting for a place: leave, and the first of them takes yours."))
            }
            if try await store.open(event: id, requester: user, at: now, on: sql) != nil {
                throw DomainError.conflict("substitute_asked", Sentence("You already asked for a substitute for this game."))
            }
            let counts = try await store.counts(requester: user, since: now.addingTimeInterval(-86_400), event: id, on: sql)
            guard counts.byPerson < Self.perPersonPerDay, counts.forEvent < Self.perGame else {
                throw DomainError.tooManyRequests(
                    retryAfter: 3_600, code: "too_many_substitute_requests",
                    message:
                        Sentence(
                            "Substitutes are asked for at most \(Self.perPersonPerDay) times a day, and \(Self.perGame) times for one game."
                        ))
            }
            let going = Set(try await events.store.goingIDs(event: id, on: sql))
            // An account staff limited reaches no one, and a named person the game cannot
            // take is not told: either way the answer is the same as a delivered offer, so
            // that nobody learns another's blocks, record, level or gender by naming them.
            let limited = try await accounts.user(user, on: sql)?.limited ?? true
            var people: [UUID] = []
            var offeredCount = 0
            if let named = input.userID {
                offeredCount = 1
                if !limited, named != user, let person = try await accounts.user(named, on: sql), !person.isDeleted,
                    !person.suspended(at: now), try await eligible(named, for: event, going: going, at: now, on: sql)
                {
                    people = [named]
                }
            } else {
                people = limited ? [] : try await candidates(for: event, going: going, at: now, on: sql)
                guard !people.isEmpty else {
                    throw DomainError.conflict("no_substitutes", Sentence("Nobody nearby who plays this game can take the place now."))
                }
                offeredCount = people.count
            }
            let name = try await accounts.user(user, on: sql)?.name ?? ""
            let request = SubstituteRequest(
                id: UUID(), eventID: id, requester: UserSummary(id: user, name: name), status: .open, createdAt: now,
                expiresAt: min(closes, now.addingTimeInterval(Self.holdFor)).wholeMilliseconds, offered: offeredCount)
            try await store.insert(request, offeredTo: people, on: sql)
            try await scheduler.schedule(
                .substituteExpiry(event: id, request: request.id, expiresAt: request.expiresAt),
                dedupeKey: "substitute_expiry:\(request.id.lowercased)", after: request.expiresAt.timeIntervalSince(now), on: sql)
            try await notifier.substituteOffer(event, request: request, to: people, at: now, on: sql, changes: &changes)
            return request
        }
    }

    /// The people the index finds near the game, nearest first, who may take the place.
    func candidates(for event: Event, going: Set<UUID>, at now: Date, on sql: DatabaseSession) async throws -> [UUID] {
        guard index.isWarm else { throw DomainError.warmingUp }
        guard let bit = sports[event.sport]?.bit else { return [] }
        let grid: GeoGrid
        let filter: GeoFilter
        if let levels = event.levelRange {
            guard let levelGrid = index.levelGrid(sportBit: bit) else { return [] }
            grid = levelGrid
            filter = GeoFilter(traitGroups: SIMD4(GameTraits.levels(levels), 0, 0, 0))
        } else {
            grid = index.grid
            filter = GeoFilter(anyOf: sports.mask(of: [event.sport]))
        }
        // Pages of the nearest, until enough pass or the disc (or the bound on the work
        // done under the event's lock) is used up; the game's rules read for a batch of
        // them at once.
        var out: [UUID] = []
        var after: GeoCursor?
        var checked = 0
        let blocked = try await blockedByGoing(going, on: sql)
        // The time spent in the index alone, the rules' reads aside (`/metrics`).
        var searching: Duration = .zero
        defer {
            let (seconds, attoseconds) = searching.components
            Timer(label: "sportlook_substitute_search_seconds").recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
        while out.count < Self.maxOffers, checked < Self.maxChecked {
            let started = ContinuousClock.now
            let hits = grid.search(
                within: Self.radiusKm * 1_000, of: event.location.geoPoint, filter: filter, after: after, limit: Self.candidates)
            searching += ContinuousClock.now - started
            var batch = hits[...]
            while out.count < Self.maxOffers, !batch.isEmpty {
                // A few more than are still wanted: most people near a game may take it.
                let take = batch.prefix(Swift.max(Self.batch, 2 * (Self.maxOffers - out.count)))
                batch = batch.dropFirst(take.count)
                checked += take.count
                let people = take.map { UUID(geoKey: $0.entry.key) }
                let passed = try await eligible(among: people, for: event, going: going, blocked: blocked, at: now, on: sql)
                out += people.filter(passed.contains).prefix(Self.maxOffers - out.count)
            }
            guard hits.count == Self.candidates, let last = hits.last else { break }
            after = last.cursor
        }
        return out
    }

    /// Whether `person` may take a place at `event` (``eligible(among:for:going:blocked:at:on:)``).
    func eligible(_ person: UUID, for event: Event, going: Set<UUID>, at now: Date, on sql: DatabaseSession) async throws -> Bool {
        let blocked = try await blockedByGoing(going, on: sql)
        guard try await eligible(among: [person], for: event, going: going, blocked: blocked, at: now, on: sql).contains(person) else {
            return false
        }
        // The membership held as a join holds it: a removal from the group waits for this write.
        do { try await events.requireInGroup(event, user: person, on: sql) } catch is DomainError { return false }
        return true
    }

    /// Everyone blocked by, or blocking, someone going: read in the transaction that holds
    /// the game's lock (a read on a connection of its own would wait for one while this one
    /// is held: requests at once took a pool's every connection so, and waited out
    /// DATABASE_TIMEOUT).
    private func blockedByGoing(_ going: Set<UUID>, on sql: DatabaseSession) async throws -> Set<UUID> {
        try await blocks.safety.blockedEitherWay(among: going, on: sql).values.reduce(into: []) { $0.formUnion($1) }
    }

    /// Those of `people` who may take a place at `event`: not there already, not blocked
    /// by or blocking anyone going (`blocked`), and admitted by the game's rules (its
    /// group, bans, level, audience, and a record: the game's rule, else
    /// ``defaultRule``), each rule read for them all at once.
    func eligible(
        among people: [UUID], for event: Event, going: Set<UUID>, blocked: Set<UUID>, at now: Date, on sql: DatabaseSession
    ) async throws -> Set<UUID> {
        var left = people.filter { !going.contains($0) && $0 != event.organiserID && !blocked.contains($0) }
        guard !left.isEmpty else { return [] }
        let present = try await events.store.attending(event: event.id, among: left, on: sql)
        left.removeAll { present.contains($0) }
        if event.membersOnly {
            guard let group = event.groupID else { return [] }
            let members = try await events.groups.memberships(of: Set(left), in: [group], on: sql)
            left.removeAll { members[$0]?.groups.contains(group) != true }
        }
        let banned = try await events.store.banned(event: event.id, among: left, on: sql)
        left.removeAll { banned.contains($0) }
        let rule = event.recordRule ?? Self.defaultRule
        let records = try await events.records.records(of: left, at: now, on: sql)
        left.removeAll { EventService.recordProblem(rule, records[$0] ?? Reliability(entries: [])) != nil }
        if event.levelRange != nil || event.audience != .anyone {
            let profiles = try await events.players.profiles(of: left, on: sql)
            left.removeAll { events.fitProblem(event, profiles[$0] ?? PlayerProfile(gender: nil, levels: [:])) != nil }
        }
        return Set(left)
    }

    /// An offered person takes the place: going, in the player's stead. 404 `offer` to
    /// anyone it was not offered to; 409 `offer_taken` once filled or withdrawn,
    /// `offer_expired` after its time.
    func accept(_ requestID: UUID, by user: UUID) async throws -> SubstituteRequest {
        let now = clock.now()
        guard let found = try await store.request(requestID) else { throw DomainError.notFound(.offer) }
        // A game the caller may not see (a members-only game of a group they left) is not there.
        do { try await access.require(found.eventID, for: user) } catch { throw DomainError.notFound(.offer) }
        return try await write { [self] sql, changes in
            guard let event = try await events.store.lock(found.eventID, on: sql),
                let request = try await store.request(requestID, on: sql), try await store.isOffered(requestID, to: user, on: sql)
            else { throw DomainError.notFound(.offer) }
            guard request.status == .open else { throw DomainError.conflict("offer_taken", Sentence("Someone else took the place.")) }
            guard now < request.expiresAt else { throw DomainError.conflict("offer_expired", Sentence("The offer ran out.")) }
            guard event.status == .active, now < event.startsAt else {
                throw DomainError.conflict("offer_expired", Sentence("The game is cancelled or has started."))
            }
            guard try await events.store.attendance(event: event.id, user: request.requester.id, on: sql)?.status == .going else {
                throw DomainError.conflict("offer_taken", Sentence("The place is not free any more."))
            }
            guard event.waitlistCount == 0 else {
                throw DomainError.conflict("waitlist_first", Sentence("People are waiting for a place now: it is theirs first."))
            }
            // Everyone going, the player among them: a block either way with any of them refuses.
            let going = Set(try await events.store.goingIDs(event: event.id, on: sql))
            guard try await eligible(user, for: event, going: going, at: now, on: sql) else {
                throw DomainError.forbidden(
                    "not_eligible", Sentence("This game does not take you now (its rules, a block or your record)."))
            }
            // The swap: the player out (no late cancellation: the place is filled), the substitute in.
            guard try await store.close(requestID, as: .filled, filledBy: user, at: now, on: sql) else {
                throw DomainError.conflict("offer_taken", Sentence("The request was closed."))
            }
            try await events.store.remove(event: event.id, user: request.requester.id, status: .going, at: now, on: sql)
            _ = try await events.store.removeMaybe(event: event.id, user: user, on: sql)
            try await events.store.addGoing(event: event.id, user: user, at: now, on: sql)
            if let series = event.seriesID, let date = event.occurrenceDate {
                try await events.series.optOut(request.requester.id, of: series, on: date, on: sql)
            }
            // The substitute plays on the player's team, in their place: nobody else moves.
            try await events.teams.store.handOn(event: event.id, from: request.requester.id, to: user, on: sql)
            let updated = try await events.store.event(event.id, on: sql) ?? event
            try await events.followGoing(updated, replacedBy: [request.requester.id: user], at: now, on: sql, changes: &changes)
            let name = try await accounts.user(user, on: sql)?.name ?? ""
            try await notifier.substituteFound(
                updated, request: requestID, by: UserSummary(id: user, name: name), to: request.requester.id, at: now, on: sql,
                changes: &changes)
            changes.record(.attendance(user: request.requester.id))
            changes.record(.attendance(user: user))
            changes.event(updated)
            return try await store.request(requestID, on: sql) ?? request
        }
    }

    /// The player takes the request back (idempotent once closed).
    func withdraw(_ requestID: UUID, by user: UUID) async throws {
        let now = clock.now()
        guard let found = try await store.request(requestID), found.requester.id == user else {
            throw DomainError.notFound(.substituteRequest)
        }
        try await write { [store, events] sql, _ in
            // Under the event's lock: a withdrawal and an acceptance take turns.
            _ = try await events.store.lock(found.eventID, on: sql)
            _ = try await store.close(requestID, as: .withdrawn, at: now, on: sql)
        }
    }

    /// Runs a due `substitute_expiry` job: a request still open at its time runs out.
    func expire(_ requestID: UUID) async throws {
        let now = clock.now()
        guard let found = try await store.request(requestID) else { return }
        try await write { [store, events] sql, _ in
            _ = try await events.store.lock(found.eventID, on: sql)
            guard let request = try await store.request(requestID, on: sql), request.status == .open, now >= request.expiresAt else {
                return
            }
            _ = try await store.close(requestID, as: .expired, at: now, on: sql)
        }
    }

    /// The places offered to the caller that are still open.
    func offers(for user: UUID) async throws -> [SubstituteOffer] {
        let offers = try await store.offers(to: user, at: clock.now())
        let blocked = try await blocks.eitherWay(user)
        let hidden = try await access.hidden(Set(offers.map(\.request.eventID)), from: user)
        return offers.filter { !blocked.contains($0.request.requester.id) && !hidden.contains($0.request.eventID) }
    }

    /// A request, to the player who made it.
    func request(_ id: UUID, for user: UUID) async throws -> SubstituteRequest {
        guard var request = try await store.request(id), request.requester.id == user else {
            throw DomainError.notFound(.substituteRequest)
        }
        if let person = request.filledBy, try await blocks.eitherWay(user).contains(person.id) { request.filledBy = nil }
        return request
    }
}

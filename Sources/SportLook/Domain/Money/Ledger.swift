import Foundation

/// Who paid for the pitch: each priced game's ledger (``LedgerRules`` keep what people
/// owe as they come and go; the organiser records payments, waivers and refunds; a
/// player may say they paid), each group's dues (``Ledger+Dues``), reminders of what is
/// owed, and what a person owes across their games and groups. A game's ledger is the
/// organiser's to see (a group's, its owner's and admins'); a player sees their own rows.
struct Ledger: Sendable {
    let database: Database
    let store: LedgerStore
    let events: EventStore
    let groups: GroupStore
    let accounts: AccountStore
    let access: EventAccess
    let notifier: Notifier
    let scheduler: Scheduler
    let write: Writer
    let clock: any AppClock

    /// How many reminders of what is owed go out, and when: a day after the game, then
    /// three days and a week after the one before.
    static let reminderDelays: [TimeInterval] = [86_400, 3 * 86_400, 7 * 86_400]

    /// After a change to who is going, the price, the start or the status of a locked
    /// event (inside the change's transaction): adds the rows ``LedgerRules`` ask for.
    /// A game never priced costs nothing to follow; `priceChanged` follows one whose price
    /// just went. `excused`: people who left not by choice; `replacedBy`: a player and the
    /// substitute who took their place.
    func settle(
        _ event: Event, excused: Set<UUID> = [], replacedBy: [UUID: UUID] = [:], priceChanged: Bool = false, at now: Date,
        on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        guard event.price != nil || priceChanged else { return }
        let entries = try await store.entries(event: event.id, on: sql)
        guard event.price != nil || !entries.isEmpty else { return }
        let going = Set(try await events.goingIDs(event: event.id, on: sql))
        let game = LedgerRules.Game(
            price: event.price, startsAt: event.startsAt, active: event.status == .active, organiser: event.organiserID,
            full: event.capacity.map { event.goingCount + event.offeredCount >= $0 } ?? false)
        // One currency a game: a price in another is refused while rows exist.
        if let price = event.price, let first = entries.first, first.currency != price.currency {
            throw DomainError.conflict(
                "currency_fixed", Sentence("People owe at this game in \(first.currency) already: the price stays in it."))
        }
        let rows = LedgerRules.settle(game, going: going, entries: entries, excused: excused, replacedBy: replacedBy, at: now)
        guard let currency = event.price?.currency ?? entries.first?.currency else { return }
        if !rows.isEmpty { try await store.append(rows, to: .event(event.id), currency: currency, at: now, on: sql) }
        // The first reminder a day after the game (again when the game moves: each round reaches each person once).
        if event.status == .active, !rows.isEmpty || !entries.isEmpty {
            let due = event.endsAt.addingTimeInterval(Self.reminderDelays[0])
            try await scheduleReminder(event, round: 1, after: due, key: "\(due.millisecondsSince1970)", at: now, on: sql)
        }
    }

    private func scheduleReminder(_ event: Event, round: Int, after due: Date, key: String = "", at now: Date, on sql: DatabaseSession)
        async throws
    {
        try await scheduler.schedule(
            .paymentReminder(event: event.id, round: round), dedupeKey: "payment_reminder:\(event.id.lowercased):\(round):\(key)",
            after: max(0, due.timeIntervalSince(now)), on: sql)
    }

    /// Runs a due reminder: everyone who still owes at the game is told how much; the next
    /// round is queued while someone owes, three rounds at most.
    func remindDue(_ id: UUID, round: Int) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            // A game moved later: its own reminder comes a day after its new end.
            guard let event = try await events.lock(id, on: sql), event.status == .active, now >= event.endsAt else { return }
            let currency = try await currency(of: event, on: sql)
            let owing = try await owing(at: .event(id), in: currency, on: sql)
            guard !owing.isEmpty else { return }
            try await notifier.paymentDue(LedgerSubject(event), owing: owing, round: String(round), at: now, on: sql, changes: &changes)
            if round < Self.reminderDelays.count {
                try await scheduleReminder(
                    event, round: round + 1, after: now.addingTimeInterval(Self.reminderDelays[round]), at: now, on: sql)
            }
        }
    }

    // MARK: - Reading

    /// A game's or a group's ledger as `viewer` may see it.
    func sheet(_ account: LedgerAccount, for viewer: UUID) async throws -> LedgerSheet {
        switch account {
        case .event(let id): try await sheet(id, for: viewer)
        case .group(let id): try await groupSheet(id, for: viewer)
        }
    }

    /// A game's ledger as `viewer` may see it: the organiser, everyone's lines, rows and
    /// waiting claims; anyone else, their own. 404 for a game they may not see.
    func sheet(_ id: UUID, for viewer: UUID) async throws -> LedgerSheet {
        try await access.require(id, for: viewer)
        return try await database.read { [store, events] sql in
            guard let event = try await events.event(id, on: sql) else { throw DomainError.notFound(.event) }
            let organiser = event.organiserID == viewer
            let mine = organiser ? nil : viewer
            let entries = try await store.entries(event: id, user: mine, on: sql)
            let going = Set(try await events.goingIDs(event: id, on: sql))
            return LedgerSheet(
                event: event, organiserView: organiser, entries: entries, going: going,
                claims: try await store.pendingClaims(.event(id), user: mine, on: sql))
        }
    }

    /// What the caller owes, or is owed, at each game where it is not 0.
    func balances(of user: UUID) async throws -> [Balance] {
        var balances = try await store.balances(of: user)
        // A game the caller can no longer see (out of its group) is owed all the same, untitled.
        let hidden = try await access.hidden(Set(balances.map(\.eventID)), from: user)
        for i in balances.indices where hidden.contains(balances[i].eventID) { balances[i].title = "" }
        return balances
    }

    /// The organiser's game, locked, for a change to its ledger; 404 for one the caller
    /// may not see, 403 for anyone but its organiser, 409 for a game without a price.
    func organisersGame(_ id: UUID, _ user: UUID, on sql: DatabaseSession) async throws -> Event {
        guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
        guard event.organiserID == user else { throw DomainError.forbidden(Sentence("Only the organiser keeps this game's ledger.")) }
        let hasRows = event.price != nil ? true : !(try await store.entries(event: id, on: sql)).isEmpty
        guard hasRows else {
            throw DomainError.conflict("no_price", Sentence("This game has no price: set one on the event first."))
        }
        return event
    }
}

/// A game's (or a group's) ledger as one viewer sees it.
struct LedgerSheet: Sendable {
    var account: LedgerAccount
    /// The game, for a game's ledger.
    var event: Event?
    /// The group, for a group's.
    var group: Group?
    /// Everyone's (the organiser, a group's owner and admins), or only the viewer's own.
    var organiserView: Bool
    var entries: [LedgerEntry]
    var lines: [LedgerLine]
    var claims: [PaymentClaim]
    /// The game's currency (the price's, else the rows').
    var currency: String?

    init(event: Event, organiserView: Bool, entries: [LedgerEntry], going: Set<UUID>, claims: [PaymentClaim]) {
        self.init(
            account: .event(event.id), event: event, organiserView: organiserView, entries: entries, going: going, claims: claims,
            currency: event.price?.currency)
    }

    /// A group's: `members` are "going".
    init(group: Group, organiserView: Bool, entries: [LedgerEntry], members: Set<UUID>, claims: [PaymentClaim]) {
        self.init(
            account: .group(group.id), group: group, organiserView: organiserView, entries: entries, going: members, claims: claims,
            currency: group.dues?.currency)
    }

    private init(
        account: LedgerAccount, event: Event? = nil, group: Group? = nil, organiserView: Bool, entries: [LedgerEntry], going: Set<UUID>,
        claims: [PaymentClaim], currency: String?
    ) {
        self.account = account
        self.event = event
        self.group = group
        self.organiserView = organiserView
        self.entries = entries
        self.claims = claims
        var lines: [UUID: LedgerLine] = [:]
        for entry in entries {
            lines[entry.user.id, default: LedgerLine(user: entry.user, going: going.contains(entry.user.id))].add(entry)
        }
        self.lines = lines.values.sorted { ($0.user.name, $0.user.id.uuidString) < ($1.user.name, $1.user.id.uuidString) }
        self.currency = currency ?? entries.first?.currency
    }

    /// Who keeps this ledger: the game's organiser, or the group's owner.
    var keeper: UUID { event?.organiserID ?? group?.owner.id ?? UUID() }

    /// The lines added up.
    var total: LedgerLine {
        lines.reduce(into: LedgerLine(user: UserSummary(id: account.eventID ?? account.groupID ?? UUID(), name: ""))) { sum, line in
            sum.charged += line.charged
            sum.paid += line.paid
            sum.waived += line.waived
            sum.refunded += line.refunded
        }
    }
}

import Foundation

/// What people record in a game's ledger: the organiser's payments (one or many), waivers
/// and refunds; a player's "I paid" and the organiser's answer. Each runs under the
/// event's lock and reads the balance it acts on there, so two "mark paid" at once for one
/// debt record one payment.
extension Ledger {
    /// `{user_ids, means, amount?, note?}`: payments received (cash or transfer).
    struct PaymentInput: Decodable, Sendable {
        var userIds: [String]
        var means: String
        var amount: Int?
        var note: String?
    }

    /// `{user_id, note?}`.
    struct WaiverInput: Decodable, Sendable {
        var userId: String
        var note: String?
    }

    /// `{user_id, amount, means, note?}`.
    struct RefundInput: Decodable, Sendable {
        var userId: String
        var amount: Int
        var means: String
        var note: String?
    }

    /// `{means, amount?, note?}`: a player's "I paid".
    struct ClaimInput: Decodable, Sendable {
        var means: String
        var amount: Int?
        var note: String?
    }

    static let maxNoteBytes = 500
    static let maxPayments = 100

    /// Marks what each person owes as paid (or, for one person, `amount` of it). People
    /// who owe nothing are passed over; one named alone who owes nothing is a 409
    /// `nothing_owed`.
    func markPaid(_ id: UUID, by organiser: UUID, _ input: PaymentInput) async throws -> LedgerSheet {
        guard (1...Self.maxPayments).contains(input.userIds.count) else {
            throw DomainError.validation(["user_ids": "must name 1 to \(Self.maxPayments) people"])
        }
        var v = Validator()
        let users = Self.ids(input.userIds, "user_ids", into: &v)
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if let amount = input.amount {
            if users.count != 1 { v.fail("amount", "may be given for one person only") }
            if amount < 1 || amount > Price.maxMinorUnits { v.fail("amount", "must be 1 to \(Price.maxMinorUnits) minor units") }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, _ in
            let event = try await organisersGame(id, organiser, on: sql)
            let balances = try await balances(at: id, on: sql)
            var rows: [NewLedgerEntry] = []
            for user in users {
                let owed = balances[user] ?? 0
                if owed <= 0 {
                    if users.count == 1 { throw DomainError.conflict("nothing_owed", "They owe nothing at this game.") }
                    continue
                }
                let amount = input.amount ?? owed
                if amount > owed {
                    throw DomainError.validation(["amount": "must not be more than the \(owed) minor units owed"])
                }
                rows.append(
                    NewLedgerEntry(user: user, kind: .paid, reason: .paid, amount: -amount, means: means, recordedBy: organiser, note: note)
                )
            }
            try await store.append(rows, event: id, currency: try await currency(of: event, on: sql), at: now, on: sql)
        }
        return try await sheet(id, for: organiser)
    }

    /// Lets a person off what they owe at the game: they play it for free (a split is
    /// divided again between the others, before the start). 409 `nothing_to_waive`.
    func waive(_ id: UUID, by organiser: UUID, _ input: WaiverInput) async throws -> LedgerSheet {
        var v = Validator()
        let user = Self.ids([input.userId], "user_id", into: &v).first
        let note = Self.note(input.note, into: &v)
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, changes in
            let event = try await organisersGame(id, organiser, on: sql)
            guard let user else { return }
            let standing = LedgerRules.Standing.read(try await store.entries(event: id, user: user, on: sql))[user]
            guard let standing, standing.charged > 0, standing.last != .waived else {
                throw DomainError.conflict("nothing_to_waive", "They owe nothing by this game's price to waive.")
            }
            try await store.append(
                [NewLedgerEntry(user: user, kind: .waived, reason: .waived, amount: -standing.charged, recordedBy: organiser, note: note)],
                event: id, currency: try await currency(of: event, on: sql), at: now, on: sql)
            try await settle(event, at: now, on: sql, changes: &changes)
        }
        return try await sheet(id, for: organiser)
    }

    /// Gives money back: at most what the person paid and was not given back yet.
    func refund(_ id: UUID, by organiser: UUID, _ input: RefundInput) async throws -> LedgerSheet {
        var v = Validator()
        let user = Self.ids([input.userId], "user_id", into: &v).first
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if input.amount < 1 || input.amount > Price.maxMinorUnits {
            v.fail("amount", "must be 1 to \(Price.maxMinorUnits) minor units")
        }
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, _ in
            let event = try await organisersGame(id, organiser, on: sql)
            guard let user else { return }
            let line = try await line(of: user, at: id, on: sql)
            let refundable = line.paid - line.refunded
            guard refundable > 0 else { throw DomainError.conflict("nothing_paid", "They paid nothing at this game to give back.") }
            guard input.amount <= refundable else {
                throw DomainError.validation(["amount": "must not be more than the \(refundable) minor units they paid"])
            }
            try await store.append(
                [
                    NewLedgerEntry(
                        user: user, kind: .refunded, reason: .refunded, amount: input.amount, means: means, recordedBy: organiser,
                        note: note)
                ],
                event: id, currency: try await currency(of: event, on: sql), at: now, on: sql)
        }
        return try await sheet(id, for: organiser)
    }

    /// A player says they paid (cash or transfer) what they owe, or `amount` of it; the
    /// organiser is told and confirms or declines. One waiting claim per game each: 409
    /// `claim_pending`; owing nothing: 409 `nothing_owed`.
    func claim(_ id: UUID, by user: UUID, _ input: ClaimInput) async throws -> PaymentClaim {
        var v = Validator()
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if let amount = input.amount, amount < 1 || amount > Price.maxMinorUnits {
            v.fail("amount", "must be 1 to \(Price.maxMinorUnits) minor units")
        }
        try v.throwIfInvalid()
        try await access.require(id, for: user)
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound("event") }
            let owed = try await balances(at: id, on: sql)[user] ?? 0
            guard owed > 0 else { throw DomainError.conflict("nothing_owed", "You owe nothing at this game.") }
            guard try await store.pendingClaims(event: id, user: user, on: sql).isEmpty else {
                throw DomainError.conflict("claim_pending", "The organiser has not answered your last one yet.")
            }
            let amount = input.amount ?? owed
            guard amount <= owed else { throw DomainError.validation(["amount": "must not be more than the \(owed) minor units you owe"]) }
            guard let name = try await accounts.names(of: [user], on: sql)[user] else { throw DomainError.notFound("user") }
            let currency = try await currency(of: event, on: sql)
            let claim = PaymentClaim(
                id: UUID(), eventID: id, user: UserSummary(id: user, name: name), amount: amount,
                currency: currency, means: means == .transfer ? .transfer : .cash, note: note, status: .pending,
                createdAt: now.wholeMilliseconds)
            try await store.insert(claim, on: sql)
            try await notifier.paymentClaimed(event, claim: claim, at: now, on: sql, changes: &changes)
            return claim
        }
    }

    /// The organiser confirms a claim (a payment row, of what is still owed if less) or
    /// declines it; once. 409 `claim_decided` for one already answered.
    func decide(claim claimID: UUID, confirm: Bool, by organiser: UUID) async throws -> LedgerSheet {
        let now = clock.now()
        // A claim is its game's organiser's to see: to anyone else it is not there.
        guard let found = try await store.claim(claimID), try await events.event(found.eventID)?.organiserID == organiser else {
            throw DomainError.notFound("claim")
        }
        try await write { [self] sql, _ in
            let event = try await organisersGame(found.eventID, organiser, on: sql)
            guard let claim = try await store.claim(claimID, on: sql), claim.status == .pending,
                try await store.decide(claimID, confirm ? .confirmed : .declined, by: organiser, at: now, on: sql)
            else { throw DomainError.conflict("claim_decided", "This claim was answered already.") }
            guard confirm else { return }
            let owed = try await balances(at: event.id, on: sql)[claim.user.id] ?? 0
            let amount = min(owed, claim.amount)
            let reference = "claim:" + claimID.lowercased
            guard amount > 0, !(try await store.hasReference(reference, on: sql)) else { return }
            try await store.append(
                [
                    NewLedgerEntry(
                        user: claim.user.id, kind: .paid, reason: .paid, amount: -amount, means: claim.means, recordedBy: organiser,
                        note: claim.note, reference: reference)
                ], event: event.id, currency: claim.currency, at: now, on: sql)
        }
        return try await sheet(found.eventID, for: organiser)
    }

    // MARK: - Helpers

    /// One person's rows at the game, added up.
    func line(of user: UUID, at id: UUID, on sql: DatabaseSession) async throws -> LedgerLine {
        var line = LedgerLine(user: UserSummary(id: user, name: ""))
        for entry in try await store.entries(event: id, user: user, on: sql) { line.add(entry) }
        return line
    }

    /// Each person's balance at the game.
    func balances(at id: UUID, on sql: DatabaseSession) async throws -> [UUID: Int] {
        try await store.entries(event: id, on: sql).reduce(into: [:]) { $0[$1.user.id, default: 0] += $1.amount }
    }

    func currency(of event: Event, on sql: DatabaseSession) async throws -> String {
        if let currency = event.price?.currency { return currency }
        guard let currency = try await store.entries(event: event.id, on: sql).first?.currency else {
            throw DomainError.conflict("no_price", "This game has no price: set one on the event first.")
        }
        return currency
    }

    static func ids(_ texts: [String], _ field: String, into v: inout Validator) -> [UUID] {
        var ids: [UUID] = []
        var seen: Set<UUID> = []
        for text in texts {
            guard let id = UUID(uuidString: text) else {
                v.fail(field, "must be user ids")
                return []
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    static func means(_ text: String, into v: inout Validator) -> LedgerEntry.Means {
        guard let means = LedgerEntry.Means(rawValue: text), means != .card else {
            v.fail("means", "must be cash or transfer (card payments are entered by the card provider)")
            return .cash
        }
        return means
    }

    static func note(_ text: String?, into v: inout Validator) -> String {
        v.text(text, "note", 0...200, maxBytes: maxNoteBytes, multiline: true, required: false) ?? ""
    }
}

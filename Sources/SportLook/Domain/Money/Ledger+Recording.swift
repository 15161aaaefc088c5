import Foundation

/// What people record in a game's or a group's ledger: its keeper's payments (one or
/// many), waivers and refunds; a player's "I paid" and the keeper's answer. The keeper is
/// the game's organiser, or the group's owner and admins. Each runs under the event's (or
/// the group's) lock and reads the balance it acts on there, so two "mark paid" at once
/// for one debt record one payment.
extension Ledger {
    /// A ledger its keeper holds in a write: the game or group, locked, and its currency.
    struct Book: Sendable {
        var account: LedgerAccount
        var currency: String
        /// The game, for a game's ledger.
        var event: Event?
        /// A group's admin, who owes dues as a member does: their own line is another keeper's
        /// to record (the owner, who collects, owes none).
        var keeper: UUID? = nil

        /// 403 `own_dues` when the keeper would record on their own line.
        func check(_ people: [UUID]) throws {
            if let keeper, people.contains(keeper) {
                throw DomainError.forbidden("own_dues", Sentence("Your own dues are recorded by the group's owner or another admin."))
            }
        }
    }

    /// Locks the game or group for a change by its keeper: 404 for one the caller may not
    /// see, 403 for anyone but its keeper, 409 for one without a price (or dues) or rows.
    func keep(_ account: LedgerAccount, by user: UUID, on sql: DatabaseSession) async throws -> Book {
        switch account {
        case .event(let id):
            let event = try await organisersGame(id, user, on: sql)
            return Book(account: account, currency: try await currency(of: event, on: sql), event: event)
        case .group(let id):
            let (group, role) = try await duesGroup(id, keptBy: user, on: sql)
            guard let currency = try await currency(of: group, on: sql) else {
                throw DomainError.conflict("no_dues", Sentence("This group has no dues: set them on the group first."))
            }
            return Book(account: account, currency: currency, keeper: role == .owner ? nil : user)
        }
    }

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
    func markPaid(_ account: LedgerAccount, by organiser: UUID, _ input: PaymentInput) async throws -> LedgerSheet {
        guard (1...Self.maxPayments).contains(input.userIds.count) else {
            throw DomainError.validation(["user_ids": Sentence("must name 1 to \(Self.maxPayments) people")])
        }
        var v = Validator()
        let users = Self.ids(input.userIds, "user_ids", into: &v)
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if let amount = input.amount {
            if users.count != 1 { v.fail("amount", Sentence("may be given for one person only")) }
            if amount < 1 || amount > Price.maxMinorUnits { v.fail("amount", Sentence("must be 1 to \(Price.maxMinorUnits) minor units")) }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, _ in
            let book = try await keep(account, by: organiser, on: sql)
            try book.check(users)
            let balances = try await balances(at: account, on: sql)
            var rows: [NewLedgerEntry] = []
            for user in users {
                let owed = balances[user] ?? 0
                if owed <= 0 {
                    if users.count == 1 { throw DomainError.conflict("nothing_owed", Sentence("They owe nothing here.")) }
                    continue
                }
                let amount = input.amount ?? owed
                if amount > owed {
                    throw DomainError.validation(["amount": Sentence("must not be more than the \(owed) minor units owed")])
                }
                rows.append(
                    NewLedgerEntry(user: user, kind: .paid, reason: .paid, amount: -amount, means: means, recordedBy: organiser, note: note)
                )
            }
            try await store.append(rows, to: account, currency: book.currency, at: now, on: sql)
        }
        return try await sheet(account, for: organiser)
    }

    /// Lets a person off what they owe at the game: they play it for free (a split is
    /// divided again between the others, before the start); in a group, off the dues they
    /// owe now. 409 `nothing_to_waive`.
    func waive(_ account: LedgerAccount, by organiser: UUID, _ input: WaiverInput) async throws -> LedgerSheet {
        var v = Validator()
        let user = Self.ids([input.userId], "user_id", into: &v).first
        let note = Self.note(input.note, into: &v)
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, changes in
            let book = try await keep(account, by: organiser, on: sql)
            guard let user else { return }
            try book.check([user])
            let rows = try await store.entries(account, user: user, on: sql)
            let waived: Int
            if book.event != nil {
                let standing = LedgerRules.Standing.read(rows)[user]
                guard let standing, standing.charged > 0, standing.last != .waived else {
                    throw DomainError.conflict("nothing_to_waive", Sentence("They owe nothing by this game's price to waive."))
                }
                waived = standing.charged
            } else {
                // Dues: what they owe now, of what they were charged.
                var line = LedgerLine(user: UserSummary(id: user, name: ""))
                for row in rows { line.add(row) }
                waived = min(line.balance, line.charged)
                guard waived > 0 else { throw DomainError.conflict("nothing_to_waive", Sentence("They owe no dues to waive.")) }
            }
            try await store.append(
                [NewLedgerEntry(user: user, kind: .waived, reason: .waived, amount: -waived, recordedBy: organiser, note: note)],
                to: account, currency: book.currency, at: now, on: sql)
            if let event = book.event { try await settle(event, at: now, on: sql, changes: &changes) }
        }
        return try await sheet(account, for: organiser)
    }

    /// Gives money back: at most what the person paid and was not given back yet.
    func refund(_ account: LedgerAccount, by organiser: UUID, _ input: RefundInput) async throws -> LedgerSheet {
        var v = Validator()
        let user = Self.ids([input.userId], "user_id", into: &v).first
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if input.amount < 1 || input.amount > Price.maxMinorUnits {
            v.fail("amount", Sentence("must be 1 to \(Price.maxMinorUnits) minor units"))
        }
        try v.throwIfInvalid()
        let now = clock.now()
        try await write { [self] sql, _ in
            let book = try await keep(account, by: organiser, on: sql)
            guard let user else { return }
            try book.check([user])
            let line = try await line(of: user, at: account, on: sql)
            let refundable = line.paid - line.refunded
            guard refundable > 0 else { throw DomainError.conflict("nothing_paid", Sentence("They paid nothing here to give back.")) }
            guard input.amount <= refundable else {
                throw DomainError.validation(["amount": Sentence("must not be more than the \(refundable) minor units they paid")])
            }
            try await store.append(
                [
                    NewLedgerEntry(
                        user: user, kind: .refunded, reason: .refunded, amount: input.amount, means: means, recordedBy: organiser,
                        note: note)
                ],
                to: account, currency: book.currency, at: now, on: sql)
        }
        return try await sheet(account, for: organiser)
    }

    /// A player says they paid (cash or transfer) what they owe, or `amount` of it; the
    /// organiser (a group's owner) is told and confirms or declines. One waiting claim per
    /// game or group each: 409 `claim_pending`; owing nothing: 409 `nothing_owed`.
    func claim(_ account: LedgerAccount, by user: UUID, _ input: ClaimInput) async throws -> PaymentClaim {
        var v = Validator()
        let means = Self.means(input.means, into: &v)
        let note = Self.note(input.note, into: &v)
        if let amount = input.amount, amount < 1 || amount > Price.maxMinorUnits {
            v.fail("amount", Sentence("must be 1 to \(Price.maxMinorUnits) minor units"))
        }
        try v.throwIfInvalid()
        if case .event(let id) = account { try await access.require(id, for: user) }
        let now = clock.now()
        return try await write { [self] sql, changes in
            let subject: LedgerSubject
            switch account {
            case .event(let id):
                guard let event = try await events.lock(id, on: sql) else { throw DomainError.notFound(.event) }
                subject = LedgerSubject(event)
            case .group(let id):
                subject = LedgerSubject(try await payersGroup(id, user, on: sql))
            }
            let owed = try await balances(at: account, on: sql)[user] ?? 0
            guard owed > 0 else { throw DomainError.conflict("nothing_owed", Sentence("You owe nothing here.")) }
            guard try await store.pendingClaims(account, user: user, on: sql).isEmpty else {
                throw DomainError.conflict("claim_pending", Sentence("The organiser has not answered your last one yet."))
            }
            let amount = input.amount ?? owed
            guard amount <= owed else {
                throw DomainError.validation(["amount": Sentence("must not be more than the \(owed) minor units you owe")])
            }
            guard let name = try await accounts.names(of: [user], on: sql)[user] else { throw DomainError.notFound(.user) }
            let currency = try await balanceCurrency(of: account, on: sql)
            let claim = PaymentClaim(
                id: UUID(), account: account, user: UserSummary(id: user, name: name), amount: amount,
                currency: currency, means: means == .transfer ? .transfer : .cash, note: note, status: .pending,
                createdAt: now.wholeMilliseconds)
            try await store.insert(claim, on: sql)
            try await notifier.paymentClaimed(subject, claim: claim, at: now, on: sql, changes: &changes)
            return claim
        }
    }

    /// The keeper confirms a claim (a payment row, of what is still owed if less) or
    /// declines it; once. 409 `claim_decided` for one already answered.
    func decide(claim claimID: UUID, confirm: Bool, by organiser: UUID) async throws -> LedgerSheet {
        let now = clock.now()
        // A claim is its ledger's keeper's to see: to anyone else it is not there.
        guard let found = try await store.claim(claimID), try await keeps(found.account, organiser) else {
            throw DomainError.notFound(.claim)
        }
        try await write { [self] sql, _ in
            let book = try await keep(found.account, by: organiser, on: sql)
            try book.check([found.user.id])
            guard let claim = try await store.claim(claimID, on: sql), claim.status == .pending,
                try await store.decide(claimID, confirm ? .confirmed : .declined, by: organiser, at: now, on: sql)
            else { throw DomainError.conflict("claim_decided", Sentence("This claim was answered already.")) }
            guard confirm else { return }
            let owed = try await balances(at: claim.account, on: sql)[claim.user.id] ?? 0
            let amount = min(owed, claim.amount)
            let reference = "claim:" + claimID.lowercased
            guard amount > 0, !(try await store.hasReference(reference, on: sql)) else { return }
            try await store.append(
                [
                    NewLedgerEntry(
                        user: claim.user.id, kind: .paid, reason: .paid, amount: -amount, means: claim.means, recordedBy: organiser,
                        note: claim.note, reference: reference)
                ], to: claim.account, currency: claim.currency, at: now, on: sql)
        }
        return try await sheet(found.account, for: organiser)
    }

    // MARK: - Helpers

    /// One person's rows at the game (or in the group), added up.
    func line(of user: UUID, at account: LedgerAccount, on sql: DatabaseSession) async throws -> LedgerLine {
        var line = LedgerLine(user: UserSummary(id: user, name: ""))
        for entry in try await store.entries(account, user: user, on: sql) { line.add(entry) }
        return line
    }

    /// Each person's balance at the game (or in the group).
    func balances(at account: LedgerAccount, on sql: DatabaseSession) async throws -> [UUID: Int] {
        try await store.entries(account, on: sql).reduce(into: [:]) { $0[$1.user.id, default: 0] += $1.amount }
    }

    /// Who owes at the game (or in the group), and how much, in its currency: for a reminder.
    func owing(at account: LedgerAccount, in currency: String, on sql: DatabaseSession) async throws -> [(
        user: UUID, currency: String, amount: Int
    )] {
        try await balances(at: account, on: sql).filter { $0.value > 0 }.map { (user: $0.key, currency: currency, amount: $0.value) }
    }

    /// Whether `user` keeps the game's or the group's ledger.
    func keeps(_ account: LedgerAccount, _ user: UUID) async throws -> Bool {
        switch account {
        case .event(let id): try await events.event(id)?.organiserID == user
        case .group(let id): try await groups.standing(of: user, in: id).role?.isAdmin == true
        }
    }

    /// The currency a game's or a group's rows are kept in, for a claim (one that has rows).
    private func balanceCurrency(of account: LedgerAccount, on sql: DatabaseSession) async throws -> String {
        guard let currency = try await store.entries(account, on: sql).first?.currency else {
            throw DomainError.conflict("nothing_owed", Sentence("You owe nothing here."))
        }
        return currency
    }

    func currency(of event: Event, on sql: DatabaseSession) async throws -> String {
        if let currency = event.price?.currency { return currency }
        guard let currency = try await store.entries(event: event.id, on: sql).first?.currency else {
            throw DomainError.conflict("no_price", Sentence("This game has no price: set one on the event first."))
        }
        return currency
    }

    static func ids(_ texts: [String], _ field: String, into v: inout Validator) -> [UUID] {
        var ids: [UUID] = []
        var seen: Set<UUID> = []
        for text in texts {
            guard let id = UUID(uuidString: text) else {
                v.fail(field, Sentence("must be user ids"))
                return []
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    static func means(_ text: String, into v: inout Validator) -> LedgerEntry.Means {
        guard let means = LedgerEntry.Means(rawValue: text), means != .card else {
            v.fail("means", Sentence("must be cash or transfer (card payments are entered by the card provider)"))
            return .cash
        }
        return means
    }

    static func note(_ text: String?, into v: inout Validator) -> String {
        v.text(text, "note", 0...200, maxBytes: maxNoteBytes, multiline: true, required: false) ?? ""
    }
}

import Foundation

/// A group's dues: a price per period (a week, a month or a year in the group's zone),
/// owed by each member but the owner at the start of each period, and by a member who
/// joins during one, once per person and period (the row's reference names both). They
/// are kept in the group's ledger, paid, waived, refunded and claimed as at a game; the
/// owner and admins keep it; reminders go out while dues are owed.
extension Ledger {
    /// Reminders of a period's dues: three days into it (or after dues set during it), then
    /// four and seven days after the one before, while that period runs (a new period
    /// starts its own).
    static let duesReminderDelays: [TimeInterval] = [3 * 86_400, 4 * 86_400, 7 * 86_400]

    /// `{amount, currency, period, time_zone?}`.
    struct DuesInput: Decodable, Sendable {
        var amount: Int?
        var currency: String?
        var period: String?
        var timeZone: String?

        func validated(field: String = "dues", into v: inout Validator) -> Dues? {
            guard let (amount, currency) = PriceInput.money(amount, currency, field: field, into: &v) else { return nil }
            guard let period = period.flatMap(Dues.Period.init) else {
                v.fail(field + ".period", Sentence("must be week, month or year"))
                return nil
            }
            guard let zone = v.timeZone(timeZone ?? "UTC", field + ".time_zone") else { return nil }
            // When they start is decided against the group's current dues (``Dues/starting(replacing:at:)``).
            return Dues(amount: amount, currency: currency, period: period, timeZone: zone.identifier, from: .distantPast)
        }
    }

    /// Charges the period running at `now` to `people` (nil: every member who owes dues),
    /// once each, if it is owed; for everyone, also queues the next period's start and
    /// this period's first reminder. In the group's lock.
    func chargeDues(_ group: Group, people: [UUID]? = nil, at now: Date, on sql: DatabaseSession) async throws {
        guard let dues = group.dues, !group.isDeleted else { return }
        let span = dues.span(containing: now)
        if dues.owes(span) { try await charge(group.id, dues, span, people: people, at: now, on: sql) }
        guard people == nil else { return }
        try await scheduler.schedule(
            .duesDue(group: group.id, startsAt: span.end), dedupeKey: "dues_due:\(group.id.lowercased):\(span.end.millisecondsSince1970)",
            after: max(0, span.end.timeIntervalSince(now)), on: sql)
        guard dues.owes(span) else { return }
        // Three days into the period, or after the dues were set during it.
        let first = max(span.start, now).addingTimeInterval(Self.duesReminderDelays[0])
        try await scheduleDuesReminder(group.id, span: span, round: 1, after: first, at: now, on: sql)
    }

    /// One period's dues for `people` (nil: every member but the owner), once a person:
    /// the row's reference names the group, the kind of period, the period and the person.
    private func charge(_ id: UUID, _ dues: Dues, _ span: Dues.Span, people: [UUID]?, at now: Date, on sql: DatabaseSession)
        async throws
    {
        var rows: [NewLedgerEntry] = []
        for user in try await store.duesPayers(of: id, among: people, on: sql) {
            let reference = "dues:\(id.lowercased):\(dues.period.rawValue):\(span.key):\(user.lowercased)"
            guard !(try await store.hasReference(reference, on: sql)) else { continue }
            rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .dues, amount: dues.amount, reference: reference, period: span.key))
        }
        if !rows.isEmpty { try await store.append(rows, to: .group(id), currency: dues.currency, at: now, on: sql) }
    }

    private func scheduleDuesReminder(_ id: UUID, span: Dues.Span, round: Int, after due: Date, at now: Date, on sql: DatabaseSession)
        async throws
    {
        guard due < span.end else { return }
        try await scheduler.schedule(
            .duesReminder(group: id, period: span.key, round: round), dedupeKey: "dues_reminder:\(id.lowercased):\(span.key):\(round)",
            after: max(0, due.timeIntervalSince(now)), on: sql)
    }

    /// The job at a period's start (`startsAt`): charges it, while the group has dues, and
    /// any period since that a late run missed (to today's members), then queues the next.
    func duesDue(_ id: UUID, startsAt: Date) async throws {
        let now = clock.now()
        try await write { [self] sql, _ in
            guard let group = try await groups.lock(id, at: now, on: sql), let dues = group.dues else { return }
            var span = dues.span(containing: max(startsAt, dues.from))
            for _ in 0..<Self.catchUp where span.end <= now {
                if dues.owes(span) { try await charge(id, dues, span, people: nil, at: now, on: sql) }
                span = dues.span(containing: span.end)
            }
            try await chargeDues(group, at: now, on: sql)
        }
    }

    /// Periods a late period job makes up at most (a year of weeks).
    static let catchUp = 53

    /// A group that ends lets its members off the dues they still owe (nobody could take
    /// them any more); money owed back stays in each person's balances. In the end's transaction.
    func endDues(_ group: Group, at now: Date, on sql: DatabaseSession) async throws {
        guard let currency = try await currency(of: group, on: sql) else { return }
        let rows = try await balances(at: .group(group.id), on: sql).filter { $0.value > 0 }.sorted {
            $0.key.lowercased < $1.key.lowercased
        }
        .map { NewLedgerEntry(user: $0.key, kind: .waived, reason: .waived, amount: -$0.value, note: "The group ended.") }
        if !rows.isEmpty { try await store.append(rows, to: .group(group.id), currency: currency, at: now, on: sql) }
    }

    /// A due reminder of a period's dues: everyone who owes dues in the group is told how
    /// much; the next round is queued while someone owes. A period that is over (or dues
    /// that were removed) sends nothing.
    func remindDues(_ id: UUID, period: String, round: Int) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let group = try await groups.group(id, on: sql), !group.isDeleted, let dues = group.dues else { return }
            let span = dues.span(containing: now)
            guard span.key == period, let currency = try await currency(of: group, on: sql) else { return }
            let owing = try await owing(at: .group(id), in: currency, on: sql)
            guard !owing.isEmpty else { return }
            try await notifier.paymentDue(
                LedgerSubject(group), owing: owing, round: "\(period):\(round)", at: now, on: sql, changes: &changes)
            if round < Self.duesReminderDelays.count {
                try await scheduleDuesReminder(
                    id, span: span, round: round + 1, after: now.addingTimeInterval(Self.duesReminderDelays[round]), at: now, on: sql)
            }
        }
    }

    /// New dues for a group: refused in another currency than its rows' (409 `currency_fixed`).
    func checkDues(_ dues: Dues, of id: UUID, on sql: DatabaseSession) async throws {
        if let first = try await store.entries(.group(id), on: sql).first, first.currency != dues.currency {
            throw DomainError.conflict("currency_fixed", Sentence("Members owe dues in \(first.currency) already: the dues stay in it."))
        }
    }

    // MARK: - Reading and access

    /// A group's ledger as `viewer` may see it: the owner and admins, everyone's; a member
    /// (or a former one who has rows), their own; anyone else, 404.
    func groupSheet(_ id: UUID, for viewer: UUID) async throws -> LedgerSheet {
        try await database.read { [store, groups] sql in
            guard let group = try await groups.group(id, on: sql), !group.isDeleted else { throw DomainError.notFound(.group) }
            let role = try await groups.standing(of: viewer, in: id, on: sql).role
            let keeper = role?.isAdmin == true
            let mine = keeper ? nil : viewer
            let entries = try await store.entries(.group(id), user: mine, on: sql)
            guard role != nil || !entries.isEmpty else { throw DomainError.notFound(.group) }
            return LedgerSheet(
                group: group, organiserView: keeper, entries: entries, members: Set(try await store.duesPayers(of: id, on: sql)),
                claims: try await store.pendingClaims(.group(id), user: mine, on: sql))
        }
    }

    /// What the caller owes, or is owed, in each group's dues where it is not 0.
    func groupBalances(of user: UUID) async throws -> [GroupBalance] {
        try await store.groupBalances(of: user)
    }

    /// The group, locked, for a change to its ledger by its owner or an admin, and the
    /// caller's role: 404 for a group the caller is not in, 403 for a member.
    func duesGroup(_ id: UUID, keptBy user: UUID, on sql: DatabaseSession) async throws -> (Group, GroupRole) {
        guard let group = try await groups.lock(id, at: clock.now(), on: sql) else { throw DomainError.notFound(.group) }
        return (group, try Self.keeper(try await groups.standing(of: user, in: id, on: sql).role))
    }

    /// A caller's role in a group, as a keeper of its dues: 404 for someone not in it, 403 for a member.
    static func keeper(_ role: GroupRole?) throws -> GroupRole {
        guard let role else { throw DomainError.notFound(.group) }
        guard role.isAdmin else { throw DomainError.forbidden("admins_only", Sentence("Only the group's owner and admins keep its dues.")) }
        return role
    }

    /// The group, locked, for a payer's "I paid": a member, or a former one with rows; 404 otherwise.
    func payersGroup(_ id: UUID, _ user: UUID, on sql: DatabaseSession) async throws -> Group {
        guard let group = try await groups.lock(id, at: clock.now(), on: sql) else { throw DomainError.notFound(.group) }
        if try await groups.standing(of: user, in: id, on: sql).role == nil,
            try await store.entries(.group(id), user: user, on: sql).isEmpty
        {
            throw DomainError.notFound(.group)
        }
        return group
    }

    /// The group's dues currency, else its rows'; nil for a group that never had dues.
    func currency(of group: Group, on sql: DatabaseSession) async throws -> String? {
        if let currency = group.dues?.currency { return currency }
        return try await store.entries(.group(group.id), on: sql).first?.currency
    }
}

import Foundation
import SQLKit

/// The ledger in SQL: `ledger_entries`, each row a game's or a group's (append-only: rows are added, never changed; the
/// database's triggers refuse an UPDATE or DELETE, as for the audit log) and
/// `payment_claims` (a player's "I paid" and what the organiser decided).
struct LedgerStore: Store {
    let database: Database

    private static let columns = """
        l.seq, l.id, l.event_id, l.group_id, l.period, l.user_id, u.name AS user_name, l.kind, l.reason, l.amount, l.currency, l.means,
        l.recorded_by, r.name AS recorded_name, l.at, l.note, l.related_id, l.reference
        """
    private static let from = "ledger_entries l JOIN users u ON u.id = l.user_id LEFT JOIN users r ON r.id = l.recorded_by"

    /// A row's game or group.
    private static func account(_ row: any SQLRow) throws -> LedgerAccount {
        if let group: UUID = try row.optional("group_id") { return .group(group) }
        return .event(try row.value("event_id"))
    }

    /// `event_id = …` or `group_id = …` (of the table aliased `alias`).
    private static func owner(_ account: LedgerAccount, _ alias: String) -> SQLQueryString {
        switch account {
        case .event(let id): "\(unsafeRaw: alias).event_id = \(bind: id)"
        case .group(let id): "\(unsafeRaw: alias).group_id = \(bind: id)"
        }
    }

    private static func decode(_ row: any SQLRow) throws -> LedgerEntry {
        LedgerEntry(
            seq: try row.value("seq"), id: try row.value("id"), account: try account(row), period: try row.optional("period"),
            user: UserSummary(id: try row.value("user_id"), name: try row.value("user_name")),
            kind: LedgerEntry.Kind(rawValue: try row.value("kind")) ?? .owed,
            reason: LedgerEntry.Reason(rawValue: try row.value("reason")) ?? .shareChanged,
            amount: try row.value("amount"), currency: try row.value("currency"),
            means: try row.optional("means", as: String.self).flatMap(LedgerEntry.Means.init),
            recordedBy: try row.optional("recorded_by", as: UUID.self).map {
                UserSummary(id: $0, name: try row.optional("recorded_name") ?? "")
            },
            at: try row.value("at"), note: try row.value("note"), related: try row.optional("related_id"),
            reference: try row.optional("reference"))
    }

    /// Adds rows for one game or group, in order, at `now` (in whole milliseconds, as it reads back).
    func append(_ rows: [NewLedgerEntry], to account: LedgerAccount, currency: String, at now: Date, on sql: any SQLDatabase) async throws {
        let at = now.wholeMilliseconds
        for row in rows {
            try await sql.raw(
                """
                INSERT INTO ledger_entries (id, event_id, group_id, period, user_id, kind, reason, amount, currency, means, recorded_by, at, note,
                                            related_id, reference)
                VALUES (\(bind: UUID()), \(bind: account.eventID), \(bind: account.groupID), \(bind: row.period), \(bind: row.user), \(bind: row.kind.rawValue), \(bind: row.reason.rawValue),
                        \(bind: row.amount), \(bind: currency), \(bind: row.means?.rawValue), \(bind: row.recordedBy), \(bind: at),
                        \(bind: row.note), \(bind: row.related), \(bind: row.reference))
                """
            ).run()
        }
    }

    /// A game's rows in the order they were added (one person's, if named).
    func entries(event: UUID, user: UUID? = nil, on sql: (any SQLDatabase)? = nil) async throws -> [LedgerEntry] {
        try await entries(.event(event), user: user, on: sql)
    }

    /// A game's or a group's rows in the order they were added (one person's, if named).
    func entries(_ account: LedgerAccount, user: UUID? = nil, on sql: (any SQLDatabase)? = nil) async throws -> [LedgerEntry] {
        try await reading(on: sql) { sql in
            var filter: SQLQueryString = "WHERE " + Self.owner(account, "l")
            if let user { filter = filter + " AND l.user_id = \(bind: user)" }
            return try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) \(filter) ORDER BY l.seq").all().map(
                Self.decode)
        }
    }

    /// The rows of every game of a series (or of a group's games), in the order they were added.
    func entries(ofGamesIn column: GamesOf, _ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [LedgerEntry] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) JOIN events e ON e.id = l.event_id
                WHERE e.\(unsafeRaw: column.rawValue) = \(bind: id) ORDER BY l.seq
                """
            ).all().map(Self.decode)
        }
    }

    enum GamesOf: String, Sendable {
        case series = "series_id"
        case group = "group_id"
    }

    /// Whether the reference (`claim:<id>`) already has its row.
    func hasReference(_ reference: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM ledger_entries WHERE reference = \(bind: reference)").first() != nil
    }

    /// What `user` owes or is owed in each group's dues that do not add up to 0, by the group's name.
    func groupBalances(of user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [GroupBalance] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT g.id, g.name, g.owner_id, o.name AS owner_name, b.currency, b.amount
                FROM (SELECT group_id, currency, CAST(SUM(amount) AS BIGINT) AS amount FROM ledger_entries
                      WHERE user_id = \(bind: user) AND group_id IS NOT NULL GROUP BY group_id, currency) b
                JOIN sport_groups g ON g.id = b.group_id JOIN users o ON o.id = g.owner_id
                WHERE b.amount <> 0 ORDER BY g.name, g.id
                """
            ).all().map { row in
                GroupBalance(
                    groupID: try row.value("id"), name: try row.value("name"),
                    owner: UserSummary(id: try row.value("owner_id"), name: try row.value("owner_name")),
                    currency: try row.value("currency"), amount: try row.value("amount"))
            }
        }
    }

    /// What `user` owes or is owed at each game whose rows do not add up to 0, soonest game first.
    func balances(of user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [Balance] {
        try await reading(on: sql) { sql in
            try await sql.raw(
                """
                SELECT e.id, e.title, e.starts_at, e.organiser_id, o.name AS organiser_name, b.currency, b.amount
                FROM (SELECT event_id, currency, CAST(SUM(amount) AS BIGINT) AS amount FROM ledger_entries WHERE user_id = \(bind: user)
                      AND event_id IS NOT NULL GROUP BY event_id, currency) b
                JOIN events e ON e.id = b.event_id JOIN users o ON o.id = e.organiser_id
                WHERE b.amount <> 0 ORDER BY e.starts_at, e.id
                """
            ).all().map { row in
                Balance(
                    eventID: try row.value("id"), title: try row.value("title"), startsAt: try row.value("starts_at"),
                    organiser: UserSummary(id: try row.value("organiser_id"), name: try row.value("organiser_name")),
                    currency: try row.value("currency"), amount: try row.value("amount"))
            }
        }
    }

    // MARK: - Claims

    private static let claimColumns = """
        c.id, c.event_id, c.group_id, c.user_id, u.name AS user_name, c.amount, c.currency, c.means, c.note, c.status, c.created_at, c.decided_at
        """

    private static func claim(_ row: any SQLRow) throws -> PaymentClaim {
        PaymentClaim(
            id: try row.value("id"), account: try account(row),
            user: UserSummary(id: try row.value("user_id"), name: try row.value("user_name")), amount: try row.value("amount"),
            currency: try row.value("currency"), means: LedgerEntry.Means(rawValue: try row.value("means")) ?? .cash,
            note: try row.value("note"), status: PaymentClaim.Status(rawValue: try row.value("status")) ?? .declined,
            createdAt: try row.value("created_at"), decidedAt: try row.optional("decided_at"))
    }

    func insert(_ claim: PaymentClaim, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO payment_claims (id, event_id, group_id, user_id, amount, currency, means, note, status, created_at)
            VALUES (\(bind: claim.id), \(bind: claim.account.eventID), \(bind: claim.account.groupID), \(bind: claim.user.id), \(bind: claim.amount), \(bind: claim.currency),
                    \(bind: claim.means.rawValue), \(bind: claim.note), 'pending', \(bind: claim.createdAt))
            """
        ).run()
    }

    func claim(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> PaymentClaim? {
        try await reading(on: sql) { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.claimColumns) FROM payment_claims c JOIN users u ON u.id = c.user_id WHERE c.id = \(bind: id)"
            ).first().map(Self.claim)
        }
    }

    /// A game's (or a group's) claims waiting for its keeper (one person's, if named), oldest first.
    func pendingClaims(_ account: LedgerAccount, user: UUID? = nil, on sql: (any SQLDatabase)? = nil) async throws -> [PaymentClaim] {
        try await reading(on: sql) { sql in
            var filter: SQLQueryString = "WHERE " + Self.owner(account, "c") + " AND c.status = 'pending'"
            if let user { filter = filter + " AND c.user_id = \(bind: user)" }
            return try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.claimColumns) FROM payment_claims c JOIN users u ON u.id = c.user_id
                \(filter) ORDER BY c.created_at, c.id
                """
            ).all().map(Self.claim)
        }
    }

    /// Decides a pending claim; false when it was decided already.
    func decide(_ id: UUID, _ status: PaymentClaim.Status, by user: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE payment_claims SET status = \(bind: status.rawValue), decided_by = \(bind: user), decided_at = \(bind: now)
            WHERE id = \(bind: id) AND status = 'pending' RETURNING id
            """
        ).first() != nil
    }
}

extension LedgerStore {
    /// The members of a group who owe its dues (everyone but the owner), or of those named,
    /// the ones who are members.
    func duesPayers(of group: UUID, among people: [UUID]? = nil, on sql: any SQLDatabase) async throws -> [UUID] {
        var filter: SQLQueryString = ""
        if let people {
            guard !people.isEmpty else { return [] }
            filter = " AND user_id IN (\(binds: people))"
        }
        return try await sql.raw(
            "SELECT user_id FROM group_members WHERE group_id = \(bind: group) AND role <> 'owner'\(filter) ORDER BY user_id"
        ).all().map { try $0.value("user_id") }
    }
}

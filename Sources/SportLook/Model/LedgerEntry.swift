import Foundation

/// Whose ledger a row, a claim or a sheet belongs to: a priced game's, or a group's
/// (its dues).
enum LedgerAccount: Sendable, Hashable {
    case event(UUID)
    case group(UUID)

    var eventID: UUID? {
        if case .event(let id) = self { return id }
        return nil
    }

    var groupID: UUID? {
        if case .group(let id) = self { return id }
        return nil
    }
}

/// One row of a game's or a group's ledger: an amount owed, paid, waived or refunded,
/// never changed once written. A person's balance at a game (or in a group) is the sum
/// of their rows' `amount`s (positive: they owe; negative: they are owed).
struct LedgerEntry: Sendable, Hashable {
    enum Kind: String, Sendable, CaseIterable {
        /// What the game's rules put on the person (joining, a new share, leaving in time).
        case owed
        /// Money received (negative).
        case paid
        /// The organiser let the person off what they owed (negative).
        case waived
        /// Money given back (positive).
        case refunded
    }

    enum Means: String, Sendable, CaseIterable {
        case cash, transfer, card
    }

    /// Why a row was written.
    enum Reason: String, Sendable, CaseIterable {
        /// A place taken: the price, or a share of it.
        case joined
        /// The split changed as people came and went, or the price changed.
        case shareChanged = "share_changed"
        /// Left before the late-cancel time: nothing owed.
        case leftInTime = "left_in_time"
        /// Left after it: what was owed stands (a row of 0 that says so).
        case lateCancel = "late_cancel"
        /// Someone took the late canceller's place, and owes instead.
        case replaced
        /// The game was cancelled: nothing owed.
        case cancelled
        /// A group's dues for a period.
        case dues
        case waived
        case paid
        case refunded
    }

    var seq: Int64
    var id: UUID
    var account: LedgerAccount
    /// The period a group's dues row is for (its first day, `2026-11-01`).
    var period: String?
    var user: UserSummary
    var kind: Kind
    var reason: Reason
    var amount: Int
    var currency: String
    var means: Means?
    /// Who entered it; nil: the rules (joining, leaving, the split).
    var recordedBy: UserSummary?
    var at: Date
    var note: String
    /// The person who took a late canceller's place.
    var related: UUID?
    /// What the row answers (`claim:<id>`): one row each.
    var reference: String?

    /// Whether the row is part of what the person was charged (as against money that moved).
    var isCharge: Bool { kind == .owed || kind == .waived }
}

/// A row to add: a ``LedgerEntry`` before the database numbers it.
struct NewLedgerEntry: Sendable, Hashable {
    var user: UUID
    var kind: LedgerEntry.Kind
    var reason: LedgerEntry.Reason
    var amount: Int
    var means: LedgerEntry.Means? = nil
    var recordedBy: UUID? = nil
    var note: String = ""
    var related: UUID? = nil
    var reference: String? = nil
    var period: String? = nil
}

/// A player's "I paid", for the organiser to confirm or decline.
struct PaymentClaim: Sendable, Hashable {
    enum Status: String, Sendable { case pending, confirmed, declined }

    var id: UUID
    var account: LedgerAccount
    var user: UserSummary
    var amount: Int
    var currency: String
    var means: LedgerEntry.Means
    var note: String
    var status: Status
    var createdAt: Date
    var decidedAt: Date?
}

/// A person's money at one game (or in one group): what the rows add up to, by kind.
struct LedgerLine: Sendable, Hashable {
    var user: UserSummary
    /// Owed by the rules, less what was waived.
    var charged: Int = 0
    var paid: Int = 0
    var waived: Int = 0
    var refunded: Int = 0
    /// Whether they are going now (a member now, in a group).
    var going: Bool = false

    /// What they owe now (negative: what they are owed back).
    var balance: Int { charged + refunded - paid }

    mutating func add(_ entry: LedgerEntry) {
        switch entry.kind {
        case .owed: charged += entry.amount
        case .waived:
            charged += entry.amount
            waived -= entry.amount
        case .paid: paid -= entry.amount
        case .refunded: refunded += entry.amount
        }
    }
}

/// What a person owes (or is owed) at one game, for their list across games.
struct Balance: Sendable, Hashable {
    var eventID: UUID
    var title: String
    var startsAt: Date
    var organiser: UserSummary
    var currency: String
    var amount: Int
}

/// What a person owes (or is owed) in one group's dues.
struct GroupBalance: Sendable, Hashable {
    var groupID: UUID
    var name: String
    var owner: UserSummary
    var currency: String
    var amount: Int
}

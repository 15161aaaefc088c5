import Foundation

/// `"price": {amount, currency, split, late_cancel_hours}` or `"price": null`.
enum PriceJSON {
    static func write(_ price: Price?, to json: inout JSONWriter) {
        json.key("price")
        guard let price else { return json.null() }
        json.objectStart()
        json.field("amount", price.amount)
        json.field("currency", price.currency)
        json.field("split", price.split)
        json.field("late_cancel_hours", price.lateCancelHours)
        json.objectEnd()
    }
}

/// `"dues": {amount, currency, period, time_zone, from}` or `"dues": null`.
enum DuesJSON {
    static func write(_ dues: Dues?, to json: inout JSONWriter) {
        json.key("dues")
        guard let dues else { return json.null() }
        json.objectStart()
        json.field("amount", dues.amount)
        json.field("currency", dues.currency)
        json.field("period", dues.period.rawValue)
        json.field("time_zone", dues.timeZone)
        json.field("from", dues.from)
        json.objectEnd()
    }
}

/// A game's `{event_id, price, …}` or a group's `{group_id, dues, period, …}` ledger, then
/// `{currency, organiser_view, pay_by_card, lines, total, entries, claims}`: the organiser
/// (a group's owner and admins) sees everyone's; a player, their own.
struct LedgerSheetRepresentation: JSONEncodable {
    var sheet: LedgerSheet
    /// Whether the organiser takes card payments now.
    var payByCard: Bool
    /// Rows shown at most, the latest (the CSV has them all).
    static let maxEntries = 500

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        if let event = sheet.event {
            json.field("event_id", event.id)
            PriceJSON.write(event.price, to: &json)
        } else if let group = sheet.group {
            json.field("group_id", group.id)
            json.field("group_name", group.name)
            DuesJSON.write(group.dues, to: &json)
        }
        json.field("currency", sheet.currency)
        json.field("organiser_view", sheet.organiserView)
        json.field("pay_by_card", payByCard)
        json.key("lines")
        json.arrayStart()
        for line in sheet.lines { LedgerLineRepresentation(line: line, person: true).encode(to: &json) }
        json.arrayEnd()
        json.key("total")
        LedgerLineRepresentation(line: sheet.total, person: false).encode(to: &json)
        json.key("entries")
        json.arrayStart()
        for entry in sheet.entries.suffix(Self.maxEntries) {
            LedgerEntryRepresentation(entry: entry, showsRelated: sheet.organiserView).encode(to: &json)
        }
        json.arrayEnd()
        json.field("entries_truncated", sheet.entries.count > Self.maxEntries)
        json.key("claims")
        json.arrayStart()
        for claim in sheet.claims { PaymentClaimRepresentation(claim: claim).encode(to: &json) }
        json.arrayEnd()
        json.objectEnd()
    }
}

/// `{user?, going?, charged, paid, waived, refunded, balance}`.
struct LedgerLineRepresentation: JSONEncodable {
    var line: LedgerLine
    var person: Bool

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        if person {
            json.key("user")
            UserSummaryRepresentation(id: line.user.id, name: line.user.name).encode(to: &json)
            json.field("going", line.going)
        }
        json.field("charged", line.charged)
        json.field("paid", line.paid)
        json.field("waived", line.waived)
        json.field("refunded", line.refunded)
        json.field("balance", line.balance)
        json.objectEnd()
    }
}

/// `{id, seq, user, kind, reason, amount, currency, means, recorded_by, at, note, related_user_id, period}`.
struct LedgerEntryRepresentation: JSONEncodable {
    var entry: LedgerEntry
    /// Who took a place is the organiser's to see.
    var showsRelated: Bool

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", entry.id)
        json.field("seq", Int(entry.seq))
        json.key("user")
        UserSummaryRepresentation(id: entry.user.id, name: entry.user.name).encode(to: &json)
        json.field("kind", entry.kind.rawValue)
        json.field("reason", entry.reason.rawValue)
        json.field("amount", entry.amount)
        json.field("currency", entry.currency)
        json.field("means", entry.means?.rawValue)
        json.key("recorded_by")
        if let by = entry.recordedBy {
            UserSummaryRepresentation(id: by.id, name: by.name).encode(to: &json)
        } else {
            json.null()
        }
        json.field("at", entry.at)
        json.field("note", entry.note)
        json.field("related_user_id", showsRelated ? entry.related : nil)
        json.field("period", entry.period)
        json.objectEnd()
    }
}

/// `{id, event_id, group_id, user, amount, currency, means, note, status, created_at, decided_at}`:
/// a game's claim or a group's (the other id null).
struct PaymentClaimRepresentation: JSONEncodable {
    var claim: PaymentClaim

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", claim.id)
        json.field("event_id", claim.account.eventID)
        json.field("group_id", claim.account.groupID)
        json.key("user")
        UserSummaryRepresentation(id: claim.user.id, name: claim.user.name).encode(to: &json)
        json.field("amount", claim.amount)
        json.field("currency", claim.currency)
        json.field("means", claim.means.rawValue)
        json.field("note", claim.note)
        json.field("status", claim.status.rawValue)
        json.field("created_at", claim.createdAt)
        json.field("decided_at", claim.decidedAt)
        json.objectEnd()
    }
}

/// `{event_id, title, starts_at, organiser, currency, amount}`: positive, the caller owes.
struct BalanceRepresentation: JSONEncodable {
    var balance: Balance

    init(_ balance: Balance) { self.balance = balance }

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("event_id", balance.eventID)
        json.field("title", balance.title)
        json.field("starts_at", balance.startsAt)
        json.key("organiser")
        UserSummaryRepresentation(id: balance.organiser.id, name: balance.organiser.name).encode(to: &json)
        json.field("currency", balance.currency)
        json.field("amount", balance.amount)
        json.objectEnd()
    }
}

/// `{group_id, name, owner, currency, amount}`: positive, the caller owes dues.
struct GroupBalanceRepresentation: JSONEncodable {
    var balance: GroupBalance

    init(_ balance: GroupBalance) { self.balance = balance }

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("group_id", balance.groupID)
        json.field("name", balance.name)
        json.key("owner")
        UserSummaryRepresentation(id: balance.owner.id, name: balance.owner.name).encode(to: &json)
        json.field("currency", balance.currency)
        json.field("amount", balance.amount)
        json.objectEnd()
    }
}

/// `{items, groups}`: what the caller owes at games, and in groups' dues.
struct BalancesRepresentation: JSONEncodable {
    var games: [Balance]
    var groups: [GroupBalance]

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("items")
        json.arrayStart()
        for balance in games { BalanceRepresentation(balance).encode(to: &json) }
        json.arrayEnd()
        json.key("groups")
        json.arrayStart()
        for balance in groups { GroupBalanceRepresentation(balance).encode(to: &json) }
        json.arrayEnd()
        json.objectEnd()
    }
}

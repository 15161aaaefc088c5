import Foundation

/// Who owes what at a priced game, as one pure function: from the game, who is going and
/// the rows so far, the rows to add now. ``Ledger`` runs it inside every change of who is
/// going (and of the price, the start or the status), under the event's lock, so the
/// ledger always says what these rules say; a row is only ever added.
///
/// - Taking a place owes the price (or a share of a split price); a waitlisted person
///   owes nothing until they have a place. The organiser owes nothing, but counts in a
///   split: their share is what they pay themselves.
/// - Leaving before the late-cancel time (or being taken off by the organiser, the group
///   or a substitute) takes back what was owed. Leaving after it keeps it (a row of 0
///   says so), unless the organiser waives it or the place is filled by someone else —
///   in a game with a limit that is full again — whose debt then replaces it.
/// - A split price is divided again whenever people come and go, until the start; from
///   the start the shares stand (someone joining late owes a per-player price, and no
///   share of a split one).
/// - A waived person plays that game for free; a cancelled game takes back every debt
///   (what was paid stays paid, to be refunded).
enum LedgerRules {
    /// What the rows so far say of one person.
    struct Standing: Sendable, Hashable {
        /// Owed by the rules, less waived.
        var charged = 0
        /// The last row that changed where they stand (nil: none yet).
        var last: LedgerEntry.Reason?
        /// The row that noted a late cancellation (for who is replaced first).
        var lateSeq: Int64 = 0

        /// Reads a person's rows in order.
        static func read(_ entries: [LedgerEntry]) -> [UUID: Standing] {
            var standings: [UUID: Standing] = [:]
            for entry in entries where entry.isCharge {
                var s = standings[entry.user.id] ?? Standing()
                s.charged += entry.amount
                if entry.reason != .shareChanged { s.last = entry.reason }
                if entry.reason == .lateCancel { s.lateSeq = entry.seq }
                standings[entry.user.id] = s
            }
            return standings
        }

        /// Holding a place by the rows: joined (shares may have changed since), or back after a late cancellation.
        var holdsPlace: Bool { last == .joined || last == .lateCancel }
    }

    /// The game as the rules need it.
    struct Game: Sendable {
        var price: Price?
        var startsAt: Date
        var active: Bool
        var organiser: UUID
        /// Whether it has a limit and every place is taken or offered.
        var full: Bool
    }

    /// The rows to add at `now`, given the people going now (the organiser among them or
    /// not), the rows so far, the people who left not by choice (`excused`), and players
    /// whose place a substitute took (`replacedBy`: player to substitute).
    static func settle(
        _ game: Game, going: Set<UUID>, entries: [LedgerEntry], excused: Set<UUID> = [], replacedBy: [UUID: UUID] = [:], at now: Date
    ) -> [NewLedgerEntry] {
        let standings = Standing.read(entries)
        var rows: [NewLedgerEntry] = []
        // A cancelled game, or one that is free now (before its start): nothing is owed.
        guard game.active, let price = game.price else {
            let reason: LedgerEntry.Reason = game.active ? .shareChanged : .cancelled
            for (user, s) in standings.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where s.charged != 0 {
                if game.active && now >= game.startsAt { continue }
                rows.append(NewLedgerEntry(user: user, kind: .owed, reason: reason, amount: -s.charged))
            }
            return rows
        }
        let started = now >= game.startsAt
        let late = started || now >= price.lateCancelTime(startsAt: game.startsAt)
        var owes: [UUID: Standing] = [:]
        var lateCancellers: [(UUID, Int64)] = []
        var newcomers: [UUID] = []
        for (user, s) in standings {
            if going.contains(user) {
                if s.holdsPlace { owes[user] = s } else if s.last != .waived { newcomers.append(user) }
                // Back after a late cancellation: one place, owed once (a row of 0 says so).
                if s.last == .lateCancel { rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .joined, amount: 0)) }
            } else if s.last == .joined {
                // Left since the last settling: for a substitute, in time, excused, or late.
                // From the start nobody leaves in time, whatever the reason (a game played is owed).
                if let substitute = replacedBy[user], !started {
                    rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .replaced, amount: -s.charged, related: substitute))
                } else if !late || (excused.contains(user) && !started) {
                    rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .leftInTime, amount: -s.charged))
                } else {
                    rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .lateCancel, amount: 0))
                    owes[user] = s
                    lateCancellers.append((user, Int64.max))
                }
            } else if s.last == .lateCancel {
                owes[user] = s
                lateCancellers.append((user, s.lateSeq))
            }
        }
        for user in going where user != game.organiser && standings[user] == nil { newcomers.append(user) }
        newcomers.sort { $0.uuidString < $1.uuidString }
        // A full game again: each newcomer takes the place of the first late canceller.
        let newcomersOwe = !price.split || !started
        if game.full, newcomersOwe {
            lateCancellers.sort { ($0.1, $0.0.uuidString) < ($1.1, $1.0.uuidString) }
            for (newcomer, (leaver, _)) in zip(newcomers, lateCancellers) {
                guard let s = owes.removeValue(forKey: leaver) else { continue }
                rows.append(NewLedgerEntry(user: leaver, kind: .owed, reason: .replaced, amount: -s.charged, related: newcomer))
            }
        }
        // What each person owes now.
        var target: [UUID: Int] = [:]
        if price.split && !started {
            var sharing = Array(owes.keys) + newcomers
            if going.contains(game.organiser) { sharing.append(game.organiser) }
            sharing.sort { $0.uuidString < $1.uuidString }
            for (user, share) in zip(sharing, Price.shares(of: price.amount, between: sharing.count)) { target[user] = share }
        } else if !price.split {
            for user in owes.keys where !started { target[user] = price.amount }
            for user in newcomers { target[user] = price.amount }
        }
        for user in newcomers {
            if let amount = target[user], amount != 0 {
                rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .joined, amount: amount))
            }
        }
        for (user, s) in owes.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            guard let amount = target[user], amount != s.charged else { continue }
            rows.append(NewLedgerEntry(user: user, kind: .owed, reason: .shareChanged, amount: amount - s.charged))
        }
        return rows
    }
}

/// `{amount, currency, split?, late_cancel_hours?}`: a price as sent.
struct PriceInput: Decodable, Sendable {
    var amount: Int?
    var currency: String?
    var split: Bool?
    var lateCancelHours: Int?

    func validated(field: String = "price", into v: inout Validator) -> Price? {
        guard let (amount, currency) = Self.money(amount, currency, field: field, into: &v) else { return nil }
        let hours = lateCancelHours ?? Price.defaultLateCancelHours
        guard Price.lateCancelRange.contains(hours) else {
            v.fail(field + ".late_cancel_hours", Sentence("must be 0 to \(Price.lateCancelRange.upperBound)"))
            return nil
        }
        return Price(amount: amount, currency: currency, split: split ?? false, lateCancelHours: hours)
    }

    /// An amount in minor units and a currency, as a price or dues take them (`field.amount`, `field.currency`).
    static func money(_ amount: Int?, _ currency: String?, field: String, into v: inout Validator) -> (Int, String)? {
        guard let amount, (1...Price.maxMinorUnits).contains(amount) else {
            v.fail(field + ".amount", Sentence("must be 1 to \(Price.maxMinorUnits), in the currency's minor units (cents, øre)"))
            return nil
        }
        guard let currency, Price.currencies[currency] != nil else {
            v.fail(field + ".currency", Sentence("must be one of \(Price.currencies.keys.sorted().joined(separator: ", "))"))
            return nil
        }
        return (amount, currency)
    }
}

import Foundation
import Testing

@testable import SportLook

@Suite("The ledger's rules as a pure function: what people owe as they come and go")
struct LedgerRulesTests {
    /// Plays random comings and goings through ``LedgerRules/settle`` as the service
    /// does, keeping the rows, and checks after each step what the rules promise.
    @Test(
        "after any sequence, a split adds up to the price with the organiser's share, a per-player price is owed once by everyone going, and a late canceller owes until replaced"
    )
    func randomSequences() {
        let organiser = UUID()
        let people = (0..<8).map { _ in UUID() }
        var g = TeamsTests.SplitMix(state: 4_096)
        for run in 0..<200 {
            let split = run % 2 == 0
            let amount = Int.random(in: 1...50_000, using: &g)
            let capacity: Int? = run % 3 == 0 ? nil : Int.random(in: 2...6, using: &g)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            var now = start.addingTimeInterval(-3 * 86_400)
            let price = Price(amount: amount, currency: "EUR", split: split, lateCancelHours: 24)
            var going: Set<UUID> = [organiser]
            var entries: [LedgerEntry] = []
            func settle(excused: Set<UUID> = []) {
                let full = capacity.map { going.count - 1 >= $0 } ?? false
                let game = LedgerRules.Game(price: price, startsAt: start, active: true, organiser: organiser, full: full)
                for row in LedgerRules.settle(game, going: going, entries: entries, excused: excused, at: now) {
                    entries.append(
                        LedgerEntry(
                            seq: Int64(entries.count + 1), id: UUID(), account: .event(organiser),
                            user: UserSummary(id: row.user, name: ""),
                            kind: row.kind, reason: row.reason, amount: row.amount, currency: "EUR", at: now, note: "",
                            related: row.related))
                }
            }
            for _ in 0..<30 {
                let person = people[Int.random(in: 0..<people.count, using: &g)]
                if going.contains(person) {
                    going.remove(person)
                } else if capacity.map({ going.count - 1 < $0 }) ?? true {
                    going.insert(person)
                }
                settle()
                // A second settling with nothing changed adds nothing.
                let before = entries.count
                settle()
                #expect(entries.count == before)
                let standings = LedgerRules.Standing.read(entries)
                let owing = standings.filter { $0.value.holdsPlace }
                for person in going where person != organiser {
                    #expect(standings[person]?.holdsPlace == true || standings[person]?.charged == 0)
                }
                for (person, s) in standings where !s.holdsPlace { #expect(s.charged == 0, "\(person) owes without a place") }
                if now < start {
                    if split {
                        let shares = Price.shares(of: amount, between: owing.count + 1)
                        let organiserShare = amount - owing.values.map(\.charged).reduce(0, +)
                        #expect(shares.contains(organiserShare), "the split adds up to the price")
                        #expect(owing.values.allSatisfy { shares.contains($0.charged) })
                    } else {
                        #expect(owing.values.allSatisfy { $0.charged == amount })
                    }
                }
                // Late cancellers are still owing; nobody else off the game is.
                for (person, s) in owing where !going.contains(person) { #expect(s.last == .lateCancel, "\(person)") }
                now = now.addingTimeInterval(Double.random(in: 0...(4 * 3_600), using: &g))
            }
        }
    }

    @Test(
        "a cancelled game takes back every debt once; a price removed before the start takes back every debt; shares split to the minor unit"
    )
    func cancelAndShares() {
        #expect(Price.shares(of: 10_000, between: 3) == [3_334, 3_333, 3_333])
        #expect(Price.shares(of: 2, between: 3) == [1, 1, 0])
        #expect(Price.decimal(-2_550, currency: "DKK") == "-25.50" && Price.decimal(7, currency: "EUR", separator: ",") == "0,07")
        #expect(Price.decimal(1_234, currency: "JPY") == "1234")
        let organiser = UUID()
        let (a, b) = (UUID(), UUID())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = start.addingTimeInterval(-86_400 * 2)
        let price = Price(amount: 3_000, currency: "EUR", split: false)
        var game = LedgerRules.Game(price: price, startsAt: start, active: true, organiser: organiser, full: false)
        let rows = LedgerRules.settle(game, going: [organiser, a, b], entries: [], at: now)
        #expect(rows.map(\.amount) == [3_000, 3_000] && rows.allSatisfy { $0.reason == .joined })
        let entries = rows.enumerated().map { n, row in
            LedgerEntry(
                seq: Int64(n + 1), id: UUID(), account: .event(organiser), user: UserSummary(id: row.user, name: ""), kind: row.kind,
                reason: row.reason, amount: row.amount, currency: "EUR", at: now, note: "")
        }
        game.active = false
        let cancelled = LedgerRules.settle(game, going: [organiser, a, b], entries: entries, at: now)
        #expect(cancelled.map(\.amount) == [-3_000, -3_000] && cancelled.allSatisfy { $0.reason == .cancelled })
        game.active = true
        game.price = nil
        let free = LedgerRules.settle(game, going: [organiser, a, b], entries: entries, at: now)
        #expect(free.map(\.amount) == [-3_000, -3_000] && free.allSatisfy { $0.reason == .shareChanged })
        #expect(LedgerRules.settle(game, going: [organiser, a, b], entries: entries, at: start).isEmpty, "from the start debts stand")
    }
}

import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// What a client reads of a game's ledger.
struct LedgerSheetBody: Decodable, Sendable {
    struct Line: Decodable, Sendable {
        var user: API.UserSummary
        var going: Bool
        var charged: Int
        var paid: Int
        var waived: Int
        var refunded: Int
        var balance: Int
    }
    struct Total: Decodable, Sendable {
        var charged: Int
        var paid: Int
        var balance: Int
    }
    struct Entry: Decodable, Sendable {
        var id: String
        var user: API.UserSummary
        var kind: String
        var reason: String
        var amount: Int
        @Nullable var means: String?
    }
    struct Claim: Decodable, Sendable {
        var id: String
        var amount: Int
        var status: String
    }
    var currency: String?
    var organiserView: Bool
    var lines: [Line]
    var total: Total
    var entries: [Entry]
    var claims: [Claim]
    enum CodingKeys: String, CodingKey { case currency, organiserView = "organiser_view", lines, total, entries, claims }

    func line(_ id: String) -> Line? { lines.first { $0.user.id == id } }
    func balance(_ id: String) -> Int { line(id)?.balance ?? 0 }
}

@Suite("Who paid for the pitch: prices, a ledger that is only ever added to, and who sees it", .timeLimit(.minutes(10)))
struct MoneyTests {
    static func pricedGame(
        _ api: API, _ token: String, now: Date, amount: Int = 5_000, split: Bool = false, startsIn: TimeInterval = 3 * 86_400,
        capacity: Int? = nil
    ) async throws -> String {
        var body: [String: Any] = [
            "title": "Pitch night", "sport": "football", "starts_at": RFC3339.format(now.addingTimeInterval(startsIn)),
            "location": ["lat": 55.68, "lon": 12.57],
            "price": ["amount": amount, "currency": "DKK", "split": split, "late_cancel_hours": 24],
        ]
        if let capacity { body["capacity"] = capacity }
        return try await api.post("/v1/events", token: token, json: body).decode(API.Event.self, expecting: .created).id
    }

    static func sheet(_ api: API, _ event: String, _ token: String) async throws -> LedgerSheetBody {
        try await api.get("/v1/events/\(event)/ledger", token: token).decode(LedgerSheetBody.self, expecting: .ok)
    }

    static func leave(_ api: API, _ event: String, _ token: String) async throws {
        #expect(try await api.delete("/v1/events/\(event)/attendance", token: token).status == .noContent)
    }

    @Test(
        "joining owes, leaving in time takes it back, leaving late keeps it until the place is filled or the organiser waives it; the waitlist owes nothing until promoted",
        arguments: engines)
    func joinLeaveLateCancelWaiveReplace(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let (a, b, c, d, e) = (
                try await api.register("Ana"), try await api.register("Bo"), try await api.register("Cy"), try await api.register("Di"),
                try await api.register("Ed")
            )
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now(), capacity: 3)
            #expect(try await api.event(game, token: a.token).price?.value1.amount == 5_000)
            for p in [a, b, c] { try await api.join(game, token: p.token) }
            #expect(try await api.join(game, token: d.token).status == .waitlisted)
            var sheet = try await Self.sheet(api, game, organiser.token)
            #expect(sheet.organiserView && sheet.currency == "DKK")
            #expect([a, b, c].map { sheet.balance($0.id) } == [5_000, 5_000, 5_000])
            #expect(sheet.line(d.id) == nil, "the waitlist owes nothing")
            #expect(sheet.line(organiser.id) == nil, "the organiser owes nothing")

            // Three days out: Ana leaves in time; Di is promoted and owes.
            try await Self.leave(api, game, a.token)
            sheet = try await Self.sheet(api, game, organiser.token)
            #expect(sheet.balance(a.id) == 0 && sheet.entries.contains { $0.user.id == a.id && $0.reason == "left_in_time" })
            #expect(sheet.balance(d.id) == 5_000)

            // Twelve hours out: Bo leaves late and still owes, until Ed fills the game again.
            clock.advance(by: 2.5 * 86_400)
            try await Self.leave(api, game, b.token)
            sheet = try await Self.sheet(api, game, organiser.token)
            #expect(sheet.balance(b.id) == 5_000 && sheet.entries.contains { $0.user.id == b.id && $0.reason == "late_cancel" })
            try await api.join(game, token: e.token)
            sheet = try await Self.sheet(api, game, organiser.token)
            #expect(sheet.balance(b.id) == 0 && sheet.entries.contains { $0.user.id == b.id && $0.reason == "replaced" })
            #expect(sheet.balance(e.id) == 5_000)

            // Cy leaves late too; nobody fills it; the organiser waives it.
            try await Self.leave(api, game, c.token)
            #expect(try await Self.sheet(api, game, organiser.token).balance(c.id) == 5_000)
            let waived = try await api.post(
                "/v1/events/\(game)/ledger/waivers", token: organiser.token, json: ["user_id": c.id, "note": "injured"]
            )
            .decode(LedgerSheetBody.self, expecting: .ok)
            #expect(waived.balance(c.id) == 0 && waived.line(c.id)?.waived == 5_000)
            let again = try await api.post("/v1/events/\(game)/ledger/waivers", token: organiser.token, json: ["user_id": c.id])
            #expect(again.status == .conflict)
            #expect(try again.errorCode == "nothing_to_waive")

            // Paid in cash, then partly given back.
            let paid = try await api.post(
                "/v1/events/\(game)/ledger/payments", token: organiser.token, json: ["user_ids": [d.id, e.id], "means": "cash"]
            ).decode(LedgerSheetBody.self, expecting: .ok)
            #expect(paid.balance(d.id) == 0 && paid.line(d.id)?.paid == 5_000 && paid.balance(e.id) == 0)
            let refunded = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token,
                json: ["user_id": d.id, "amount": 1_000, "means": "transfer"]
            ).decode(LedgerSheetBody.self, expecting: .ok)
            #expect(refunded.balance(d.id) == 1_000 && refunded.line(d.id)?.refunded == 1_000)
            let tooMuch = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token, json: ["user_id": d.id, "amount": 4_001, "means": "cash"])
            #expect(tooMuch.status == .unprocessableContent)
            #expect(try tooMuch.errorFields["amount"] != nil)
            #expect(refunded.total.balance == refunded.lines.map(\.balance).reduce(0, +))

            // A player sees their own rows only.
            let mine = try await Self.sheet(api, game, e.token)
            #expect(!mine.organiserView && mine.lines.map(\.user.id) == [e.id] && mine.entries.allSatisfy { $0.user.id == e.id })

            // The database refuses to change or remove a row, whoever asks.
            let rows = try await count(services, "ledger_entries")
            for statement in ["UPDATE ledger_entries SET amount = 0", "DELETE FROM ledger_entries"] {
                await #expect(throws: (any Error).self) {
                    try await services.database.write { sql in try await sql.raw(SQLQueryString(statement)).run() }
                }
            }
            #expect(try await count(services, "ledger_entries") == rows)
            #expect(try await count(services, "ledger_entries", where: "amount = 0 AND reason <> 'late_cancel'") == 0)
        }
    }

    @Test(
        "a split price is divided again as people come and go, adds up to the price with the organiser's share, and stands from the start",
        arguments: engines)
    func splitPrices(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now(), amount: 10_000, split: true)
            var people: [(token: String, id: String)] = []
            func charged() async throws -> [String: Int] {
                Dictionary(uniqueKeysWithValues: try await Self.sheet(api, game, organiser.token).lines.map { ($0.user.id, $0.charged) })
            }
            for (n, expected) in [(1, [5_000]), (2, [3_333, 3_334]), (3, [2_500])] {
                people.append(try await api.register("P\(n)"))
                try await api.join(game, token: people.last!.token)
                let shares = try await charged().filter { $0.value != 0 }
                #expect(shares.count == n && Set(shares.values).isSubset(of: Set(expected)))
                // With the organiser's share, the price exactly.
                let organiserShare = 10_000 - shares.values.reduce(0, +)
                #expect(Set(expected).contains(organiserShare))
            }
            try await Self.leave(api, game, people[0].token)
            var shares = try await charged()
            #expect(shares[people[0].id] == 0 && Set([shares[people[1].id], shares[people[2].id]]).isSubset(of: [3_333, 3_334]))
            // From the start the shares stand: a late joiner owes no share of a split price.
            clock.advance(by: 3 * 86_400 + 60)
            let late = try await api.register("Late")
            try await api.join(game, token: late.token)
            let after = try await charged()
            #expect(after[late.id] == nil && after[people[1].id] == shares[people[1].id])
            let frozen = try await api.patch(
                "/v1/events/\(game)", token: organiser.token, json: ["price": ["amount": 1, "currency": "DKK"]])
            #expect(frozen.status == .conflict)
            #expect(try frozen.errorCode == "price_frozen")
            shares = after
            _ = shares
        }
    }

    @Test("two organisers' taps on \"mark paid\" for one debt at once record one payment", arguments: engines)
    func concurrentMarkPaid(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Pay")
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now())
            try await api.join(game, token: player.token)
            let (gameID, organiserID, playerID) = (UUID(uuidString: game)!, UUID(uuidString: organiser.id)!, player.id)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            _ = try await services.ledger.markPaid(
                                .event(gameID), by: organiserID, .init(userIds: [playerID], means: "cash", amount: nil, note: nil))
                            return true
                        } catch let error as DomainError where error.kind == .conflict { return false }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1, "the others find nothing owed")
            #expect(try await count(services, "ledger_entries", where: "kind = 'paid'") == 1)
            #expect(try await Self.sheet(api, game, organiser.token).balance(player.id) == 0)
        }
    }

    @Test(
        "after any sequence of joins, leaves, waivers, payments and price changes, every balance is the sum of its rows and no row ever changes",
        arguments: engines)
    func balancesAreSums(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now(), amount: 9_001, split: true, capacity: 4)
            var people: [(token: String, id: String)] = []
            for n in 0..<7 { people.append(try await api.register("R\(n)")) }
            var g = TeamsTests.SplitMix(state: 68)
            var seen: [String: Int] = [:]  // row id → amount, as first read
            for step in 0..<60 {
                let person = people[Int.random(in: 0..<people.count, using: &g)]
                switch Int.random(in: 0..<10, using: &g) {
                case 0..<4: _ = try await api.post("/v1/events/\(game)/attendance", token: person.token)
                case 4..<7: _ = try await api.delete("/v1/events/\(game)/attendance", token: person.token)
                case 7: _ = try await api.post("/v1/events/\(game)/ledger/waivers", token: organiser.token, json: ["user_id": person.id])
                case 8:
                    _ = try await api.post(
                        "/v1/events/\(game)/ledger/payments", token: organiser.token, json: ["user_ids": [person.id], "means": "cash"])
                default:
                    let split = Bool.random(using: &g)
                    _ = try await api.patch(
                        "/v1/events/\(game)", token: organiser.token,
                        json: ["price": ["amount": Int.random(in: 1_000...20_000, using: &g), "currency": "DKK", "split": split]])
                }
                if step % 12 == 11 { clock.advance(by: 14 * 3_600) }
                let sheet = try await Self.sheet(api, game, organiser.token)
                let rows = try await services.ledger.store.entries(event: UUID(uuidString: game)!)
                var sums: [String: Int] = [:]
                for row in rows { sums[row.user.id.lowercased, default: 0] += row.amount }
                for line in sheet.lines { #expect(line.balance == sums[line.user.id] ?? 0, "step \(step)") }
                #expect(sheet.total.balance == rows.map(\.amount).reduce(0, +))
                for row in rows {
                    if let amount = seen[row.id.lowercased] { #expect(amount == row.amount) } else { seen[row.id.lowercased] = row.amount }
                }
                #expect(rows.count == seen.count, "no row went away")
                // Nobody is charged more than the whole price, nor less than nothing by the rules.
                for line in sheet.lines { #expect(line.charged >= 0 && line.charged <= 20_000) }
            }
        }
    }
}

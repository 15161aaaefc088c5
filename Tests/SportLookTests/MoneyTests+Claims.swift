import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

extension MoneyTests {
    @Test(
        "\"I paid\" reaches the organiser, who confirms it once or declines it; reminders of what is owed go out three times at most, on the queue's clock",
        arguments: engines)
    func claimsAndReminders(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let (payer, owes) = (try await api.register("Payer"), try await api.register("Owes"))
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now(), amount: 7_550, startsIn: 86_400 * 2)
            try await api.join(game, token: payer.token)
            try await api.join(game, token: owes.token)
            let claim = try await api.post(
                "/v1/events/\(game)/ledger/claims", token: payer.token, json: ["means": "transfer", "note": "MobilePay"]
            ).decode(LedgerSheetBody.Claim.self, expecting: .created)
            #expect(claim.amount == 7_550 && claim.status == "pending")
            let twice = try await api.post("/v1/events/\(game)/ledger/claims", token: payer.token, json: ["means": "cash"])
            #expect(twice.status == .conflict)
            #expect(try twice.errorCode == "claim_pending")
            // Only the organiser answers it.
            #expect(
                try await api.post("/v1/payment-claims/\(claim.id)/confirm", token: payer.token).status == .notFound,
                "a claim is its organiser's to see")
            try await services.runDueJobs()
            let told = try await api.notifications(organiser.token).filter { $0.kind == .paymentClaimed }
            #expect(told.count == 1 && told.first?.title == "Payer says they paid DKK 75.50")
            let confirmed = try await api.post("/v1/payment-claims/\(claim.id)/confirm", token: organiser.token)
                .decode(LedgerSheetBody.self, expecting: .ok)
            #expect(confirmed.balance(payer.id) == 0 && confirmed.claims.isEmpty)
            let again = try await api.post("/v1/payment-claims/\(claim.id)/confirm", token: organiser.token)
            #expect(again.status == .conflict)
            #expect(try again.errorCode == "claim_decided")
            #expect(try await count(services, "ledger_entries", where: "kind = 'paid'") == 1)
            // A declined claim leaves the debt as it was.
            let second = try await api.post("/v1/events/\(game)/ledger/claims", token: owes.token, json: ["means": "cash", "amount": 500])
                .decode(LedgerSheetBody.Claim.self, expecting: .created)
            #expect(
                try await api.post("/v1/payment-claims/\(second.id)/decline", token: organiser.token).decode(
                    LedgerSheetBody.self, expecting: .ok
                ).balance(owes.id) == 7_550)
            let nothing = try await api.post("/v1/events/\(game)/ledger/claims", token: payer.token, json: ["means": "cash"])
            #expect(nothing.status == .conflict)
            #expect(try nothing.errorCode == "nothing_owed")

            // Reminders: a day after the game, three days after that, a week after that; never a fourth.
            // (Counted in the queue: the inbox folds one game's reminders into one unread item.)
            func reminders(_ id: String) async throws -> Int {
                try await count(services, "jobs", where: "kind = 'payment_due' AND dedupe_key LIKE 'payment_due:%:\(id.lowercased()):%'")
            }
            var rounds: [Int] = []
            for days in [3.2, 3.1, 7.1, 30.0] {
                clock.advance(by: days * 86_400)
                try await services.runDueJobs()
                rounds.append(try await reminders(owes.id))
            }
            #expect(rounds == [1, 2, 3, 3])
            #expect(try await reminders(payer.id) == 0, "paid: no reminder")
            let title = try await services.database.read { sql in
                try await sql.raw(
                    "SELECT title FROM notifications WHERE kind = 'payment_due' AND lower(CAST(user_id AS TEXT)) = \(bind: owes.id.lowercased())"
                ).first()?.decode(column: "title", as: String.self)
            }
            #expect(title == "You owe DKK 75.50 for Pitch night")
        }
    }

    @Test(
        "a game's ledger is its organiser's: a player sees their own rows, anyone else nothing of others, and a members-only game's ledger is no route outside its group",
        arguments: engines)
    func whoSeesMoney(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let (player, other, stranger) = (try await api.register("Pl"), try await api.register("Ot"), try await api.register("St"))
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now())
            try await api.join(game, token: player.token)
            try await api.join(game, token: other.token)
            let mine = try await Self.sheet(api, game, player.token)
            #expect(mine.lines.map(\.user.id) == [player.id] && mine.total.balance == 5_000)
            #expect(try await Self.sheet(api, game, stranger.token).lines.isEmpty)
            for (method, path, body) in [
                (HTTPRequest.Method.get, "/v1/events/\(game)/ledger.csv", nil),
                (.post, "/v1/events/\(game)/ledger/payments", ["user_ids": [other.id], "means": "cash"] as [String: Any]),
                (.post, "/v1/events/\(game)/ledger/waivers", ["user_id": other.id]),
                (.post, "/v1/events/\(game)/ledger/refunds", ["user_id": other.id, "amount": 1, "means": "cash"]),
            ] {
                let reply = try await api.request(method, path, token: player.token, json: body)
                #expect(reply.status == .forbidden, "\(path)")
            }
            let balances = try await api.get("/v1/me/balances", token: player.token).decode(
                API.Page<BalanceBody>.self, expecting: .ok)
            #expect(balances.items.map(\.amount) == [5_000] && balances.items.first?.eventId == game)
            #expect(
                try await api.get("/v1/me/balances", token: stranger.token).decode(API.Page<BalanceBody>.self, expecting: .ok).items.isEmpty
            )

            // A members-only game of a group: its ledger does not exist to outsiders.
            let group = try await GroupsTests.create(api, organiser.token, policy: "public").id
            let hidden = try await api.post(
                "/v1/events", token: organiser.token,
                json: [
                    "title": "Members", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                    "location": ["lat": 55.68, "lon": 12.57], "group_id": group, "price": ["amount": 100, "currency": "EUR"],
                ]
            ).decode(API.Event.self, expecting: .created)
            #expect(hidden.membersOnly)
            for path in ["/v1/events/\(hidden.id)/ledger", "/v1/events/\(hidden.id)/ledger.csv"] {
                #expect(try await api.get(path, token: stranger.token).status == .notFound, "\(path)")
            }
            let claim = try await api.post("/v1/events/\(hidden.id)/ledger/claims", token: stranger.token, json: ["means": "cash"])
            #expect(claim.status == .notFound)
        }
    }

    @Test("the CSV has every row, amounts in units and minor units, and text a spreadsheet would run made plain", arguments: engines)
    func csvExport(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("=HYPERLINK(\"x\")")
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now(), amount: 12_345)
            try await api.join(game, token: player.token)
            _ = try await api.post(
                "/v1/events/\(game)/ledger/payments", token: organiser.token,
                json: ["user_ids": [player.id], "means": "cash", "amount": 45, "note": "+1, \"coins\""])
            let reply = try await api.get("/v1/events/\(game)/ledger.csv", token: organiser.token)
            #expect(reply.status == .ok && reply.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = reply.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == Ledger.csvHeader && lines.count == 3)
            #expect(lines[1].contains(",owed,joined,123.45,12345,DKK,"))
            #expect(lines[1].contains(",\"'=HYPERLINK(\"\"x\"\")\","))
            #expect(lines[2].contains(",paid,paid,-0.45,-45,DKK,cash,Org,\"'+1, \"\"coins\"\"\""))
        }
    }

    @Test(
        "prices and money input are checked: unknown currencies, amounts out of range, cards by hand, more than is owed", arguments: engines
    )
    func badInput(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("Pl")
            let start = RFC3339.format(clock.now().addingTimeInterval(86_400))
            for (price, field) in [
                (["amount": 0, "currency": "DKK"] as [String: Any], "price.amount"),
                (["amount": 100, "currency": "XYZ"], "price.currency"),
                (["amount": 100_000_001, "currency": "EUR"], "price.amount"),
                (["amount": 100, "currency": "EUR", "late_cancel_hours": 200], "price.late_cancel_hours"),
            ] {
                let reply = try await api.post(
                    "/v1/events", token: organiser.token,
                    json: ["title": "X", "sport": "football", "starts_at": start, "location": ["lat": 1, "lon": 1], "price": price])
                #expect(reply.status == .unprocessableContent, "\(price)")
                #expect(try reply.errorFields[field] != nil, "\(price)")
            }
            let game = try await Self.pricedGame(api, organiser.token, now: clock.now())
            try await api.join(game, token: player.token)
            for (body, field) in [
                (["user_ids": [player.id], "means": "card"] as [String: Any], "means"),
                (["user_ids": [player.id], "means": "cash", "amount": 5_001], "amount"),
                (["user_ids": ["nobody"], "means": "cash"], "user_ids"),
                (["user_ids": [player.id], "means": "cash", "note": String(repeating: "€", count: 300)], "note"),
            ] {
                let reply = try await api.post("/v1/events/\(game)/ledger/payments", token: organiser.token, json: body)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(try reply.errorFields[field] != nil, "\(body)")
            }
            let free = try await api.createEvent(organiser.token, now: clock.now()).id
            let none = try await api.post(
                "/v1/events/\(free)/ledger/payments", token: organiser.token, json: ["user_ids": [player.id], "means": "cash"])
            #expect(none.status == .conflict)
            #expect(try none.errorCode == "no_price")
        }
    }
}

struct BalanceBody: Decodable, Sendable {
    var eventId: String
    var amount: Int
    var currency: String
    enum CodingKeys: String, CodingKey { case eventId = "event_id", amount, currency }
}

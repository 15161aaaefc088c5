import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Card payments through Stripe: entered in the ledger from signed webhooks alone, each once", .timeLimit(.minutes(10)))
struct CardPaymentsTests {
    struct Link: Decodable {
        var url: String
        var sessionId: String?
        enum CodingKeys: String, CodingKey { case url, sessionId = "session_id" }
    }
    struct Payouts: Decodable {
        var cardPayments: Bool
        var connected: Bool
        var chargesEnabled: Bool
        enum CodingKeys: String, CodingKey { case cardPayments = "card_payments", connected, chargesEnabled = "charges_enabled" }
    }
    struct Sheet: Decodable {
        var payByCard: Bool
        enum CodingKeys: String, CodingKey { case payByCard = "pay_by_card" }
    }

    static func deliver(_ api: API, _ payload: String, signature: String) async throws -> Reply {
        try await api.request(.post, "/v1/stripe/webhook", raw: payload, headers: [HTTPField.Name("Stripe-Signature")!: signature])
    }

    @Test(
        "an organiser connects, a player pays by Checkout, the payment enters the ledger from the webhook once however often it comes; forged or stale webhooks change nothing; a card refund goes back through Stripe",
        arguments: engines)
    func payByCard(engine: DatabaseEngine) async throws {
        let stripe = try await StripeFake()
        // Stripe signs with the wall clock: the server's clock starts at it.
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.stripe = stripe.settings }) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Payer")
            let game = try await MoneyTests.pricedGame(api, organiser.token, now: clock.now(), amount: 5_000)
            try await api.join(game, token: player.token)
            let checkoutPath = "/v1/events/\(game)/ledger/checkout"
            let notConnected = try await api.post(checkoutPath, token: player.token)
            #expect(notConnected.status == .conflict)
            #expect(try notConnected.errorCode == "organiser_not_connected")

            // The organiser connects: an Express account, onboarding finished at Stripe.
            let link = try await api.post("/v1/me/payouts", token: organiser.token).decode(Link.self, expecting: .created)
            #expect(link.url.hasPrefix(stripe.base + "/onboard/acct_"))
            let account = String(link.url.split(separator: "/").last!.split(separator: "?").first!)
            #expect(try await stripe.post("/_test/onboard/\(account)").status == 200)
            for event in try await stripe.events("account.updated") {
                #expect(try await Self.deliver(api, event.payload, signature: event.signature).status == .ok)
            }
            let payouts = try await api.get("/v1/me/payouts", token: organiser.token).decode(Payouts.self, expecting: .ok)
            #expect(payouts.cardPayments && payouts.connected && payouts.chargesEnabled)
            #expect(try await api.get("/v1/events/\(game)/ledger", token: player.token).decode(Sheet.self, expecting: .ok).payByCard)

            // The player pays through Checkout; the ledger waits for Stripe's word.
            let session = try await api.post(checkoutPath, token: player.token).decode(Link.self, expecting: .created)
            let sessionID = try #require(session.sessionId)
            #expect(session.url == stripe.base + "/pay/" + sessionID)
            #expect(try await stripe.post("/_test/pay/\(sessionID)").status == 200)
            #expect(try await MoneyTests.sheet(api, game, organiser.token).balance(player.id) == 5_000)
            let paid = try #require(try await stripe.events("checkout.session.completed").first)

            // Forged and stale deliveries are refused and change nothing.
            let forged = try await Self.deliver(
                api, paid.payload, signature: StripeFake.sign(paid.payload, at: clock.now(), secret: "whsec_other"))
            #expect(forged.status == .badRequest)
            #expect(try forged.errorCode == "bad_signature")
            let tampered = try await Self.deliver(api, paid.payload.replacingOccurrences(of: "5000", with: "9"), signature: paid.signature)
            #expect(tampered.status == .badRequest)
            let stale = try await Self.deliver(
                api, paid.payload, signature: StripeFake.sign(paid.payload, at: clock.now().addingTimeInterval(-600)))
            #expect(stale.status == .badRequest)
            #expect(try stale.errorCode == "stale_signature")
            #expect(try await Self.deliver(api, paid.payload, signature: "t=1,v2=abc").status == .badRequest)
            #expect(try await MoneyTests.sheet(api, game, organiser.token).balance(player.id) == 5_000)

            // Delivered three times (the last signed anew, as a retry is): one payment.
            for signature in [paid.signature, paid.signature, StripeFake.sign(paid.payload, at: clock.now())] {
                #expect(try await Self.deliver(api, paid.payload, signature: signature).status == .ok)
            }
            var sheet = try await MoneyTests.sheet(api, game, organiser.token)
            #expect(sheet.balance(player.id) == 0 && sheet.entries.filter { $0.kind == "paid" }.map(\.means) == ["card"])
            #expect(try await api.post(checkoutPath, token: player.token).status == .conflict, "nothing owed")

            // A card refund goes back through Stripe (202); the ledger has it once Stripe says so.
            let refund = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token, json: ["user_id": player.id, "amount": 2_000, "means": "card"])
            #expect(refund.status == .accepted)
            #expect(try await MoneyTests.sheet(api, game, organiser.token).balance(player.id) == 0)
            // What is asked back and not made yet counts: no more than was paid.
            let tooMuch = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token, json: ["user_id": player.id, "amount": 3_001, "means": "card"])
            #expect(tooMuch.status == .unprocessableContent)
            // Out of order: the charge's event first (not what the ledger reads), the made refund before its creation, twice.
            let charge = try #require(try await stripe.events("charge.refunded").first)
            let made = try #require(try await stripe.events("refund.updated").first)
            let created = try #require(try await stripe.events("refund.created").first)
            for event in [charge, made, created, made] {
                #expect(try await Self.deliver(api, event.payload, signature: event.signature).status == .ok)
            }
            sheet = try await MoneyTests.sheet(api, game, organiser.token)
            #expect(sheet.line(player.id)?.refunded == 2_000 && sheet.entries.filter { $0.kind == "refunded" }.count == 1)
            #expect(sheet.balance(player.id) == 2_000)
            // A cash refund on top may give back what is left of the payment, not more.
            let cash = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token, json: ["user_id": player.id, "amount": 3_001, "means": "cash"])
            #expect(cash.status == .unprocessableContent)
            #expect(try await count(services, "stripe_events") == 5)
        }
    }

    @Test(
        "webhooks that come before our own record, of another account, or for a second session of one debt: each payment counts once as Stripe took it, nothing from another account",
        arguments: engines)
    func webhooksOutOfStep(engine: DatabaseEngine) async throws {
        let stripe = try await StripeFake()
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.stripe = stripe.settings }) { api, _ in
            let organiser = try await api.register("Org")
            let other = try await api.register("Otto")
            let player = try await api.register("Payer")
            var accounts: [String] = []
            for person in [organiser, other] {
                let link = try await api.post("/v1/me/payouts", token: person.token).decode(Link.self, expecting: .created)
                accounts.append(String(link.url.split(separator: "/").last!.split(separator: "?").first!))
                #expect(try await stripe.post("/_test/onboard/\(accounts.last!)").status == 200)
            }
            let game = try await MoneyTests.pricedGame(api, organiser.token, now: clock.now(), amount: 5_000)
            try await api.join(game, token: player.token)
            let checkoutPath = "/v1/events/\(game)/ledger/checkout"
            func elsewhere(_ account: String, amount: Int) async throws -> String {
                let made = try await stripe.post("/_test/session/\(account)?event_id=\(game)&user_id=\(player.id)&amount=\(amount)")
                #expect(made.status == 200)
                let id = try #require((try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["id"] as? String)
                #expect(try await stripe.post("/_test/pay/\(id)").status == 200)
                return id
            }

            // A session on another organiser's account that names this game: paid, delivered, not ours.
            _ = try await elsewhere(accounts[1], amount: 5_000)
            for event in try await stripe.events("checkout.session.completed") {
                #expect(try await Self.deliver(api, event.payload, signature: event.signature).status == .ok)
            }
            #expect(try await MoneyTests.sheet(api, game, organiser.token).balance(player.id) == 5_000, "another account's payment")

            // A session at Stripe on this game's organiser's account that we have no record of (told before ours was
            // kept, or made elsewhere): read from its metadata.
            _ = try await elsewhere(accounts[0], amount: 1_000)
            // Our own session for what is left, and a second one after the debt changed: both paid.
            let first = try await api.post(checkoutPath, token: player.token).decode(Link.self, expecting: .created)
            _ = try await api.post(
                "/v1/events/\(game)/ledger/payments", token: organiser.token,
                json: ["user_ids": [player.id], "means": "cash", "amount": 2_000])
            let second = try await api.post(checkoutPath, token: player.token).decode(Link.self, expecting: .created)
            #expect(first.sessionId != second.sessionId)
            for session in [first, second] { #expect(try await stripe.post("/_test/pay/\(session.sessionId!)").status == 200) }
            let paid = try await stripe.events("checkout.session.completed", count: 4)
            for event in paid.reversed() + paid {
                #expect(try await Self.deliver(api, event.payload, signature: event.signature).status == .ok)
            }
            // 5,000 owed; 1,000 elsewhere, 5,000 (first session) and 3,000 (second) by card, 2,000 in cash:
            // 6,000 more than owed, shown as owed back.
            let sheet = try await MoneyTests.sheet(api, game, organiser.token)
            #expect(sheet.entries.filter { $0.means == "card" }.map(\.amount).sorted() == [-5_000, -3_000, -1_000])
            #expect(sheet.balance(player.id) == -6_000)
        }
    }

    @Test(
        "without Stripe's keys the ledger works with cash and transfers alone: cards are refused, the webhook is no route",
        arguments: engines)
    func withoutKeys(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("Payer")
            let game = try await MoneyTests.pricedGame(api, organiser.token, now: clock.now())
            try await api.join(game, token: player.token)
            #expect(!(try await api.get("/v1/events/\(game)/ledger", token: player.token).decode(Sheet.self, expecting: .ok).payByCard))
            let checkout = try await api.post("/v1/events/\(game)/ledger/checkout", token: player.token)
            #expect(checkout.status == .conflict)
            #expect(try checkout.errorCode == "card_payments_off")
            let payouts = try await api.get("/v1/me/payouts", token: organiser.token).decode(Payouts.self, expecting: .ok)
            #expect(!payouts.cardPayments && !payouts.connected)
            let hook = try await Self.deliver(api, #"{"id":"evt_1"}"#, signature: StripeFake.sign(#"{"id":"evt_1"}"#, at: clock.now()))
            #expect(hook.status == .conflict)
            #expect(try await MoneyTests.sheet(api, game, player.token).balance(player.id) == 5_000)
        }
    }
}

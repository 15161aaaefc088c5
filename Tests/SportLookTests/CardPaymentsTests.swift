import Foundation
import HTTPTypes
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Card payments through Stripe: entered in the ledger from signed webhooks alone, each once", .timeLimit(.minutes(5)))
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
            let tooMuch = try await api.post(
                "/v1/events/\(game)/ledger/refunds", token: organiser.token, json: ["user_id": player.id, "amount": 3_001, "means": "card"])
            #expect(tooMuch.status == .unprocessableContent)
            // Out of order: the charge's event first (not what the ledger reads), then the refund's, twice.
            let charge = try #require(try await stripe.events("charge.refunded").first)
            let refunded = try #require(try await stripe.events("refund.created").first)
            for event in [charge, refunded, refunded] {
                #expect(try await Self.deliver(api, event.payload, signature: event.signature).status == .ok)
            }
            sheet = try await MoneyTests.sheet(api, game, organiser.token)
            #expect(sheet.balance(player.id) == 2_000 && sheet.line(player.id)?.refunded == 2_000)
            #expect(sheet.entries.filter { $0.kind == "refunded" }.count == 1)
            #expect(try await count(services, "stripe_events") == 4)
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

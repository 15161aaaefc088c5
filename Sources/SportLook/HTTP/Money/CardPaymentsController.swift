import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Card payments through Stripe: an organiser's connected account, a player's Checkout
/// Session for what they owe, and Stripe's webhook (public, checked by its signature).
struct CardPaymentsController {
    let cards: CardPayments

    /// A Stripe event is a few KB; a body past this is not one.
    static let maxWebhookBytes = 256 * 1024

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/me/payouts", use: payouts)
        routes.post("/v1/me/payouts", use: onboard)
        routes.post("/v1/events/:id/ledger/checkout", use: checkout)
    }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.post("/v1/stripe/webhook", use: webhook)
    }

    /// `GET /v1/me/payouts`
    @Sendable func payouts(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let status = try await cards.payoutStatus(of: context.userID)
        return JSONResponse(
            PayoutsRepresentation(cardPayments: cards.enabled, connected: status.connected, chargesEnabled: status.chargesEnabled))
    }

    /// `POST /v1/me/payouts`
    @Sendable func onboard(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(status: .created, LinkRepresentation(url: try await cards.onboard(context.userID), session: nil))
    }

    /// `POST /v1/events/{id}/ledger/checkout`
    @Sendable func checkout(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let made = try await cards.checkout(try context.uuid("id", .event), by: context.userID)
        return JSONResponse(status: .created, LinkRepresentation(url: made.url, session: made.session))
    }

    /// `POST /v1/stripe/webhook`
    @Sendable func webhook(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxWebhookBytes)
        } catch {
            throw APIError(
                .contentTooLarge, code: "payload_too_large",
                message: Sentence("The body is larger than \(Self.maxWebhookBytes / 1024) KiB."))
        }
        do {
            try await cards.receive(payload: Array(body.readableBytesView), signature: request.headers[HTTPField.Name("Stripe-Signature")!])
        } catch let refusal as DomainError where refusal.kind == .invalid {
            // A delivery that is not Stripe's: a bad request, not a field to correct.
            throw APIError.badRequest(refusal.code, refusal.sentence)
        }
        return JSONResponse(WebhookReceived())
    }
}

/// `{received: true}`.
struct WebhookReceived: JSONEncodable {
    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("received", true)
        json.objectEnd()
    }
}

/// `{card_payments, connected, charges_enabled}`.
struct PayoutsRepresentation: JSONEncodable {
    var cardPayments: Bool
    var connected: Bool
    var chargesEnabled: Bool

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("card_payments", cardPayments)
        json.field("connected", connected)
        json.field("charges_enabled", chargesEnabled)
        json.objectEnd()
    }
}

/// `{url, session_id?}`: a page at Stripe to send the person to.
struct LinkRepresentation: JSONEncodable {
    var url: URL
    var session: String?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("url", url.absoluteString)
        if let session { json.field("session_id", session) }
        json.objectEnd()
    }
}

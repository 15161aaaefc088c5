import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Money: a game's ledger (the organiser's sheet, or a player's own rows), payments,
/// waivers, refunds and "I paid", CSV exports, and what the caller owes across games.
struct LedgerController {
    let ledger: Ledger
    let cards: CardPayments

    /// The sheet as JSON, saying whether its organiser takes cards.
    private func represent(_ sheet: LedgerSheet, status: HTTPResponse.Status = .ok) async throws -> JSONResponse {
        JSONResponse(
            status: status, LedgerSheetRepresentation(sheet: sheet, payByCard: try await cards.takesCards(sheet.event.organiserID)))
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/events/:id/ledger", use: sheet)
        routes.get("/v1/events/:id/ledger.csv", use: eventCSV)
        routes.post("/v1/events/:id/ledger/payments", use: pay)
        routes.post("/v1/events/:id/ledger/waivers", use: waive)
        routes.post("/v1/events/:id/ledger/refunds", use: refund)
        routes.post("/v1/events/:id/ledger/claims", use: claim)
        routes.post("/v1/payment-claims/:id/confirm", use: confirm)
        routes.post("/v1/payment-claims/:id/decline", use: decline)
        routes.get("/v1/series/:id/ledger.csv", use: seriesCSV)
        routes.get("/v1/me/balances", use: balances)
    }

    /// `GET /v1/events/{id}/ledger`
    @Sendable func sheet(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await represent(try await ledger.sheet(try context.uuid("id", "event"), for: context.userID))
    }

    /// `POST /v1/events/{id}/ledger/payments`
    @Sendable func pay(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "event")
        let input = try await RequestBody.decode(Ledger.PaymentInput.self, from: request, context: context)
        return try await represent(try await ledger.markPaid(id, by: context.userID, input))
    }

    /// `POST /v1/events/{id}/ledger/waivers`
    @Sendable func waive(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "event")
        let input = try await RequestBody.decode(Ledger.WaiverInput.self, from: request, context: context)
        return try await represent(try await ledger.waive(id, by: context.userID, input))
    }

    /// `POST /v1/events/{id}/ledger/refunds`
    @Sendable func refund(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "event")
        let input = try await RequestBody.decode(Ledger.RefundInput.self, from: request, context: context)
        guard input.means == LedgerEntry.Means.card.rawValue else {
            return try await represent(try await ledger.refund(id, by: context.userID, input))
        }
        // A card refund goes back through Stripe; the ledger has it when Stripe says it went through.
        guard (1...Price.maxMinorUnits).contains(input.amount), let person = UUID(uuidString: input.userId) else {
            throw DomainError.validation(["amount": "must be 1 to \(Price.maxMinorUnits) minor units, for a user_id"])
        }
        try await cards.refund(id, to: person, amount: input.amount, by: context.userID)
        return try await represent(try await ledger.sheet(id, for: context.userID), status: .accepted)
    }

    /// `POST /v1/events/{id}/ledger/claims`
    @Sendable func claim(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "event")
        let input = try await RequestBody.decode(Ledger.ClaimInput.self, from: request, context: context)
        return JSONResponse(status: .created, PaymentClaimRepresentation(claim: try await ledger.claim(id, by: context.userID, input)))
    }

    /// `POST /v1/payment-claims/{id}/confirm`
    @Sendable func confirm(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "claim")
        return try await represent(try await ledger.decide(claim: id, confirm: true, by: context.userID))
    }

    /// `POST /v1/payment-claims/{id}/decline`
    @Sendable func decline(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", "claim")
        return try await represent(try await ledger.decide(claim: id, confirm: false, by: context.userID))
    }

    /// `GET /v1/events/{id}/ledger.csv`
    @Sendable func eventCSV(_: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.uuid("id", "event")
        return Self.csvResponse(try await ledger.csv(event: id, for: context.userID), filename: "ledger-\(id.lowercased).csv")
    }

    /// `GET /v1/series/{id}/ledger.csv`
    @Sendable func seriesCSV(_: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.uuid("id", "series")
        return Self.csvResponse(try await ledger.csv(series: id, for: context.userID), filename: "ledger-series-\(id.lowercased).csv")
    }

    /// `GET /v1/me/balances`
    @Sendable func balances(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(ItemList(items: try await ledger.balances(of: context.userID).map(BalanceRepresentation.init)))
    }

    static func csvResponse(_ text: String, filename: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8; header=present",
                .contentDisposition: "attachment; filename=\"\(filename)\"",
                .cacheControl: "private, no-store",
            ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

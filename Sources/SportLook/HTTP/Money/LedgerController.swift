import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Money: a game's or a group's ledger (its keeper's sheet, or a player's own rows),
/// payments, waivers, refunds and "I paid", CSV exports, and what the caller owes across
/// games and groups.
struct LedgerController {
    let ledger: Ledger
    let cards: CardPayments

    /// The sheet as JSON, saying whether its organiser takes cards (a game's: dues are
    /// paid in cash or by transfer).
    private func represent(_ sheet: LedgerSheet, status: HTTPResponse.Status = .ok) async throws -> JSONResponse {
        let cards = sheet.event != nil ? try await cards.takesCards(sheet.keeper) : false
        return JSONResponse(status: status, LedgerSheetRepresentation(sheet: sheet, payByCard: cards))
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        for owner in ["events", "groups"] {
            routes.get("/v1/\(owner)/:id/ledger", use: sheet)
            routes.post("/v1/\(owner)/:id/ledger/payments", use: pay)
            routes.post("/v1/\(owner)/:id/ledger/waivers", use: waive)
            routes.post("/v1/\(owner)/:id/ledger/refunds", use: refund)
            routes.post("/v1/\(owner)/:id/ledger/claims", use: claim)
        }
        routes.get("/v1/events/:id/ledger.csv", use: eventCSV)
        routes.get("/v1/groups/:id/ledger.csv", use: groupCSV)
        routes.post("/v1/payment-claims/:id/confirm", use: confirm)
        routes.post("/v1/payment-claims/:id/decline", use: decline)
        routes.get("/v1/series/:id/ledger.csv", use: seriesCSV)
        routes.get("/v1/me/balances", use: balances)
    }

    /// The game (`/v1/events/…`) or group (`/v1/groups/…`) whose ledger the path names.
    private func account(_ request: Request, _ context: AuthenticatedContext) throws -> LedgerAccount {
        request.uri.path.hasPrefix("/v1/groups/") ? .group(try context.uuid("id", .group)) : .event(try context.uuid("id", .event))
    }

    /// `GET /v1/events/{id}/ledger`, `GET /v1/groups/{id}/ledger`
    @Sendable func sheet(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await represent(try await ledger.sheet(try account(request, context), for: context.userID))
    }

    /// `POST /v1/events/{id}/ledger/payments`, `POST /v1/groups/{id}/ledger/payments`
    @Sendable func pay(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let account = try account(request, context)
        let input = try await RequestBody.decode(Ledger.PaymentInput.self, from: request, context: context)
        return try await represent(try await ledger.markPaid(account, by: context.userID, input))
    }

    /// `POST /v1/events/{id}/ledger/waivers`, `POST /v1/groups/{id}/ledger/waivers`
    @Sendable func waive(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let account = try account(request, context)
        let input = try await RequestBody.decode(Ledger.WaiverInput.self, from: request, context: context)
        return try await represent(try await ledger.waive(account, by: context.userID, input))
    }

    /// `POST /v1/events/{id}/ledger/refunds`, `POST /v1/groups/{id}/ledger/refunds`
    @Sendable func refund(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let account = try account(request, context)
        let input = try await RequestBody.decode(Ledger.RefundInput.self, from: request, context: context)
        guard input.means == LedgerEntry.Means.card.rawValue, case .event(let id) = account else {
            return try await represent(try await ledger.refund(account, by: context.userID, input))
        }
        // A card refund goes back through Stripe; the ledger has it when Stripe says it went through.
        guard (1...Price.maxMinorUnits).contains(input.amount), let person = UUID(uuidString: input.userId) else {
            throw DomainError.validation(["amount": Sentence("must be 1 to \(Price.maxMinorUnits) minor units, for a user_id")])
        }
        try await cards.refund(id, to: person, amount: input.amount, by: context.userID)
        return try await represent(try await ledger.sheet(id, for: context.userID), status: .accepted)
    }

    /// `POST /v1/events/{id}/ledger/claims`, `POST /v1/groups/{id}/ledger/claims`
    @Sendable func claim(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let account = try account(request, context)
        let input = try await RequestBody.decode(Ledger.ClaimInput.self, from: request, context: context)
        return JSONResponse(
            status: .created, PaymentClaimRepresentation(claim: try await ledger.claim(account, by: context.userID, input)))
    }

    /// `POST /v1/payment-claims/{id}/confirm`
    @Sendable func confirm(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .claim)
        return try await represent(try await ledger.decide(claim: id, confirm: true, by: context.userID))
    }

    /// `POST /v1/payment-claims/{id}/decline`
    @Sendable func decline(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .claim)
        return try await represent(try await ledger.decide(claim: id, confirm: false, by: context.userID))
    }

    /// `GET /v1/events/{id}/ledger.csv`
    @Sendable func eventCSV(_: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.uuid("id", .event)
        return Self.csvResponse(try await ledger.csv(event: id, for: context.userID), filename: "ledger-\(id.lowercased).csv")
    }

    /// `GET /v1/groups/{id}/ledger.csv`
    @Sendable func groupCSV(_: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.uuid("id", .group)
        return Self.csvResponse(try await ledger.csv(group: id, for: context.userID), filename: "ledger-group-\(id.lowercased).csv")
    }

    /// `GET /v1/series/{id}/ledger.csv`
    @Sendable func seriesCSV(_: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.uuid("id", .series)
        return Self.csvResponse(try await ledger.csv(series: id, for: context.userID), filename: "ledger-series-\(id.lowercased).csv")
    }

    /// `GET /v1/me/balances`
    @Sendable func balances(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(
            BalancesRepresentation(
                games: try await ledger.balances(of: context.userID), groups: try await ledger.groupBalances(of: context.userID)))
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

import Foundation
import Hummingbird

/// Substitutes: asking for one, the places offered to the caller, taking one.
struct SubstitutesController {
    let substitutes: Substitutes

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/events/:id/substitute", use: ask)
        routes.get("/v1/me/substitute-offers", use: offers)
        routes.get("/v1/substitutes/:id", use: show)
        routes.post("/v1/substitutes/:id/accept", use: accept)
        routes.delete("/v1/substitutes/:id", use: withdraw)
    }

    /// `POST /v1/events/{id}/substitute`
    @Sendable func ask(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let input = try await RequestBody.decodeIfPresent(Substitutes.Input.self, from: request, context: context) ?? .init()
        return JSONResponse(
            status: .created, SubstituteRequestRepresentation(request: try await substitutes.request(id, by: context.userID, input)))
    }

    /// `GET /v1/me/substitute-offers`
    @Sendable func offers(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(ItemList(items: try await substitutes.offers(for: context.userID).map(SubstituteOfferRepresentation.init)))
    }

    /// `GET /v1/substitutes/{id}`
    @Sendable func show(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .substituteRequest)
        return JSONResponse(SubstituteRequestRepresentation(request: try await substitutes.request(id, for: context.userID)))
    }

    /// `POST /v1/substitutes/{id}/accept`
    @Sendable func accept(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .offer)
        return JSONResponse(SubstituteRequestRepresentation(request: try await substitutes.accept(id, by: context.userID)))
    }

    /// `DELETE /v1/substitutes/{id}`
    @Sendable func withdraw(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await substitutes.withdraw(try context.uuid("id", .substituteRequest), by: context.userID)
        return Response(status: .noContent)
    }
}

/// `{id, event_id, requester, status, created_at, expires_at, filled_by, offered_count}`.
struct SubstituteRequestRepresentation: JSONEncodable {
    var request: SubstituteRequest

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        writeFields(to: &json)
        json.objectEnd()
    }

    func writeFields(to json: inout JSONWriter) {
        json.field("id", request.id)
        json.field("event_id", request.eventID)
        json.key("requester")
        UserSummaryRepresentation(id: request.requester.id, name: request.requester.name).encode(to: &json)
        json.field("status", request.status.rawValue)
        json.field("created_at", request.createdAt)
        json.field("expires_at", request.expiresAt)
        json.key("filled_by")
        if let person = request.filledBy {
            UserSummaryRepresentation(id: person.id, name: person.name).encode(to: &json)
        } else {
            json.null()
        }
        json.field("offered_count", request.offered)
    }
}

/// A request as offered to the caller, with its game's title and start.
struct SubstituteOfferRepresentation: JSONEncodable {
    var offer: SubstituteOffer

    init(_ offer: SubstituteOffer) { self.offer = offer }

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        SubstituteRequestRepresentation(request: offer.request).writeFields(to: &json)
        json.field("event_title", offer.eventTitle)
        json.field("starts_at", offer.startsAt)
        json.objectEnd()
    }
}

import Foundation
import GeoGrid
import Hummingbird

/// People nearby, public profiles, blocking and reports.
struct PeopleController {
    let people: PeopleService
    let sports: SportCatalog
    let links: MediaLinks

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/users/nearby", use: peopleNearby)
        routes.get("/v1/users/:id", use: getUser)
        routes.post("/v1/users/:id/block", use: blockUser)
        routes.delete("/v1/users/:id/block", use: unblockUser)
        routes.get("/v1/me/blocks", use: myBlocks)
        routes.post("/v1/reports", use: report)
    }
}

struct BlockedRepresentation: JSONEncodable {
    var blocked: BlockedPerson
    init(_ blocked: BlockedPerson) { self.blocked = blocked }

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", blocked.id)
        json.field("name", blocked.name)
        json.field("blocked_at", blocked.at)
        json.objectEnd()
    }
}

// MARK: Handlers

extension PeopleController {
    /// `GET /v1/users/nearby`
    @Sendable func peopleNearby(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let lat = q.double("lat", in: -90...90, required: true)
        let lon = q.double("lon", in: -180...180, required: true)
        let radius = q.double("radius_km", in: 0...50) ?? 10
        var sport: String?
        if let slug = q.raw("sport") {
            if sports[slug] == nil { q.validator.fail("sport", Sentence("unknown sport")) } else { sport = slug }
        }
        let lowest = q.level("min_level")
        let highest = q.level("max_level")
        var levels: ClosedRange<Level>?
        if lowest != nil || highest != nil {
            let low = lowest ?? Level(halves: Level.range.lowerBound)
            let high = highest ?? Level(halves: Level.range.upperBound)
            if low > high { q.validator.fail("min_level", Sentence("must not be above max_level")) } else { levels = low...high }
            if q.raw("sport") == nil {
                q.validator.fail("sport", Sentence("is required with min_level or max_level: a level is a level in one sport"))
            }
        }
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(PeopleService.Cursor.self)
        try q.throwIfInvalid()
        guard let lat, let lon, let center = GeoPoint(latitude: lat, longitude: lon) else {
            throw DomainError.invalidParameter("lat", Sentence("is required"))
        }
        let page = try await people.nearby(
            for: context.userID, center: center, radiusKm: radius, sport: sport, levels: levels, limit: limit, cursor: cursor)
        return JSONResponse(body: PeopleJSON.nearby(page, sports: sports))
    }

    /// `GET /v1/users/{id}`
    @Sendable func getUser(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(
            PublicProfileRepresentation(
                profile: try await people.profile(of: try context.uuid("id", .user), for: context.userID), sports: people.sports,
                links: links))
    }

    /// `POST /v1/users/{id}/block`
    @Sendable func blockUser(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await people.block(try context.uuid("id", .user), by: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/users/{id}/block`
    @Sendable func unblockUser(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await people.unblock(try context.uuid("id", .user), by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/me/blocks`
    @Sendable func myBlocks(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        let (items, more) = try await people.safety.blocks(of: context.userID, cursor: cursor, limit: limit)
        let next = more ? items.last.map { TimeCursor(time: $0.at, id: $0.id).cursor } : nil
        return JSONResponse(Page(items: items.map(BlockedRepresentation.init), nextCursor: next))
    }

    /// `POST /v1/reports`
    @Sendable func report(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(PeopleService.ReportInput.self, from: request, context: context)
        let (report, created) = try await people.report(input, by: context.userID)
        return JSONResponse(status: created ? .created : .ok, ReportRepresentation(report: report))
    }
}

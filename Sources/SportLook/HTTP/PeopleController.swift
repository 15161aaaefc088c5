import Foundation
import GeoGrid
import Hummingbird

/// People nearby, public profiles, blocking and reports.
struct PeopleController {
    let people: PeopleService
    let sports: SportCatalog
    let links: MediaLinks

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("users/nearby") { request, context in
            var q = QueryReader(request)
            let lat = q.double("lat", in: -90...90, required: true)
            let lon = q.double("lon", in: -180...180, required: true)
            let radius = q.double("radius_km", in: 0...50) ?? 10
            var sport: String?
            if let slug = q.raw("sport") {
                if sports[slug] == nil { q.validator.fail("sport", "unknown sport") } else { sport = slug }
            }
            let limit = q.limit(default: 20, max: 100)
            let cursor = q.cursor(PeopleService.Cursor.self)
            try q.throwIfInvalid()
            guard let lat, let lon, let center = GeoPoint(latitude: lat, longitude: lon) else { throw DomainError.invalidParameter("lat", "is required") }
            return JSONResponse(bytes: PeopleJSON.nearby(try await people.nearby(for: context.userID, center: center, radiusKm: radius, sport: sport, limit: limit, cursor: cursor)))
        }
        routes.get("users/:id") { _, context in
            JSONResponse(PublicProfileRepresentation(profile: try await people.profile(of: try context.uuid("id", "user"), for: context.userID), sports: people.sports, links: links))
        }
        routes.post("users/:id/block") { _, context in
            try await people.block(try context.uuid("id", "user"), by: context.userID)
            return Response(status: .noContent)
        }
        routes.delete("users/:id/block") { _, context in
            try await people.unblock(try context.uuid("id", "user"), by: context.userID)
            return Response(status: .noContent)
        }
        routes.get("me/blocks") { request, context in
            var q = QueryReader(request)
            let limit = q.limit(default: 50, max: 100)
            let cursor = q.cursor(TimeCursor.self)
            try q.throwIfInvalid()
            let (items, more) = try await people.safety.blocks(of: context.userID, cursor: cursor, limit: limit)
            let next = more ? items.last.map { TimeCursor(time: $0.at, id: $0.id).cursor } : nil
            return JSONResponse(Page(items: items.map(BlockedRepresentation.init), nextCursor: next))
        }
        routes.post("reports") { request, context in
            let input = try await RequestBody.decode(PeopleService.ReportInput.self, from: request, context: context)
            let (report, created) = try await people.report(input, by: context.userID)
            return JSONResponse(status: created ? .created : .ok, ReportRepresentation(report: report))
        }
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

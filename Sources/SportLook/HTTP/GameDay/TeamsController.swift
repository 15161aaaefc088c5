import Foundation
import Hummingbird

/// Fair teams: the organiser's plan and the teams the people going see.
struct TeamsController {
    let teams: Teams

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/events/:id/teams", use: show)
        routes.put("/v1/events/:id/teams", use: plan)
        routes.delete("/v1/events/:id/teams", use: clear)
    }

    /// `GET /v1/events/{id}/teams`
    @Sendable func show(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        return JSONResponse(TeamsRepresentation(eventID: id, sheet: try await teams.sheet(id, for: context.userID)))
    }

    /// `PUT /v1/events/{id}/teams`
    @Sendable func plan(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let input = try await RequestBody.decode(Teams.Input.self, from: request, context: context)
        return JSONResponse(TeamsRepresentation(eventID: id, sheet: try await teams.plan(id, by: context.userID, input)))
    }

    /// `DELETE /v1/events/{id}/teams`
    @Sendable func clear(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await teams.clear(try context.uuid("id", .event), by: context.userID)
        return Response(status: .noContent)
    }
}

/// `{event_id, plan, teams: [{number, players: [{id, name, fixed}]}], unplaced}`: the teams (no
/// levels: a level is its owner's, and a team's mean would give a pair's away),
/// numbered from 1, and the people going who are on none yet.
struct TeamsRepresentation: JSONEncodable {
    var eventID: UUID
    var sheet: Teams.Sheet

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("event_id", eventID)
        json.key("plan")
        if let plan = sheet.plan {
            json.objectStart()
            json.field("count", plan.count)
            json.field("method", plan.method.rawValue)
            json.field("publish_minutes", plan.publishMinutes)
            json.field("published_at", plan.publishedAt)
            json.objectEnd()
        } else {
            json.null()
        }
        json.key("teams")
        json.arrayStart()
        for team in 0..<(sheet.plan?.count ?? 0) {
            let players = sheet.members.filter { $0.team == team }
            json.objectStart()
            json.field("number", team + 1)
            Self.write(players, as: "players", to: &json)
            json.objectEnd()
        }
        json.arrayEnd()
        Self.write(sheet.members.filter { $0.team == nil }, as: "unplaced", to: &json)
        json.objectEnd()
    }

    private static func write(_ players: [TeamMember], as key: String, to json: inout JSONWriter) {
        json.key(key)
        json.arrayStart()
        for player in players {
            json.objectStart()
            json.field("id", player.user.id)
            json.field("name", player.user.name)
            json.field("fixed", player.fixed)
            json.objectEnd()
        }
        json.arrayEnd()
    }
}

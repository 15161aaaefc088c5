import Foundation
import Hummingbird

/// `/v1/me/player`: the caller's level per sport and gender, theirs alone to see.
struct PlayerController {
    let players: Players

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/me/player", use: getPlayer)
        routes.patch("/v1/me/player", use: updatePlayer)
    }

    /// `GET /v1/me/player`
    @Sendable func getPlayer(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(PlayerRepresentation(player: try await players.profile(of: context.userID)))
    }

    /// `PATCH /v1/me/player`
    @Sendable func updatePlayer(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(Players.Input.self, from: request, context: context)
        return JSONResponse(PlayerRepresentation(player: try await players.update(context.userID, input)))
    }
}

/// `{gender, levels: {sport: level}}`.
struct PlayerRepresentation: JSONEncodable {
    var player: PlayerProfile

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("gender", player.gender?.rawValue)
        json.key("levels")
        json.objectStart()
        for (slug, level) in player.levels.sorted(by: { $0.key < $1.key }) { json.field(slug, level.value) }
        json.objectEnd()
        json.objectEnd()
    }
}

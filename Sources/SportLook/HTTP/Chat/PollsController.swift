import Foundation
import Hummingbird

/// Polls over HTTP: votes, an early close, and a closed time poll made a game or a
/// series. A poll is sent as a message with a `poll` (``ChatController``).
struct PollsController {
    let polls: Polls
    let links: MediaLinks

    struct VoteInput: Decodable { var options: [Int]? }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.put("/v1/rooms/:id/messages/:seq/poll/votes", use: vote)
        routes.post("/v1/rooms/:id/messages/:seq/poll/close", use: close)
        routes.post("/v1/rooms/:id/messages/:seq/poll/schedule", use: schedule)
    }

    /// `PUT /v1/rooms/{id}/messages/{seq}/poll/votes`
    @Sendable func vote(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        let input = try await RequestBody.decode(VoteInput.self, from: request, context: context)
        let message = try await polls.vote(id, seq: seq, by: context.userID, positions: input.options)
        return JSONResponse(ChatMessageRepresentation(message: message, links: links))
    }

    /// `POST /v1/rooms/{id}/messages/{seq}/poll/close`
    @Sendable func close(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        return JSONResponse(ChatMessageRepresentation(message: try await polls.close(id, seq: seq, by: context.userID), links: links))
    }

    /// `POST /v1/rooms/{id}/messages/{seq}/poll/schedule`
    @Sendable func schedule(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        let making = try await RequestBody.decode(Polls.Making.self, from: request, context: context)
        let made = try await polls.make(id, seq: seq, by: context.userID, making)
        return JSONResponse(status: .created, MadeRepresentation(made: made, links: links))
    }
}

/// What a closed time poll became, and who was invited.
struct MadeRepresentation: JSONEncodable {
    var made: Polls.Made
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("message")
        ChatMessageRepresentation(message: made.message, links: links).encode(to: &json)
        json.field("event_id", made.event?.id)
        json.field("series_id", made.series?.series.id)
        json.key("game_id")
        if let game = made.event ?? made.series?.upcoming.first { json.value(game.id) } else { json.null() }
        json.key("invited")
        json.arrayStart()
        for user in made.invited { json.value(user) }
        json.arrayEnd()
        json.objectEnd()
    }
}

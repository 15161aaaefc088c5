import Foundation
import Hummingbird

/// Polls over HTTP: votes, an early close, and a closed time poll made a game or a
/// series. A poll is sent as a message with a `poll` (``ChatController``).
struct PollsController {
    let polls: Polls
    let links: MediaLinks

    struct VoteInput: Decodable { var options: [Int]? }
    struct MakeInput: Decodable {
        var option: Int?
        var event: EventService.Input?
        var series: SeriesService.Input?
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.put("/v1/rooms/:id/messages/:seq/poll/votes", use: vote)
        routes.post("/v1/rooms/:id/messages/:seq/poll/close", use: close)
        routes.post("/v1/rooms/:id/messages/:seq/poll/schedule", use: schedule)
    }

    /// The room and the poll message's seq named by the path.
    private func poll(_ context: AuthenticatedContext) throws -> (UUID, Int64) {
        let id = try context.uuid("id", "room")
        guard let text = context.parameters.get("seq"), text.count <= 12, let seq = Int64(text), seq >= 1 else {
            throw DomainError.notFound("message")
        }
        return (id, seq)
    }

    /// `PUT /v1/rooms/{id}/messages/{seq}/poll/votes`
    @Sendable func vote(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try poll(context)
        let input = try await RequestBody.decode(VoteInput.self, from: request, context: context)
        let message = try await polls.vote(id, seq: seq, by: context.userID, positions: input.options)
        return JSONResponse(ChatMessageRepresentation(message: message, links: links))
    }

    /// `POST /v1/rooms/{id}/messages/{seq}/poll/close`
    @Sendable func close(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try poll(context)
        return JSONResponse(ChatMessageRepresentation(message: try await polls.close(id, seq: seq, by: context.userID), links: links))
    }

    /// `POST /v1/rooms/{id}/messages/{seq}/poll/schedule`
    @Sendable func schedule(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try poll(context)
        let input = try await RequestBody.decode(MakeInput.self, from: request, context: context)
        let made = try await polls.make(
            id, seq: seq, by: context.userID, .init(option: input.option, event: input.event, series: input.series))
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

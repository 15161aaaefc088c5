import Foundation
import Hummingbird

/// Scores and the levels they move: entering, confirming or disputing a game's score,
/// and a person's level history.
struct ResultsController {
    let results: Results
    let sports: SportCatalog

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/events/:id/result", use: show)
        routes.post("/v1/events/:id/result", use: enter)
        routes.post("/v1/events/:id/result/confirm", use: confirm)
        routes.post("/v1/events/:id/result/dispute", use: dispute)
        routes.get("/v1/me/levels/history", use: history)
    }

    /// `GET /v1/events/{id}/result`
    @Sendable func show(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(ResultRepresentation(result: try await results.result(try context.uuid("id", .event), for: context.userID)))
    }

    /// `POST /v1/events/{id}/result`
    @Sendable func enter(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let input = try await RequestBody.decode(Results.Input.self, from: request, context: context)
        return JSONResponse(status: .created, ResultRepresentation(result: try await results.enter(id, by: context.userID, input)))
    }

    /// `POST /v1/events/{id}/result/confirm`
    @Sendable func confirm(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        return JSONResponse(ResultRepresentation(result: try await results.answer(id, by: context.userID, confirming: true)))
    }

    /// `POST /v1/events/{id}/result/dispute`
    @Sendable func dispute(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        return JSONResponse(ResultRepresentation(result: try await results.answer(id, by: context.userID, confirming: false)))
    }

    /// `GET /v1/me/levels/history?sport=`
    @Sendable func history(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let sport = q.raw("sport")
        if let sport, sports[sport] == nil { q.validator.fail("sport", Sentence("unknown sport")) }
        try q.throwIfInvalid()
        return JSONResponse(LevelHistoryRepresentation(moves: try await results.history(of: context.userID, sport: sport)))
    }
}

/// `{event_id, scores, status, entered_by, entered_team, entered_at, answer_by, answered_by, answered_at, levels_moved}`.
struct ResultRepresentation: JSONEncodable {
    var result: GameResult

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("event_id", result.eventID)
        json.key("scores")
        json.arrayStart()
        for score in result.scores { json.value(score) }
        json.arrayEnd()
        json.field("status", result.status.rawValue)
        Self.person("entered_by", result.enteredBy, to: &json)
        json.field("entered_team", result.enteredTeam + 1)
        json.field("entered_at", result.enteredAt)
        json.field("answer_by", result.enteredAt.addingTimeInterval(Results.answerWindow))
        Self.person("answered_by", result.answeredBy, to: &json)
        json.field("answered_at", result.answeredAt)
        json.field("levels_moved", result.appliedAt != nil)
        json.objectEnd()
    }

    private static func person(_ key: String, _ person: UserSummary?, to json: inout JSONWriter) {
        json.key(key)
        if let person { UserSummaryRepresentation(id: person.id, name: person.name).encode(to: &json) } else { json.null() }
    }
}

/// `{items: [{sport, event_id, event_title, before, after, level, at}]}`: ratings in levels with two decimals.
struct LevelHistoryRepresentation: JSONEncodable {
    var moves: [LevelChange]

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("items")
        json.arrayStart()
        for move in moves {
            json.objectStart()
            json.field("sport", move.sport)
            json.field("event_id", move.eventID)
            json.field("event_title", move.eventTitle)
            json.field("before", Double(move.before) / 100)
            json.field("after", Double(move.after) / 100)
            json.field("level", Ratings.level(move.after).value)
            json.field("at", move.at)
            json.objectEnd()
        }
        json.arrayEnd()
        json.objectEnd()
    }
}

import Foundation
import Hummingbird

/// Series: the weekly game (`/v1/series…`). Its games are events (`/v1/events/{id}`)
/// with `series_id` and `occurrence_date`.
struct SeriesController {
    let series: SeriesService
    let sports: SportCatalog
    let links: MediaLinks

    struct DateInput: Decodable { var date: String? }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/series", use: createSeries)
        routes.get("/v1/series/:id", use: getSeries)
        routes.delete("/v1/series/:id", use: endSeries)
        routes.post("/v1/series/:id/split", use: splitSeries)
        routes.get("/v1/series/:id/regulars", use: listRegulars)
        routes.post("/v1/series/:id/regulars", use: joinSeries)
        routes.delete("/v1/series/:id/regulars", use: leaveSeries)
        routes.post("/v1/series/:id/skips", use: skipDate)
        routes.post("/v1/series/:id/opt-outs", use: optOut)
    }

    func representation(_ view: SeriesService.View) -> SeriesRepresentation {
        SeriesRepresentation(view: view, sport: sports[view.series.sport], links: links)
    }

    /// `POST /v1/series`
    @Sendable func createSeries(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(SeriesService.Input.self, from: request, context: context)
        let view = try await series.create(by: context.userID, input)
        return JSONResponse(status: .created, representation(view), headers: [.location: "/v1/series/\(view.series.id.lowercased)"])
    }

    /// `GET /v1/series/{id}`
    @Sendable func getSeries(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(representation(try await series.view(try context.uuid("id", .series), for: context.userID)))
    }

    /// `DELETE /v1/series/{id}`
    @Sendable func endSeries(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await series.end(try context.uuid("id", .series), by: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/series/{id}/split`: "this and following".
    @Sendable func splitSeries(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(SeriesService.Input.self, from: request, context: context)
        let view = try await series.split(try context.uuid("id", .series), by: context.userID, input)
        return JSONResponse(status: .created, representation(view), headers: [.location: "/v1/series/\(view.series.id.lowercased)"])
    }

    /// `GET /v1/series/{id}/regulars`
    @Sendable func listRegulars(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let regulars = try await series.regulars(of: try context.uuid("id", .series), for: context.userID)
        return JSONResponse(
            ItemList(items: regulars.enumerated().map { RegularRepresentation(regular: $0.element, position: $0.offset + 1) }))
    }

    /// `POST /v1/series/{id}/regulars`
    @Sendable func joinSeries(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(representation(try await series.join(try context.uuid("id", .series), user: context.userID)))
    }

    /// `DELETE /v1/series/{id}/regulars`
    @Sendable func leaveSeries(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await series.leave(try context.uuid("id", .series), user: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/series/{id}/skips`
    @Sendable func skipDate(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(DateInput.self, from: request, context: context)
        try await series.skip(try context.uuid("id", .series), date: input.date, by: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/series/{id}/opt-outs`
    @Sendable func optOut(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(DateInput.self, from: request, context: context)
        try await series.optOut(try context.uuid("id", .series), date: input.date, user: context.userID)
        return Response(status: .noContent)
    }
}

/// A series: its template, its rule, and its games to come.
struct SeriesRepresentation: JSONEncodable {
    var view: SeriesService.View
    var sport: Sport?
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        let s = view.series
        json.objectStart()
        json.field("id", s.id)
        json.field("title", s.title)
        EventJSON.writeSport(s.sport, sport, to: &json)
        json.key("organiser")
        UserSummaryRepresentation(id: s.organiserID, name: s.organiserName).encode(to: &json)
        json.field("group_id", s.groupID)
        json.field("members_only", s.membersOnly)
        PriceJSON.write(s.price, to: &json)
        json.field("description", s.description)
        json.field("address", s.address)
        EventJSON.writeLocation(s.location, to: &json)
        json.field("capacity", s.capacity)
        json.field("time_zone", s.timeZone)
        json.field("first_date", s.firstDate.description)
        json.field("start_time", s.startTime)
        json.field("duration_minutes", s.durationMinutes)
        json.field("rule", s.rule.text)
        json.key("reminders")
        json.arrayStart()
        for minutes in s.reminders { json.value(minutes) }
        json.arrayEnd()
        json.field("status", s.status.rawValue)
        json.field("followed_by", s.followedBy)
        json.field("regulars_count", view.regulars)
        json.field("i_am_regular", view.isRegular)
        json.key("upcoming")
        json.arrayStart()
        for event in view.upcoming {
            json.objectStart()
            json.field("event_id", event.id)
            json.field("date", event.occurrenceDate)
            json.field("starts_at", event.startsAt)
            json.field("status", event.status.rawValue)
            json.field("going_count", event.goingCount)
            json.objectEnd()
        }
        json.arrayEnd()
        json.field("created_at", s.createdAt)
        json.objectEnd()
    }
}

/// `{user, joined_at, position}`: a regular, in the order they joined.
struct RegularRepresentation: JSONEncodable {
    var regular: SeriesRegular
    var position: Int

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        UserSummaryRepresentation(id: regular.user.id, name: regular.user.name).encode(to: &json)
        json.field("joined_at", regular.joinedAt)
        json.field("position", position)
        json.objectEnd()
    }
}

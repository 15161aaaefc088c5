import Foundation
import GeoGrid
import Hummingbird

/// Events, attendance, and finding events.
struct EventsController {
    let events: EventService
    let search: EventSearch
    let showingUp: ShowingUp
    let sports: SportCatalog
    let links: MediaLinks

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/events", use: createEvent)
        routes.get("/v1/events/nearby", use: eventsNearby)
        routes.get("/v1/events/in-box", use: eventsInBox)
        routes.get("/v1/events/:id", use: getEvent)
        routes.patch("/v1/events/:id", use: updateEvent)
        routes.delete("/v1/events/:id", use: cancelEvent)
        routes.post("/v1/events/:id/remind", use: remindEveryone)
        routes.post("/v1/events/:id/attendance", use: joinEvent)
        routes.delete("/v1/events/:id/attendance", use: leaveEvent)
        routes.post("/v1/events/:id/maybe", use: answerMaybe)
        routes.post("/v1/events/:id/offer", use: acceptOffer)
        routes.delete("/v1/events/:id/offer", use: declineOffer)
        routes.get("/v1/events/:id/attendees", use: listAttendees)
        routes.delete("/v1/events/:id/attendees/:user_id", use: removeAttendee)
        routes.get("/v1/events/:id/bans", use: listBans)
        routes.delete("/v1/events/:id/bans/:user_id", use: liftBan)
        routes.get("/v1/me/events", use: myEvents)
        routes.get("/v1/groups/:id/events", use: groupEvents)
    }

    private func readFilters(_ q: inout QueryReader) -> EventSearch.Filters {
        var filters = EventSearch.Filters()
        if let sport = q.raw("sport") {
            if sports[sport] == nil { q.validator.fail("sport", Sentence("unknown sport")) } else { filters.sport = sport }
        }
        filters.startsAfter = q.date("starts_after")
        filters.startsBefore = q.date("starts_before")
        filters.level = q.level("level")
        filters.audiences = Set(q.list("audience", of: Audience.self))
        filters.freePlaces = q.bool("free_places") ?? false
        return filters
    }
}

/// `{user, banned_at}`: someone banned from an event or a group.
struct BanRepresentation: JSONEncodable {
    var ban: Ban

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        UserSummaryRepresentation(id: ban.user.id, name: ban.user.name).encode(to: &json)
        json.field("banned_at", ban.bannedAt)
        json.objectEnd()
    }
}

/// `{status, position?}` after joining.
struct JoinedRepresentation: JSONEncodable {
    var joined: EventService.Joined

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("status", joined.status.rawValue)
        if let position = joined.position { json.field("position", position) }
        json.objectEnd()
    }
}

// MARK: Handlers

extension EventsController {
    /// `POST /v1/events`
    @Sendable func createEvent(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(EventService.Input.self, from: request, context: context)
        let event = try await events.create(by: context.userID, input)
        let mine = MyAttendance(status: .going, position: nil, isOrganiser: true)
        return JSONResponse(
            status: .created, EventRepresentation(event: event, sport: sports[event.sport], links: links, mine: mine),
            headers: [.location: "/v1/events/\(event.id.lowercased)"])
    }

    /// `GET /v1/events/nearby`
    @Sendable func eventsNearby(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let lat = q.double("lat", in: -90...90, required: true)
        let lon = q.double("lon", in: -180...180, required: true)
        let radius = q.double("radius_km", in: 0...100) ?? 10
        let filters = readFilters(&q)
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(EventSearch.DistanceCursor.self)
        try q.throwIfInvalid()
        guard let lat, let lon, let center = GeoPoint(latitude: lat, longitude: lon) else {
            throw DomainError.invalidParameter("lat", Sentence("is required"))
        }
        let page = try await search.page(
            in: .radius(center: center, metres: radius * 1_000), filters: filters, limit: limit, cursor: cursor, for: context.userID)
        return JSONResponse(body: EventJSON.nearby(page))
    }

    /// `GET /v1/events/in-box`
    @Sendable func eventsInBox(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let minLat = q.double("min_lat", in: -90...90, required: true)
        let maxLat = q.double("max_lat", in: -90...90, required: true)
        let minLon = q.double("min_lon", in: -180...180, required: true)
        let maxLon = q.double("max_lon", in: -180...180, required: true)
        let filters = readFilters(&q)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(EventSearch.DistanceCursor.self)
        if let minLat, let maxLat, minLat > maxLat { q.validator.fail("min_lat", Sentence("must not be above max_lat")) }
        try q.throwIfInvalid()
        guard let minLat, let maxLat, let minLon, let maxLon,
            let box = GeoBox(minLatitude: minLat, minLongitude: minLon, maxLatitude: maxLat, maxLongitude: maxLon)
        else { throw DomainError.invalidParameter("min_lat", Sentence("is required")) }
        let page = try await search.page(in: .box(box), filters: filters, limit: limit, cursor: cursor, for: context.userID)
        return JSONResponse(body: EventJSON.nearby(page))
    }

    /// `GET /v1/events/{id}`
    @Sendable func getEvent(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (event, mine) = try await events.event(try context.uuid("id", .event), for: context.userID)
        return JSONResponse(EventRepresentation(event: event, sport: sports[event.sport], links: links, mine: mine))
    }

    /// `PATCH /v1/events/{id}`
    @Sendable func updateEvent(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let input = try await RequestBody.decode(EventService.Input.self, from: request, context: context)
        let (event, mine) = try await events.update(id, by: context.userID, input)
        return JSONResponse(EventRepresentation(event: event, sport: sports[event.sport], links: links, mine: mine))
    }

    /// `DELETE /v1/events/{id}`
    @Sendable func cancelEvent(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await events.cancel(try context.uuid("id", .event), by: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/events/{id}/remind`
    @Sendable func remindEveryone(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await events.remindNow(try context.uuid("id", .event), by: context.userID)
        return Response(status: .accepted)
    }

    /// `POST /v1/events/{id}/attendance`
    @Sendable func joinEvent(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let joined = try await events.join(try context.uuid("id", .event), user: context.userID)
        return JSONResponse(JoinedRepresentation(joined: joined))
    }

    /// `POST /v1/events/{id}/maybe`
    @Sendable func answerMaybe(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(JoinedRepresentation(joined: try await events.answerMaybe(try context.uuid("id", .event), user: context.userID)))
    }

    /// `POST /v1/events/{id}/offer`: take the place offered.
    @Sendable func acceptOffer(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(JoinedRepresentation(joined: try await events.acceptOffer(try context.uuid("id", .event), user: context.userID)))
    }

    /// `DELETE /v1/events/{id}/offer`: decline it (off the waitlist).
    @Sendable func declineOffer(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await events.declineOffer(try context.uuid("id", .event), user: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/events/{id}/attendance`
    @Sendable func leaveEvent(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await events.leave(try context.uuid("id", .event), user: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/events/{id}/attendees`
    @Sendable func listAttendees(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(EventSearch.AttendeeCursor.self)
        try q.throwIfInvalid()
        let page = try await search.attendees(of: id, for: context.userID, cursor: cursor, limit: limit)
        let records = try await showingUp.records(of: page.items.map(\.id), at: id, for: context.userID)
        return JSONResponse(page.map { AttendeeRepresentation(attendee: $0, links: links, record: records?[$0.id]) })
    }

    /// `DELETE /v1/events/{id}/attendees/{user_id}?ban=`
    @Sendable func removeAttendee(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let user = try context.uuid("user_id", .user)
        var q = QueryReader(request)
        let ban = q.bool("ban") ?? false
        try q.throwIfInvalid()
        try await events.remove(user, from: id, by: context.userID, ban: ban)
        return Response(status: .noContent)
    }

    /// `GET /v1/events/{id}/bans`
    @Sendable func listBans(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        return JSONResponse(
            try await events.bans(of: id, for: context.userID, cursor: cursor, limit: limit).map { BanRepresentation(ban: $0) })
    }

    /// `DELETE /v1/events/{id}/bans/{user_id}`
    @Sendable func liftBan(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await events.unban(try context.uuid("user_id", .user), from: try context.uuid("id", .event), by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/groups/{id}/events`: the group's coming games the caller may see.
    @Sendable func groupEvents(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        var q = QueryReader(request)
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        let sports = search.sports
        return JSONResponse(
            try await search.groupEvents(of: id, for: context.userID, cursor: cursor, limit: limit).map {
                EventRepresentation(event: $0.0, sport: sports[$0.0.sport], links: links, mine: $0.1)
            })
    }

    /// `GET /v1/me/events`
    @Sendable func myEvents(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let role = q.oneOf("role", ["attending", "organising"]).flatMap(EventSearch.Role.init) ?? .attending
        let when = q.oneOf("when", ["upcoming", "past"]).flatMap(EventSearch.When.init) ?? .upcoming
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        let sports = search.sports
        return JSONResponse(
            try await search.myEvents(user: context.userID, role: role, when: when, cursor: cursor, limit: limit).map {
                EventRepresentation(event: $0.event, sport: sports[$0.event.sport], links: links, mine: $0.mine)
            })
    }
}

import Foundation
import HTTPTypes
import Hummingbird

/// Calendars: one event as iCalendar, and a person's feed (`/v1/calendar/{secret}.ics`,
/// read by phone calendars, which send no token).
struct CalendarController {
    let events: EventService
    let feeds: CalendarFeeds
    let clock: any AppClock

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/events/:id/calendar.ics", use: eventCalendar)
        routes.post("/v1/me/calendar", use: openCalendarFeed)
        routes.delete("/v1/me/calendar", use: closeCalendarFeed)
    }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/v1/calendar/:file", use: calendarFeed)
    }

    static func calendarResponse(_ text: String, filename: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/calendar; charset=utf-8",
                .contentDisposition: "inline; filename=\"\(filename)\"",
                // A feed changes as games do: calendars look again, but not on every glance.
                .cacheControl: "private, max-age=300",
            ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// `GET /v1/events/{id}/calendar.ics`
    @Sendable func eventCalendar(_: Request, context: AuthenticatedContext) async throws -> Response {
        let (event, _) = try await events.event(try context.uuid("id", .event), for: context.userID)
        return Self.calendarResponse(
            ICalendar.calendar([event], name: event.title, now: clock.now()), filename: "\(event.id.lowercased).ics")
    }

    /// `POST /v1/me/calendar`
    @Sendable func openCalendarFeed(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let secret = try await feeds.open(for: context.userID)
        return JSONResponse(status: .created, CalendarFeedRepresentation(path: "/v1/calendar/\(secret).ics"))
    }

    /// `DELETE /v1/me/calendar`
    @Sendable func closeCalendarFeed(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await feeds.close(for: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/calendar/{secret}.ics`
    @Sendable func calendarFeed(_: Request, context: AppRequestContext) async throws -> Response {
        guard let file = context.parameters.get("file"), file.hasSuffix(".ics"),
            let feed = try await feeds.feed(String(file.dropLast(4)))
        else { throw DomainError.notFound(.calendar) }
        return Self.calendarResponse(
            ICalendar.calendar(feed.events, name: "SportLook: \(feed.name)", now: clock.now()), filename: "sportlook.ics")
    }
}

/// `{path}`: where a person's calendar feed is, on this server.
struct CalendarFeedRepresentation: JSONEncodable {
    var path: String

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("path", path)
        json.objectEnd()
    }
}

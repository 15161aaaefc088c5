import Foundation
import Hummingbird

/// Who showed up: check-in, the organiser's attendance sheet, and a person's record.
struct ShowingUpController {
    let showingUp: ShowingUp

    struct CheckInInput: Decodable { var location: LocationInput? }

    struct MarkInput: Decodable {
        var outcome: Patch<String> = .absent
        enum CodingKeys: String, CodingKey { case outcome }
        init(from decoder: any Decoder) throws { outcome = try decoder.container(keyedBy: CodingKeys.self).patch(.outcome) }
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/events/:id/check-in", use: checkIn)
        routes.get("/v1/events/:id/sheet", use: sheet)
        routes.put("/v1/events/:id/sheet/:user_id", use: mark)
        routes.get("/v1/me/record", use: record)
    }

    /// `POST /v1/events/{id}/check-in`
    @Sendable func checkIn(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(CheckInInput.self, from: request, context: context)
        let row = try await showingUp.checkIn(try context.uuid("id", .event), user: context.userID, location: input.location)
        return JSONResponse(SheetRowRepresentation(row: row, record: nil))
    }

    /// `GET /v1/events/{id}/sheet`
    @Sendable func sheet(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let rows = try await showingUp.sheet(try context.uuid("id", .event), for: context.userID)
        return JSONResponse(ItemList(items: rows.map { SheetRowRepresentation(row: $0.row, record: $0.record) }))
    }

    /// `PUT /v1/events/{id}/sheet/{user_id}`
    @Sendable func mark(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let user = try context.uuid("user_id", .attendee)
        let input = try await RequestBody.decode(MarkInput.self, from: request, context: context)
        let outcome: String?
        switch input.outcome {
        case .value(let text): outcome = text
        case .null: outcome = nil
        case .absent:
            throw DomainError.validation(["outcome": Sentence("is required: attended, no_show, excused, or null to take the mark back")])
        }
        let row = try await showingUp.mark(id, user: user, by: context.userID, outcome: outcome)
        return JSONResponse(SheetRowRepresentation(row: row, record: nil))
    }

    /// `GET /v1/me/record`
    @Sendable func record(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(RecordRepresentation(record: try await showingUp.record(of: context.userID)))
    }
}

/// `{games, attended, no_shows, late_cancellations, excused}`: a record in figures.
struct RecordSummaryRepresentation: JSONEncodable {
    var record: Reliability

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        writeFields(to: &json)
        json.objectEnd()
    }

    /// `"record": {…}`, or null when there is none to show.
    static func write(_ record: Reliability?, to json: inout JSONWriter) {
        json.key("record")
        if let record { RecordSummaryRepresentation(record: record).encode(to: &json) } else { json.null() }
    }

    func writeFields(to json: inout JSONWriter) {
        json.field("games", record.entries.count)
        json.field("attended", record.count(.attended))
        json.field("no_shows", record.count(.noShow))
        json.field("late_cancellations", record.count(.lateCancel))
        json.field("excused", record.count(.excused))
    }
}

/// The person's own record: the figures and the games behind them, latest first.
struct RecordRepresentation: JSONEncodable {
    var record: Reliability

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        RecordSummaryRepresentation(record: record).writeFields(to: &json)
        json.key("window")
        json.objectStart()
        json.field("games", Reliability.games)
        json.field("days", Int(Reliability.window / 86_400))
        json.objectEnd()
        json.key("items")
        json.arrayStart()
        for game in record.entries {
            json.objectStart()
            json.field("event_id", game.eventID)
            json.field("title", game.title)
            json.field("starts_at", game.startsAt)
            json.field("outcome", game.outcome.rawValue)
            json.objectEnd()
        }
        json.arrayEnd()
        json.objectEnd()
    }
}

/// A line of the attendance sheet (with the person's record for the organiser).
struct SheetRowRepresentation: JSONEncodable {
    var row: SheetRow
    var record: Reliability?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        UserSummaryRepresentation(id: row.user.id, name: row.user.name).encode(to: &json)
        json.field("going", row.going)
        json.field("checked_in_at", row.checkedInAt)
        json.field("mark", row.mark?.rawValue)
        json.field("late_cancelled_at", row.lateCancelledAt)
        json.field("outcome", row.outcome?.rawValue)
        RecordSummaryRepresentation.write(record, to: &json)
        json.objectEnd()
    }
}

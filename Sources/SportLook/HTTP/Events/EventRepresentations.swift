import Foundation
import NIOCore

/// Writes events as JSON.
///
/// An event's JSON is written in two parts so lists can reuse the first: the
/// shared ``writeBody(_:sport:to:)`` (every field but the closing brace) and the
/// per-caller tail (`my_status`, `distance_m`).
enum EventJSON {
    /// The event index's card encoder: ``body(_:sports:links:)`` with this catalogue.
    static func cardEncoder(sports: SportCatalog, links: MediaLinks) -> @Sendable (Event) -> [UInt8] {
        { body($0, sports: sports, links: links) }
    }

    /// `{"id":…,…,"created_at":…` — an unterminated object.
    static func body(_ event: Event, sports: SportCatalog, links: MediaLinks) -> [UInt8] {
        var json = JSONWriter(capacity: 768 + event.description.utf8.count)
        writeBody(event, sport: sports[event.sport], links: links, to: &json)
        return json.bytes
    }

    static func writeBody(_ event: Event, sport: Sport?, links: MediaLinks, to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", event.id)
        json.field("title", event.title)
        writeSport(event.sport, sport, to: &json)
        json.key("organiser")
        json.objectStart()
        json.field("id", event.organiserID)
        json.field("name", event.organiserName)
        json.objectEnd()
        json.field("starts_at", event.startsAt)
        json.field("ends_at", event.endsAt)
        json.field("time_zone", event.timeZone)
        json.field("series_id", event.seriesID)
        json.field("group_id", event.groupID)
        json.field("members_only", event.membersOnly)
        json.field("occurrence_date", event.occurrenceDate)
        json.field("answer_deadline", event.answerDeadline)
        json.field("min_players", event.minPlayers)
        json.field("decide_minutes", event.decideMinutes)
        json.field("game_on", event.gameOnAt != nil)
        json.key("level")
        if let range = event.levelRange {
            json.objectStart()
            json.field("min", range.lowerBound.value)
            json.field("max", range.upperBound.value)
            json.objectEnd()
        } else {
            json.null()
        }
        json.field("audience", event.audience.rawValue)
        json.field("competitive", event.competitive)
        PriceJSON.write(event.price, to: &json)
        json.key("min_record")
        if let rule = event.recordRule {
            json.objectStart()
            json.field("last_games", rule.lastGames)
            json.field("max_no_shows", rule.maxNoShows)
            json.objectEnd()
        } else {
            json.null()
        }
        json.key("reminders")
        json.arrayStart()
        for minutes in event.reminders { json.value(minutes) }
        json.arrayEnd()
        writeLocation(event.location, to: &json)
        json.field("address", event.address)
        json.field("description", event.description)
        json.field("capacity", event.capacity)
        json.field("going_count", event.goingCount)
        json.field("waitlist_count", event.waitlistCount)
        json.field("spots_left", event.spotsLeft)
        json.field("status", event.status.rawValue)
        links.writeImageFields(event.cover, to: &json)
        json.field("created_at", event.createdAt)
        json.field("updated_at", event.updatedAt)
    }

    /// `"sport": {slug, name}` (the slug for a name the catalogue no longer has).
    static func writeSport(_ slug: String, _ sport: Sport?, to json: inout JSONWriter) {
        json.key("sport")
        json.objectStart()
        json.field("slug", slug)
        json.field("name", sport?.name ?? slug)
        json.objectEnd()
    }

    /// `"location": {lat, lon}`.
    static func writeLocation(_ location: Coordinate, to json: inout JSONWriter) {
        json.key("location")
        json.objectStart()
        json.field("lat", location.lat)
        json.field("lon", location.lon)
        json.objectEnd()
    }

    /// `{"items": [cards with the caller's status and distance], "next_cursor"}`.
    static func nearby(_ page: EventSearch.NearbyPage) -> ByteBuffer {
        CardPageJSON.body(
            cards: page.cards, items: page.items, card: { $0.card }, tailBound: { _ in maxTailBytes }, nextCursor: page.nextCursor
        ) { item, json in
            writeTail(item.mine, distance: item.distance, to: &json)
        }
    }

    private static let myStatus = JSONWriter.Key("my_status"), myPosition = JSONWriter.Key("my_position"),
        myOfferExpiresAt = JSONWriter.Key("my_offer_expires_at"), iOrganise = JSONWriter.Key("i_organise"),
        distanceM = JSONWriter.Key("distance_m")

    /// The most bytes ``writeTail(_:distance:to:)`` writes: its keys (79 bytes with
    /// their quotes, colons and commas), a status (under 20), a position (20 digits
    /// at most), an instant (under 40), `true`, a distance (under 30) and the brace.
    static let maxTailBytes = 256

    /// `"my_status":null,"distance_m":` — most items of a nearby page: the caller
    /// holds no place in them.
    private static let noStatusThenDistance: StaticString = #""my_status":null,"distance_m":"#

    /// Appends the caller's status (and distance), then closes the object.
    static func writeTail(_ mine: MyAttendance?, distance: Double?, to json: inout some JSONOutput) {
        if mine == nil, let distance {
            json.keys(noStatusThenDistance)
            json.value(tenths: distance)
            return json.objectEnd()
        }
        json.key(myStatus)
        if let status = mine?.status { json.value(status.rawValue) } else { json.null() }
        if let position = mine?.position { json.field(myPosition, position) }
        if let expires = mine?.offerExpiresAt { json.field(myOfferExpiresAt, expires) }
        if mine?.isOrganiser == true { json.field(iOrganise, true) }
        if let distance { json.field(distanceM, tenths: distance) }
        json.objectEnd()
    }
}

/// One event with the caller's view of it, as an API answer.
struct EventRepresentation: JSONEncodable {
    var event: Event
    var sport: Sport?
    var links: MediaLinks
    var mine: MyAttendance?
    var distance: Double?

    func encode(to json: inout JSONWriter) {
        EventJSON.writeBody(event, sport: sport, links: links, to: &json)
        EventJSON.writeTail(mine, distance: distance, to: &json)
    }
}

/// `{id, name, image_url, image_urls, status, position, is_organiser}`.
struct AttendeeRepresentation: JSONEncodable {
    var attendee: EventSearch.Attendee
    var links: MediaLinks
    /// The person's record in figures: for the organiser only.
    var record: Reliability?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", attendee.id)
        json.field("name", attendee.name)
        links.writeImageFields(attendee.photo, to: &json)
        json.field("status", attendee.status.rawValue)
        json.field("position", attendee.position)
        json.field("is_organiser", attendee.isOrganiser)
        RecordSummaryRepresentation.write(record, to: &json)
        json.objectEnd()
    }
}

import Foundation
import NIOCore

/// `{"items": [people with distance_km and shared_sports], "next_cursor"}`.
enum PeopleJSON {
    /// Written straight into the response's buffer: each card's bytes are copied once.
    static func nearby(_ page: PeopleService.NearbyPage) -> ByteBuffer {
        var body = ByteBuffer()
        body.reserveCapacity(page.cards.count + 96 * page.items.count + 64)
        var json = JSONWriter(capacity: 256)
        json.objectStart()
        json.key("items")
        json.arrayStart()
        page.cards.withUnsafeBufferPointer { cards in
            for person in page.items {
                json.valueFollows()
                json.drain { body.writeBytes($0) }
                body.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(cards)[person.card]))
                // Half-kilometre steps: distances never narrow anyone down further than their snapped cell.
                json.field("distance_km", tenths: max(0.5, (person.distance / 500).rounded() / 2))
                json.key("shared_sports")
                json.arrayStart()
                for slug in person.sharedSports { json.value(slug) }
                json.arrayEnd()
                if let level = person.level { json.field("level", level.value) }
                json.objectEnd()
            }
        }
        json.arrayEnd()
        json.field("next_cursor", page.nextCursor)
        json.objectEnd()
        json.drain { body.writeBytes($0) }
        return body
    }
}

/// Someone's public profile with the upcoming events the caller may see.
struct PublicProfileRepresentation: JSONEncodable {
    var profile: PeopleService.PublicProfile
    var sports: SportCatalog
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        PublicUserJSON.writeFields(profile.user, links: links, to: &json)
        json.key("upcoming_events")
        json.arrayStart()
        for event in profile.events { EventRepresentation(event: event, sport: sports[event.sport], links: links).encode(to: &json) }
        json.arrayEnd()
        json.objectEnd()
    }
}

struct ReportRepresentation: JSONEncodable {
    var report: SafetyReport

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", report.id)
        json.field("target_type", report.targetType)
        json.field("target_id", report.targetID)
        json.field("reason", report.reason)
        json.field("details", report.details)
        json.field("status", report.status)
        json.field("created_at", report.createdAt)
        json.objectEnd()
    }
}

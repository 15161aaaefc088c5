import Foundation
import NIOCore

/// `{"items": [people with distance_km and shared_sports], "next_cursor"}`.
enum PeopleJSON {
    private static let distanceKM = JSONWriter.Key("distance_km"), sharedSports = JSONWriter.Key("shared_sports"),
                       levelKey = JSONWriter.Key("level")

    static func nearby(_ page: PeopleService.NearbyPage, sports: SportCatalog) -> ByteBuffer {
        // Its keys and numbers take under 96 bytes (90 at most); then the shared sports' slugs.
        CardPageJSON.body(cards: page.cards, items: page.items, card: \.card, tailBound: { 128 + sports.slugListBound(in: $0.sharedSports) },
                          nextCursor: page.nextCursor) { person, json in
            // Half-kilometre steps: distances never narrow anyone down further than their snapped cell.
            json.field(distanceKM, tenths: max(0.5, (person.distance / 500).rounded() / 2))
            json.key(sharedSports)
            sports.writeSlugs(in: person.sharedSports, to: &json)
            if let level = person.level { json.field(levelKey, level.value) }
            json.objectEnd()
        }
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

import Foundation
import NIOCore

/// `{"items": [people with distance_km and shared_sports], "next_cursor"}`.
enum PeopleJSON {
    private static let distanceKM = JSONWriter.Key("distance_km"), sharedSports = JSONWriter.Key("shared_sports"),
        levelKey = JSONWriter.Key("level")

    static func nearby(_ page: PeopleService.NearbyPage, sports: SportCatalog) -> ByteBuffer {
        CardPageJSON.body(
            cards: page.cards, items: page.items, card: { $0.card }, tailBound: { tailBound($0, sports: sports) },
            nextCursor: page.nextCursor
        ) { person, json in
            writeTail(person, sports: sports, to: &json)
        }
    }

    /// The most bytes ``writeTail(_:sports:to:)`` writes for `person`: its keys and
    /// numbers take 90 at most (a distance or a level that is not a whole number of
    /// tenths in a `Double`'s longest description), then the shared sports' slugs.
    static func tailBound(_ person: PeopleService.NearbyPage.Item, sports: SportCatalog) -> Int {
        128 + sports.slugListBound(in: person.sharedSports)
    }

    /// Appends a person's distance, shared sports and level, then closes the object.
    static func writeTail(_ person: PeopleService.NearbyPage.Item, sports: SportCatalog, to json: inout some JSONOutput) {
        // Half-kilometre steps: distances never narrow anyone down further than their snapped cell.
        json.field(distanceKM, tenths: max(0.5, (person.distance / 500).rounded() / 2))
        json.key(sharedSports)
        sports.writeSlugs(in: person.sharedSports, to: &json)
        if let level = person.level { json.field(levelKey, level.value) }
        json.objectEnd()
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

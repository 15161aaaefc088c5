import Foundation
import GeoGrid

/// A sport event, as stored.
///
/// `capacity` counts the places for participants; the organiser attends on top
/// of it, and `goingCount` counts the participants going (not the organiser).
public struct Event: Sendable, Hashable {
    public var id: UUID
    public var organiserID: UUID
    public var organiserName: String
    public var sport: String
    public var title: String
    public var description: String
    public var address: String?
    public var imageURL: String?
    public var location: Coordinate
    public var startsAt: Date
    public var endsAt: Date
    public var capacity: Int?
    public var status: EventStatus
    public var goingCount: Int
    public var waitlistCount: Int
    public var lastMessageSeq: Int64
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    /// Whether people can still join: active and not over.
    func isOpen(at now: Date) -> Bool { status == .active && endsAt > now }

    /// Free places, or `nil` without a limit.
    var spotsLeft: Int? { capacity.map { max(0, $0 - goingCount) } }
}

/// Whether an event takes place.
public enum EventStatus: String, Sendable, Hashable {
    case active, cancelled
}

/// Someone's place at an event.
public enum AttendanceStatus: String, Sendable, Hashable {
    case going, waitlisted
}

/// The caller's relation to an event, shown as `my_status`.
struct MyAttendance: Sendable, Hashable {
    var status: AttendanceStatus
    var position: Int?
    var isOrganiser: Bool
}

/// Writes events as JSON.
///
/// An event's JSON is written in two parts so lists can reuse the first: the
/// shared ``writeBody(_:sport:to:)`` (every field but the closing brace) and the
/// per-caller tail (`my_status`, `distance_m`).
enum EventJSON {
    /// `{"id":…,…,"created_at":…` — an unterminated object.
    static func body(_ event: Event, sports: SportCatalog) -> [UInt8] {
        var json = JSONWriter(capacity: 512 + event.description.utf8.count)
        writeBody(event, sport: sports[event.sport], to: &json)
        return json.bytes
    }

    static func writeBody(_ event: Event, sport: Sport?, to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", event.id)
        json.field("title", event.title)
        json.key("sport")
        json.objectStart()
        json.field("slug", event.sport)
        json.field("name", sport?.name ?? event.sport)
        json.objectEnd()
        json.key("organiser")
        json.objectStart()
        json.field("id", event.organiserID)
        json.field("name", event.organiserName)
        json.objectEnd()
        json.field("starts_at", event.startsAt)
        json.field("ends_at", event.endsAt)
        json.key("location")
        json.objectStart()
        json.field("lat", event.location.lat)
        json.field("lon", event.location.lon)
        json.objectEnd()
        json.field("address", event.address)
        json.field("description", event.description)
        json.field("capacity", event.capacity)
        json.field("going_count", event.goingCount)
        json.field("waitlist_count", event.waitlistCount)
        json.field("spots_left", event.spotsLeft)
        json.field("status", event.status.rawValue)
        json.field("image_url", event.imageURL)
        json.field("created_at", event.createdAt)
        json.field("updated_at", event.updatedAt)
    }

    /// Appends the caller's status (and distance), then closes the object.
    static func writeTail(_ mine: MyAttendance?, distance: Double?, to json: inout JSONWriter) {
        json.field("my_status", mine?.status.rawValue)
        if let position = mine?.position { json.field("my_position", position) }
        if mine?.isOrganiser == true { json.field("i_organise", true) }
        if let distance { json.field("distance_m", (distance * 10).rounded() / 10) }
        json.objectEnd()
    }
}

/// One event with the caller's view of it, as an API answer.
struct EventRepresentation: JSONEncodable {
    var event: Event
    var sport: Sport?
    var mine: MyAttendance?
    var distance: Double?

    func encode(to json: inout JSONWriter) {
        EventJSON.writeBody(event, sport: sport, to: &json)
        EventJSON.writeTail(mine, distance: distance, to: &json)
    }
}

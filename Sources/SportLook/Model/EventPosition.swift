import Foundation

/// Where and when a live event is: what the event index needs of it to answer
/// searches (its card comes later).
struct EventPosition: Sendable {
    var id: UUID
    var sport: String
    var location: Coordinate
    var startsAt: Date
    var endsAt: Date
    var version: Int64
}

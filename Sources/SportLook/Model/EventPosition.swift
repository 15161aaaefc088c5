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
    /// Who the game is for and whether it has a free place: what search filters on.
    var levelRange: ClosedRange<Level>?
    var audience: Audience
    var hasFreePlaces: Bool
    /// Who may find it.
    var restriction: EventRestriction
}

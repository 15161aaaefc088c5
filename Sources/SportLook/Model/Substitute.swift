import Foundation

/// Where a request for a substitute stands.
enum SubstituteStatus: String, Sendable, Hashable {
    /// Offered, waiting for someone to accept.
    case open
    /// Someone took the place.
    case filled
    /// The player who asked took it back, or is not going any more.
    case withdrawn
    /// Nobody accepted in time.
    case expired
}

/// A player's request for someone to take their place at a game.
struct SubstituteRequest: Sendable, Hashable {
    var id: UUID
    var eventID: UUID
    var requester: UserSummary
    var status: SubstituteStatus
    var createdAt: Date
    var expiresAt: Date
    var filledBy: UserSummary?
    /// How many people the place was offered to.
    var offered: Int
}

/// A place offered to the caller as a substitute, with the game it is at.
struct SubstituteOffer: Sendable, Hashable {
    var request: SubstituteRequest
    var eventTitle: String
    var startsAt: Date
}

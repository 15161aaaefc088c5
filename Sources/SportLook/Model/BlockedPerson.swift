import Foundation

/// Someone the user blocked, and since when.
struct BlockedPerson: Sendable {
    var id: UUID
    var name: String
    var at: Date
}

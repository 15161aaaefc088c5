import Foundation

/// How one delivery attempt of a job went (a mail; a notification's pushes, taken together).
enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Worth another attempt, not before `after` seconds when given.
    case retry(after: TimeInterval?, reason: String)
    /// Final: trying again cannot help.
    case failed(reason: String)
}

import Foundation

/// How one delivery attempt of a job went (a push, a mail).
enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Delivered, and these device tokens are gone (pushes only).
    case gone(tokens: [String])
    /// Worth another attempt, not before `after` seconds when given.
    case retry(after: TimeInterval?, reason: String)
    /// Final: trying again cannot help.
    case failed(reason: String)
}

import Foundation

/// Who is calling: resolved from a valid access token.
public struct Identity: Sendable, Equatable {
    /// The user.
    public var userID: UUID
    /// The access token used (a session).
    public var tokenID: UUID
    /// When the session ends on its own.
    public var expiresAt: Date
}

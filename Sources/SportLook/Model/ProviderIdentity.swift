import Foundation

/// The sign-in providers SportLook accepts.
public enum IdentityProvider: String, Sendable, CaseIterable, Codable {
    case apple, google, facebook
}

/// Who a provider says someone is, once their token has been checked.
public struct ProviderIdentity: Sendable, Equatable {
    public var provider: IdentityProvider
    /// The provider's stable id for the person (`sub`, or Facebook's user id).
    public var subject: String
    public var email: String?
    /// The provider vouches that `email` belongs to the person.
    public var emailVerified: Bool
    public var name: String?
    /// The token's `nonce` claim, when it has one.
    public var nonce: String?
    /// Until when this service accepts the token (a used token is remembered that long).
    public var expiresAt: Date
}

/// One provider account linked to a user (`GET /v1/me/identities`).
public struct LinkedIdentity: Sendable, Equatable {
    public var provider: IdentityProvider
    public var email: String?
    public var createdAt: Date
}

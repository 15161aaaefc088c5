import Foundation
internal import SportLookAPI

/// A level change after a rated game.
public struct LevelChange: Hashable, Sendable, Codable {
    /// The sport's slug.
    public var sport: String
    /// The game; nil for one the person may no longer see.
    public var event: Event.ID?
    /// The game's title, when the person may see it.
    public var eventTitle: String?
    /// The rating before and after, in levels with two decimals.
    public var before: Double
    /// The rating after the game.
    public var after: Double
    /// The level after, in half steps.
    public var level: Double
    /// When the level changed.
    public var at: Date
}

/// A copy of an account's data.
public struct DataExport: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<DataExport>
    public var id: ID
    /// `pending`, `ready`, `expired`…
    public var status: String
    /// When it was asked for.
    public var requestedAt: Date
    /// Where to fetch it under the server, once ready (a signed path that expires).
    public var downloadPath: String?
    /// When its link stops working.
    public var expiresAt: Date?
    /// Its size in bytes, once ready.
    public var size: Int?

    init(_ export: Components.Schemas.DataExport) throws {
        id = try .parse(export.id)
        status = export.status.rawValue
        requestedAt = export.requestedAt
        downloadPath = export.downloadPath
        expiresAt = export.expiresAt
        size = export.size
    }
}

extension SportLookClient.Me {
    /// The sign-in providers linked to the account: each provider and the email it gave.
    public func linkedProviders() async throws -> [LinkedProvider] {
        try await client.call { try await $0.listIdentities().ok.body.json }.items.map {
            LinkedProvider(provider: $0.provider.rawValue, email: $0.email)
        }
    }

    /// Links a provider's account (its ID token), to sign in with it too.
    public func link(_ provider: SportLookClient.Provider, idToken: String, nonce: String? = nil) async throws {
        let credential = Components.Schemas.ProviderCredential(provider: provider.payload, idToken: idToken, nonce: nonce)
        switch try await client.call({ try await $0.linkIdentity(body: .json(credential)) }) {
        case .ok, .created: return
        case let other: throw SportLookError.unexpected(other)
        }
    }

    /// Unlinks a provider (the account keeps another way to sign in).
    public func unlink(_ provider: SportLookClient.Provider) async throws {
        _ = try await client.call { try await $0.unlinkIdentity(path: .init(provider: provider.rawValue)).noContent }
    }

    /// How the person's levels moved, newest first (one sport, or all).
    public func levelHistory(sport: String? = nil) async throws -> [LevelChange] {
        try await client.call { try await $0.myLevelHistory(query: .init(sport: sport)).ok.body.json }.items.map {
            LevelChange(
                sport: $0.sport, event: $0.eventId.flatMap(Event.ID.init), eventTitle: $0.eventTitle, before: $0.before, after: $0.after,
                level: $0.level, at: $0.at)
        }
    }

    /// The copies of the account's data asked for, newest first.
    public func dataExports() async throws -> [DataExport] {
        try await client.call { try await $0.myExports().ok.body.json }.items.map(DataExport.init)
    }

    /// Substitute places offered to the signed-in person now.
    public func substituteOffers() async throws -> [SubstituteRequest] {
        try await client.call { try await $0.mySubstituteOffers().ok.body.json }.items.map { try SubstituteRequest($0.value1) }
    }
}

extension SportLookClient {
    /// Appeals a moderation decision, signing in with the account's email and password (a
    /// suspended account has no session).
    public func appeal(email: String, password: String, statement: String, action: String? = nil) async throws {
        _ = try await call {
            try await $0.appeal(body: .json(.init(email: email, password: password, actionId: action, statement: statement))).created
        }
    }
}

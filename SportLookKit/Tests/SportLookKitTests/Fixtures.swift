import Foundation
import SportLookKit
import SportLookTestSupport

/// A client of `server` signed in to a new account.
func signedUp(_ server: Server, _ name: String) async throws -> SportLookClient {
    let client = SportLookClient(server: server.url)
    try await client.register(
        name: name, email: "\(name.lowercased())-\(UUID().uuidString.prefix(8))@example.com", password: "correct horse battery")
    return client
}

/// A game tomorrow in Copenhagen, made by `organiser`.
func newGame(by organiser: SportLookClient, title: String = "Sunday football", capacity: Int? = nil) async throws
    -> Components.Schemas.Event
{
    try await organiser.api.createEvent(
        body: .json(
            .init(
                title: title, sport: .football, startsAt: Date().addingTimeInterval(86_400), location: .init(lat: 55.6761, lon: 12.5683),
                capacity: capacity
            ))
    ).created.body.json
}

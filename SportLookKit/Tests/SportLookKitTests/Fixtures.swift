import Foundation
import SportLookKit
import SportLookTestSupport

/// A client of `server` signed in to a new account.
func signedUp(_ server: Server, _ name: String) async throws -> SportLookClient {
    let client = SportLookClient(server: server.url)
    try await client.auth.register(
        name: name, email: "\(name.lowercased())-\(UUID().uuidString.prefix(8))@example.com", password: "correct horse battery")
    return client
}

/// Copenhagen's town hall square.
let copenhagen = Place(latitude: 55.6761, longitude: 12.5683)

/// A game tomorrow in Copenhagen, made by `organiser`.
func newGame(by organiser: SportLookClient, title: String = "Sunday football", capacity: Int? = nil) async throws -> Event {
    try await organiser.events.create(
        .init(title: title, sport: "football", startsAt: Date().addingTimeInterval(86_400), place: copenhagen, capacity: capacity))
}

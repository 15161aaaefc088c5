import Foundation
import SportLookKit

/// What both samples do, written once against the facade: sign in (or up), find the
/// games near a place, join one (or make one), and chat in it live.
struct GameNight: Sendable {
    let sportlook: SportLookClient

    init(server: URL) {
        sportlook = SportLookClient(server: server)
    }

    /// Signs in; with a `name`, makes the account first when the email has none.
    func signIn(email: String, password: String, name: String?) async throws -> Profile {
        do {
            return try await sportlook.auth.logIn(email: email, password: password).user
        } catch let error as SportLookError where error.status == 401 && name != nil {
            return try await sportlook.auth.register(name: name ?? "", email: email, password: password).user
        }
    }

    /// The coming games within `kilometres` of `place`, nearest first (the first page).
    func nearby(_ place: Place, within kilometres: Double = 5) async throws -> [Event] {
        for try await page in sportlook.events.nearby(around: place, within: kilometres, pageSize: 20) { return page }
        return []
    }

    /// Makes a game tomorrow evening at `place`.
    func organise(_ title: String, at place: Place) async throws -> Event {
        try await sportlook.events.create(
            .init(title: title, sport: "football", startsAt: .now + 86_400, place: place, capacity: 10))
    }

    /// Takes a place in the game (or on its waitlist).
    func join(_ game: Event) async throws -> Attendance {
        if game.iOrganise || game.myAttendance == .going { return .going }
        return try await sportlook.events.join(game.id).attendance
    }

    /// The game's chat, live: the session to send with and the room's events.
    func chat(in game: Event) async -> (session: ChatSession, events: AsyncStream<ChatEvent>) {
        let session = sportlook.chatSession()
        let events = await session.join(game.id.description)
        await session.start()
        return (session, events)
    }
}

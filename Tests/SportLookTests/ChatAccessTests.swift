import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Who may read a live game's chat history is decided from memory (the caller's
/// statuses and groups, dropped when the change feed says they changed): every way out
/// of the game ends it at once, as the database would say.
@Suite("Chat history access", .timeLimit(.minutes(10)))
struct ChatAccessTests {
    @Test(
        "leaving, being removed or banned, leaving the group or being taken out of it: the next history read is refused",
        arguments: engines)
    func everyWayOut(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Olga")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            let game = try await GroupEventsTests.groupEvent(api, owner.token, group: group.id, title: "Members' padel", now: clock.now())
            var people: [(token: String, id: String)] = []
            for name in ["Leaver", "Removed", "Banned", "Quitter", "Expelled", "Stayer"] {
                let person = try await api.register(name)
                try await GroupsTests.join(api, group.id, person.token)
                try await api.join(game.id, token: person.token)
                people.append(person)
            }
            _ = try await api.sendMessage("Court 3 at seven", clientID: "o1", to: game.id, token: owner.token)
            let history = "/v1/events/\(game.id)/messages"
            // Each reads the history once: what memory holds of them is warm.
            for person in people { #expect(try await api.messages(game.id, token: person.token).map(\.body) == ["Court 3 at seven"]) }

            let (leaver, removed, banned, quitter, expelled, stayer) = (people[0], people[1], people[2], people[3], people[4], people[5])
            #expect(try await api.delete("/v1/events/\(game.id)/attendance", token: leaver.token).status == .noContent)
            #expect(try await api.get(history, token: leaver.token).status == .forbidden)
            #expect(try await api.delete("/v1/events/\(game.id)/attendees/\(removed.id)", token: owner.token).status == .noContent)
            #expect(try await api.get(history, token: removed.token).status == .forbidden)
            #expect(try await api.delete("/v1/events/\(game.id)/attendees/\(banned.id)?ban=true", token: owner.token).status == .noContent)
            #expect(try await api.get(history, token: banned.token).status == .forbidden)
            // Out of the group, a members-only game is one they cannot know of.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: quitter.token).status == .noContent)
            #expect(try await api.get(history, token: quitter.token).status == .notFound)
            #expect(try await api.delete("/v1/groups/\(group.id)/members/\(expelled.id)", token: owner.token).status == .noContent)
            #expect(try await api.get(history, token: expelled.token).status == .notFound)
            // Coming back in, the room is theirs again; the one who stayed never lost it.
            try await api.join(game.id, token: leaver.token)
            #expect(try await api.messages(game.id, token: leaver.token).count == 1)
            #expect(try await api.messages(game.id, token: stayer.token).count == 1)
        }
    }

    @Test("leaving through one instance ends the history on the other, once the change reaches it")
    func acrossInstances() async throws {
        try await withTwoInstances { one, two, _, _ in
            let owner = try await one.register("Olga")
            let game = try await one.createEvent(owner.token, now: Date()).id
            let player = try await one.register("Pia")
            try await one.join(game, token: player.token)
            _ = try await one.sendMessage("Bring the ball", clientID: "o1", to: game, token: owner.token)
            #expect(try await two.messages(game, token: player.token).count == 1)
            #expect(try await one.delete("/v1/events/\(game)/attendance", token: player.token).status == .noContent)
            try await eventually("the other instance refuses the history") {
                try await two.get("/v1/events/\(game)/messages", token: player.token).status == .forbidden
            }
            #expect(try await one.get("/v1/events/\(game)/messages", token: player.token).status == .forbidden)
        }
    }
}

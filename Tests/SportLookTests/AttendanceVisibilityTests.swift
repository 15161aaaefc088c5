import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Who is going is shown to those going alone", .timeLimit(.minutes(10)))
struct AttendanceVisibilityTests {
    @Test(
        "a waitlisted person, a maybe and a stranger learn nothing of who is going: not from a profile, the attendee list, the sheet, the teams, the event, its calendar, its chat or the socket",
        arguments: engines)
    func everyRouteAsTheUninvolved(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let organiser = try await api.register("Org")
            // A name nobody else has: any answer carrying it reveals the target.
            let target = try await api.register("Quillfeather")
            let fellow = try await api.register("Fellow")
            let waiting = try await api.register("Waiting")
            let maybe = try await api.register("Maybe")
            let stranger = try await api.register("Stranger")
            let event = try await api.createEvent(organiser.token, title: "Full game", capacity: 2, now: clock.now()).id
            try await api.join(event, token: target.token)
            try await api.join(event, token: fellow.token)
            #expect(try await api.join(event, token: waiting.token).status == .waitlisted)
            #expect(try await api.post("/v1/events/\(event)/maybe", token: maybe.token).status == .ok)

            // Those going see who is going, and the target's game on her profile: the walk below can fail.
            #expect(try await api.get("/v1/events/\(event)/attendees", token: fellow.token).text.contains(target.id))
            #expect(try await api.user(target.id, token: fellow.token).upcomingEvents.map(\.id).contains(event))
            // Published teams name her too, to the people going.
            #expect(try await api.put("/v1/events/\(event)/teams", token: organiser.token, json: ["publish": true]).status == .ok)
            #expect(try await api.get("/v1/events/\(event)/teams", token: fellow.token).text.contains(target.id))

            for viewer in [waiting, maybe, stranger] {
                let profile = try await api.user(target.id, token: viewer.token)
                #expect(!profile.upcomingEvents.map(\.id).contains(event), "\(viewer.id): profile")
                for path in ["attendees", "sheet", "messages", "teams"] {
                    let refused = try await api.get("/v1/events/\(event)/\(path)", token: viewer.token)
                    #expect(refused.status == .forbidden, "\(path)")
                    #expect(!refused.text.contains(target.id) && !refused.text.contains("Quillfeather"), "\(path)")
                }
                // What anyone who may see the event reads carries counts, never names.
                for path in [
                    "/v1/events/\(event)", "/v1/events/\(event)/calendar.ics", "/v1/me/events?role=attending", "/v1/me/invitations",
                    "/v1/me/notifications", "/v1/me/rooms",
                ] {
                    let answer = try await api.get(path, token: viewer.token)
                    #expect(answer.status == .ok, "\(path)")
                    #expect(!answer.text.contains("Quillfeather") && !answer.text.contains(target.id), "\(path)")
                }
                // Her profile names her, and none of her games but those she organises.
                #expect(!(try await api.get("/v1/users/\(target.id)", token: viewer.token).text.contains(event)))
                // A conversation needs a game both are going to.
                let conversation = try await api.post("/v1/conversations", token: viewer.token, json: ["user_id": target.id])
                #expect(!conversation.text.contains(event), "conversation")
                // The socket: the event's room refuses them, and says nothing of who is in it.
                let socket = try await TestSocket.connect(try socketURL(api), token: viewer.token)
                socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
                let refused = try await socket.waitFor("refused") { $0.type == "error" }
                #expect(refused.error?.code == "forbidden", "\(refused.error?.code ?? "")")
                #expect(try !socket.frames.contains { $0.type == "subscribed" })
                await socket.close()
            }
        }
    }

    @Test("an inviter is told an invitation was accepted only while they are going themselves", arguments: engines)
    func acceptedInvitationTellsOnlyTheGoing(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let organiser = try await api.register("Org")
            let inviter = try await api.register("Inviter")
            let invitee = try await api.register("Invitee")
            let other = try await api.register("Other")
            let event = try await api.createEvent(organiser.token, now: clock.now()).id
            try await api.join(event, token: inviter.token)
            let left = try #require(try await api.invite([invitee.id], to: event, token: inviter.token).first?.id)
            let stayed = try #require(try await api.invite([other.id], to: event, token: organiser.token).first?.id)
            #expect(try await api.delete("/v1/events/\(event)/attendance", token: inviter.token).status == .noContent)
            _ = try await api.accept(left, token: invitee.token)
            _ = try await api.accept(stayed, token: other.token)
            func notices(_ invitation: String) async throws -> Int? {
                try await services.database.read { sql in
                    try await sql.raw(
                        "SELECT COUNT(*) AS n FROM jobs WHERE dedupe_key = \(bind: "invitation_accepted:" + invitation.lowercased())"
                    ).first()?
                    .decode(column: "n", as: Int.self)
                }
            }
            #expect(try await notices(stayed) == 1)
            #expect(try await notices(left) == 0)
        }
    }
}

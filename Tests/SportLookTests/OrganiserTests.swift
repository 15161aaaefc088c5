import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Organisers remove and ban; who sees an event's attendees", .timeLimit(.minutes(10)))
struct OrganiserTests {
    @Test("only attendees and the organiser see who is going; others see the counts", arguments: engines)
    func attendeesArePrivate(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Host")
            let going = try await api.register("Going")
            let waiting = try await api.register("Waiting")
            let stranger = try await api.register("Stranger")
            let event = try await api.createEvent(owner.token, capacity: 1, now: clock.now()).id
            #expect(try await api.join(event, token: going.token).status == .going)
            #expect(try await api.join(event, token: waiting.token).status == .waitlisted)

            let refused = try await api.get("/v1/events/\(event)/attendees", token: stranger.token)
            #expect(refused.status == .forbidden)
            #expect(try refused.errorCode == "attendees_private")
            #expect(!refused.text.contains(going.id) && !refused.text.contains(waiting.id))
            let seen = try await api.event(event, token: stranger.token)
            #expect(seen.goingCount == 1 && seen.waitlistCount == 1)
            for viewer in [owner, going] {
                let ids = Set(try await api.page(API.Attendee.self, "/v1/events/\(event)/attendees", token: viewer.token).items.map(\.id))
                #expect(ids == [owner.id, going.id, waiting.id])
            }
            // A place on the waitlist, which anyone can take on a full event, shows no one.
            let fromTheWaitlist = try await api.get("/v1/events/\(event)/attendees", token: waiting.token)
            #expect(fromTheWaitlist.status == .forbidden && !fromTheWaitlist.text.contains(going.id))
            // Leaving takes the view away again; an unknown event is still 404.
            _ = try await api.delete("/v1/events/\(event)/attendance", token: going.token)
            #expect(try await api.get("/v1/events/\(event)/attendees", token: going.token).status == .forbidden)
            #expect(try await api.get("/v1/events/\(UUID())/attendees", token: stranger.token).status == .notFound)
        }
    }

    @Test(
        "the organiser removes and bans: the room is left at once, the waitlist moves up, messages stay, no way back in", arguments: engines
    )
    func removeAndBan(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let owner = try await api.register("Host")
            let troll = try await api.register("Troll")
            let next = try await api.register("Next")
            let event = try await api.createEvent(owner.token, capacity: 1, now: clock.now()).id
            #expect(try await api.join(event, token: troll.token).status == .going)
            #expect(try await api.join(event, token: next.token).status == .waitlisted)
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: troll.token, json: ["body": "spam spam", "client_id": "t1"])
                    .status == .created)
            let socket = try await TestSocket.subscribed(try socketURL(api), token: troll.token, to: event)

            // Only the organiser removes, and not themselves; unknown people are 404.
            #expect(try await api.delete("/v1/events/\(event)/attendees/\(troll.id)", token: next.token).status == .forbidden)
            let selfRemoval = try await api.delete("/v1/events/\(event)/attendees/\(owner.id)", token: owner.token)
            #expect(selfRemoval.status == .conflict)
            #expect(try selfRemoval.errorCode == "organiser_cannot_leave")
            #expect(try await api.delete("/v1/events/\(event)/attendees/\(UUID())?ban=true", token: owner.token).status == .notFound)
            #expect(
                try await api.delete("/v1/events/\(event)/attendees/\(troll.id)?ban=maybe", token: owner.token).status
                    == .unprocessableContent)

            #expect(try await api.delete("/v1/events/\(event)/attendees/\(troll.id)?ban=true", token: owner.token).status == .noContent)
            let left = try await socket.waitFor("unsubscribed") { $0.type == "unsubscribed" }
            #expect(left.unsubscribed?.reason == .notAttending)
            #expect(left.unsubscribed?.eventId == event)
            // The waitlist moved up; the removed person is out of the room and the list.
            #expect(try await api.event(event, token: next.token).myStatus?.value1 == .going)
            #expect(try await api.event(event, token: troll.token).myStatus == nil)
            #expect(try await api.get("/v1/events/\(event)/messages", token: troll.token).status == .forbidden)
            let ids = try await api.page(API.Attendee.self, "/v1/events/\(event)/attendees", token: owner.token).items.map(\.id)
            #expect(!ids.contains(troll.id))
            // Their message stays.
            #expect(try await api.messages(event, token: owner.token).map(\.body) == ["spam spam"])

            // Banned: no way back in, by joining or by an invitation.
            let rejoin = try await api.post("/v1/events/\(event)/attendance", token: troll.token)
            #expect(rejoin.status == .forbidden)
            #expect(try rejoin.errorCode == "banned")
            let invitation = try #require(try await api.invite([troll.id], to: event, token: owner.token).first)
            let accepted = try await api.post("/v1/invitations/\(invitation.id)/accept", token: troll.token)
            #expect(accepted.status == .forbidden)
            #expect(try accepted.errorCode == "banned")
            #expect(try await api.event(event, token: troll.token).goingCount == 1)

            // The organiser sees and lifts the ban (others may not).
            #expect(try await api.get("/v1/events/\(event)/bans", token: next.token).status == .forbidden)
            #expect(try await api.delete("/v1/events/\(event)/bans/\(troll.id)", token: next.token).status == .forbidden)
            let bans = try await api.page(API.Ban.self, "/v1/events/\(event)/bans", token: owner.token).items
            #expect(bans.map(\.user.id) == [troll.id])
            #expect(try await api.delete("/v1/events/\(event)/bans/\(troll.id)", token: owner.token).status == .noContent)
            #expect(try await api.page(API.Ban.self, "/v1/events/\(event)/bans", token: owner.token).items.isEmpty)
            #expect(try await api.join(event, token: troll.token).status == .waitlisted)

            // Removed without a ban: a waitlisted person may come back.
            #expect(try await api.delete("/v1/events/\(event)/attendees/\(troll.id)", token: owner.token).status == .noContent)
            #expect(try await api.event(event, token: owner.token).waitlistCount == 0)
            #expect(try await api.join(event, token: troll.token).status == .waitlisted)
            await socket.close()
        }
    }

    @Test(
        "an answer deadline closes joining (409 answers_closed), by invitation too; leaving stays open; bad deadlines are refused",
        arguments: engines)
    func answerDeadline(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Host")
            let early = try await api.register("Early")
            let late = try await api.register("Late")
            let invited = try await api.register("Invited")
            let event = try await api.createEvent(owner.token, startsIn: 3 * 86_400, now: clock.now()).id
            let deadline = RFC3339.format(clock.now().addingTimeInterval(86_400))
            let set = try await api.patch("/v1/events/\(event)", token: owner.token, json: ["answer_deadline": deadline])
            #expect(set.status == .ok && set.text.contains("\"answer_deadline\":\"\(deadline)\""))
            try await api.join(event, token: early.token)
            _ = try await api.invite([invited.id], to: event, token: owner.token)
            clock.advance(by: 86_400 + 1)
            let refused = try await api.post("/v1/events/\(event)/attendance", token: late.token)
            #expect(refused.status == .conflict)
            #expect(try refused.errorCode == "answers_closed")
            let invitation = try #require(try await api.invitations(invited.token).first)
            let accept = try await api.post("/v1/invitations/\(invitation.id)/accept", token: invited.token)
            #expect(accept.status == .conflict)
            #expect(try accept.errorCode == "answers_closed")
            #expect(try await api.delete("/v1/events/\(event)/attendance", token: early.token).status == .noContent)
            // Refused: a deadline past, after the start, not a date; a start moved before the deadline.
            let other = try await api.createEvent(owner.token, startsIn: 2 * 86_400, now: clock.now()).id
            for bad in [
                RFC3339.format(clock.now().addingTimeInterval(-60)), RFC3339.format(clock.now().addingTimeInterval(3 * 86_400)), "soon",
            ] {
                let answer = try await api.patch("/v1/events/\(other)", token: owner.token, json: ["answer_deadline": bad])
                #expect(answer.status == .unprocessableContent, "\(bad)")
                #expect(try answer.errorFields["answer_deadline"] != nil, "\(bad)")
            }
            #expect(
                try await api.patch(
                    "/v1/events/\(other)", token: owner.token,
                    json: ["answer_deadline": RFC3339.format(clock.now().addingTimeInterval(86_400))]
                ).status == .ok)
            let moved = try await api.patch(
                "/v1/events/\(other)", token: owner.token, json: ["starts_at": RFC3339.format(clock.now().addingTimeInterval(3_600))])
            #expect(moved.status == .unprocessableContent)
            #expect(try await api.patch("/v1/events/\(other)", token: owner.token, json: ["answer_deadline": NSNull()]).status == .ok)
        }
    }
}

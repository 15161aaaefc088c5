import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Group events: made by admins, ended with their group, notified to members alone, and a group's series.
extension GroupEventsTests {
    @Test("only a group's admins make its events; the fields are checked and fixed; muting silences new games", arguments: engines)
    func making(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Olga")
            let admin = try await api.register("Ada")
            let member = try await api.register("Mia")
            let muted = try await api.register("Max")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            for person in [admin, member, muted] {
                try await GroupsTests.join(api, group.id, person.token)
            }
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(admin.id)", token: owner.token, json: ["role": "admin"]).status
                    == .noContent)
            #expect(try await api.put("/v1/groups/\(group.id)/mute", token: muted.token).status == .noContent)
            #expect(try await GroupsTests.viewMuted(api, group.id, muted.token))
            #expect(try await api.put("/v1/groups/\(group.id)/mute", token: outsider.token).status == .notFound)

            for (token, code) in [(member.token, "admins_only"), (outsider.token, "admins_only")] {
                let refused = try await api.post(
                    "/v1/events", token: token,
                    json: [
                        "title": "Mine", "sport": "padel", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                        "location": ["lat": Self.place.lat, "lon": Self.place.lon], "group_id": group.id,
                    ])
                #expect(refused.status == .forbidden)
                #expect(try refused.errorCode == code)
            }
            let base: [String: Any] = [
                "title": "X", "sport": "padel", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                "location": ["lat": 1, "lon": 1],
            ]
            for (extra, field) in [
                (["group_id": "nope"], "group_id"), (["members_only": true], "members_only"),
                (["group_id": group.id, "members_only": "yes"], "members_only"),
            ] as [([String: Any], String)] {
                let reply = try await api.post("/v1/events", token: owner.token, json: base.merging(extra) { $1 })
                #expect(reply.status == .unprocessableContent, "\(extra)")
                if reply.status == .unprocessableContent { #expect(try reply.errorFields[field] != nil, "\(extra)") }
            }
            #expect(
                try await api.post("/v1/events", token: owner.token, json: base.merging(["group_id": UUID().uuidString]) { $1 }).status
                    == .notFound)

            let game = try await Self.groupEvent(api, admin.token, group: group.id, title: "Admin's game", now: clock.now())
            #expect(game.membersOnly, "a group's game is members-only unless said otherwise")
            let moved = try await api.patch("/v1/events/\(game.id)", token: admin.token, json: ["members_only": false])
            #expect(moved.status == .unprocessableContent)
            #expect(
                try await api.patch("/v1/events/\(game.id)", token: admin.token, json: ["group_id": NSNull()]).status
                    == .unprocessableContent)
            try await eventually("the unmuted members heard") {
                let heard = try await api.notifications(member.token).contains { $0.kind == .groupEvent }
                let ownerHeard = try await api.notifications(owner.token).contains { $0.kind == .groupEvent }
                return heard && ownerHeard
            }
            let notice = try #require(try await api.notifications(member.token).first { $0.kind == .groupEvent })
            #expect(notice.data.eventId == game.id && notice.data.groupId == group.id)
            #expect(try await api.notifications(muted.token).isEmpty, "muted")
            #expect(try await api.notifications(admin.token).isEmpty, "who made it is not told")
            #expect(try await api.delete("/v1/groups/\(group.id)/mute", token: muted.token).status == .noContent)
            #expect(try await !GroupsTests.viewMuted(api, group.id, muted.token))
        }
    }

    @Test(
        "deleting a group cancels its coming games with a notice and ends its series; an organiser who leaves cancels theirs",
        arguments: engines)
    func ending(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let owner = try await api.register("Olga")
            let admin = try await api.register("Ada")
            let player = try await api.register("Pia")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            for person in [admin, player] {
                try await GroupsTests.join(api, group.id, person.token)
            }
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(admin.id)", token: owner.token, json: ["role": "admin"]).status
                    == .noContent)
            let adminsGame = try await Self.groupEvent(api, admin.token, group: group.id, title: "Ada's game", now: clock.now())
            let openGame = try await Self.groupEvent(
                api, owner.token, group: group.id, title: "Open game", membersOnly: false, now: clock.now())
            try await api.join(adminsGame.id, token: player.token)
            try await api.join(openGame.id, token: player.token)
            let series = try await Self.groupSeries(
                api, owner.token, group: group.id, title: "Tuesday padel", daysAhead: 3, start: "19:00", now: clock.now())
            #expect(series.membersOnly && series.groupID == group.id)
            #expect(try await api.event(try #require(series.upcoming.first).eventId, token: player.token).membersOnly)
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: player.token).status == .ok)

            let adminsSeries = try await Self.groupSeries(
                api, admin.token, group: group.id, title: "Ada's Mondays", daysAhead: 4, start: "18:00", now: clock.now())

            // The admin leaves: their members-only game is called off (the player is told
            // why) and their weekly game ends.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: admin.token).status == .noContent)
            #expect(try await api.event(adminsGame.id, token: player.token).status == .cancelled)
            let adminsEnded = try await services.series.view(
                try #require(UUID(uuidString: adminsSeries.id)), for: try #require(UUID(uuidString: owner.id)))
            #expect(adminsEnded.series.status == .ended && adminsEnded.upcoming.allSatisfy { $0.status == .cancelled })
            #expect(try await api.get("/v1/series/\(series.id)", token: player.token).status == .ok, "the owner's series goes on")
            try await eventually("the player heard the game is off") {
                try await api.notifications(player.token).contains {
                    $0.kind == .eventCancelled && $0.data.reason == "organiser_left_group"
                }
            }

            // The group is deleted: every coming game is cancelled, with the reason; the series ends.
            #expect(try await api.delete("/v1/groups/\(group.id)", token: owner.token).status == .noContent)
            #expect(try await api.event(openGame.id, token: player.token).status == .cancelled)
            try await eventually("the player heard the group is gone") {
                try await api.notifications(player.token).contains {
                    $0.kind == .eventCancelled && $0.data.reason == "group_deleted"
                        && $0.data.eventId == openGame.id
                }
            }
            // Members-only, and the group has no members now: nobody sees the series; as stored, it ended.
            #expect(try await api.get("/v1/series/\(series.id)", token: owner.token).status == .notFound)
            let ended = try await services.series.view(
                try #require(UUID(uuidString: series.id)), for: try #require(UUID(uuidString: owner.id)))
            #expect(ended.series.status == .ended)
            #expect(!ended.upcoming.isEmpty && ended.upcoming.allSatisfy { $0.status == .cancelled })
            // Its games' players were told, and the notice stays in their inbox though the game is hidden now.
            let game = try #require(series.upcoming.first?.eventId)
            try await eventually("the regular heard the series' game is off") {
                try await !api.told(player.token, .eventCancelled, about: game).isEmpty
            }
        }
    }

    @Test(
        "a notification about a members-only game is delivered to its group's members alone, a cancellation to anyone it concerns",
        arguments: engines)
    func delivery(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            try await GroupsTests.join(api, group.id, member.token)
            let hidden = try await Self.groupEvent(api, owner.token, group: group.id, title: "Members' padel", now: clock.now())
            let open = try await Self.groupEvent(
                api, owner.token, group: group.id, title: "Open padel", membersOnly: false, now: clock.now())
            let (m, o) = (try #require(UUID(uuidString: member.id)), try #require(UUID(uuidString: outsider.id)))
            func note(_ user: UUID, _ kind: NotificationKind, _ event: String) -> NotificationMessage {
                NotificationMessage(to: user, kind, title: "t", body: "b", data: ["event_id": .string(event)])
            }
            let messages = [
                note(m, .reminder, hidden.id), note(o, .reminder, hidden.id), note(o, .eventUpdated, open.id),
                note(o, .eventCancelled, hidden.id), NotificationMessage(to: o, .groupRequest, title: "t", body: "b", data: [:]),
            ]
            let refused = try await services.database.transaction { sql in try await services.eventAccess.undeliverable(messages, on: sql) }
            #expect(refused == [1])
            // Out of the group, the member is refused too.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: member.token).status == .noContent)
            let after = try await services.database.transaction { sql in try await services.eventAccess.undeliverable(messages, on: sql) }
            #expect(after == [0, 1])
        }
    }

    @Test(
        "a members-only series is its group's alone: walked by an outsider, joined by members; leaving the group ends being a regular",
        arguments: engines)
    func series(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            try await GroupsTests.join(api, group.id, member.token)
            let series = try await Self.groupSeries(
                api, owner.token, group: group.id, title: "Thursday padel", daysAhead: 2, start: "18:00", now: clock.now())
            try await Self.walk(api, services, prefix: "/v1/series/:id", id: series.id, someone: member.id, token: outsider.token)
            let first = try #require(series.upcoming.first?.eventId)
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: member.token).status == .ok)
            #expect(try await api.event(first, token: member.token).myStatus?.value1 == .going)
            #expect(
                try await api.post(
                    "/v1/series", token: member.token,
                    json: [
                        "title": "Mine", "sport": "padel", "location": ["lat": 1, "lon": 1], "time_zone": "UTC",
                        "first_date": Self.localDate(clock.now().addingTimeInterval(5 * 86_400)),
                        "start_time": "18:00", "rule": "FREQ=WEEKLY", "group_id": group.id,
                    ]
                ).status == .forbidden)

            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: member.token).status == .noContent)
            #expect(try await api.event(first, token: owner.token).goingCount == 0)
            let view: SeriesView = try await api.get("/v1/series/\(series.id)", token: owner.token).decode(expecting: .ok)
            #expect(view.regularsCount == 0)
            #expect(try await api.get("/v1/series/\(series.id)", token: member.token).status == .notFound)
        }
    }
}

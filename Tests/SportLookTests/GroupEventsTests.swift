import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// A group's events and series: made by its admins, members-only by default, and
/// then invisible to everyone outside the group by every route, search and socket.
@Suite("Group events: members-only games", .timeLimit(.minutes(10)))
struct GroupEventsTests {
    static let place = (lat: 55.6761, lon: 12.5683)

    struct Feed: Decodable { var path: String }

    struct SeriesView: Decodable {
        struct Game: Decodable {
            var eventId: String
            var status: String
            enum CodingKeys: String, CodingKey { case eventId = "event_id", status }
        }
        var id: String
        var status: String
        @Nullable var groupID: String?
        var membersOnly: Bool
        var regularsCount: Int
        var upcoming: [Game]
        enum CodingKeys: String, CodingKey {
            case id, status, upcoming
            case groupID = "group_id", membersOnly = "members_only", regularsCount = "regulars_count"
        }
    }

    static func localDate(_ date: Date) -> String {
        LocalDate(date, in: TimeZone(identifier: "Europe/Copenhagen")!).description
    }

    static func groupEvent(
        _ api: API, _ token: String, group: String, title: String, membersOnly: Bool? = nil, now: Date, startsIn: TimeInterval = 86_400
    ) async throws -> API.Event {
        var body: [String: Any] = [
            "title": title, "sport": "padel", "starts_at": RFC3339.format(now.addingTimeInterval(startsIn)),
            "location": ["lat": place.lat, "lon": place.lon], "group_id": group, "capacity": 8,
        ]
        if let membersOnly { body["members_only"] = membersOnly }
        return try await api.post("/v1/events", token: token, json: body).decode(expecting: .created)
    }

    /// A weekly game of the group, from `daysAhead` days on (members-only by default).
    static func groupSeries(_ api: API, _ token: String, group: String, title: String, daysAhead: Double, start: String, now: Date)
        async throws -> SeriesView
    {
        try await api.post(
            "/v1/series", token: token,
            json: [
                "title": title, "sport": "padel", "location": ["lat": place.lat, "lon": place.lon], "time_zone": "Europe/Copenhagen",
                "first_date": localDate(now.addingTimeInterval(daysAhead * 86_400)), "start_time": start, "rule": "FREQ=WEEKLY",
                "group_id": group,
            ]
        ).decode(expecting: .created)
    }

    static func nearby(_ api: API, _ token: String) async throws -> [String] {
        try await api.allPages(API.Event.self, "/v1/events/nearby?lat=\(place.lat)&lon=\(place.lon)&radius_km=5&limit=2", token: token).map(
            \.id)
    }

    static func inBox(_ api: API, _ token: String) async throws -> [String] {
        try await api.allPages(
            API.Event.self, "/v1/events/in-box?min_lat=55.6&min_lon=12.5&max_lat=55.8&max_lon=12.7&limit=2", token: token
        ).map(\.id)
    }

    static func myRooms(_ api: API, _ token: String) async throws -> [String] {
        struct Listing: Decodable, Sendable { var id: String }
        return try await api.allPages(Listing.self, "/v1/me/rooms?limit=50", token: token).map(\.id)
    }

    static func groupEvents(_ api: API, _ group: String, _ token: String) async throws -> [String] {
        try await api.allPages(API.Event.self, "/v1/groups/\(group)/events?limit=1", token: token).map(\.id)
    }

    /// Every route that names an event, an event's room or a series, called by
    /// `token` with `id`: each must answer 404, whatever its method, before it reads
    /// any input.
    static func walk(_ api: API, _ services: AppServices, prefix: String, id: String, someone: String, token: String) async throws {
        let routes = services.routes.all.filter { $0.path == prefix || $0.path.hasPrefix(prefix + "/") }
        #expect(routes.count >= (prefix == "/v1/events/:id" ? 20 : 3), "the walk found the routes under \(prefix)")
        for route in routes {
            let path = route.path.replacingOccurrences(of: ":id", with: id).replacingOccurrences(of: ":user_id", with: someone)
                .replacingOccurrences(of: ":seq", with: "1").replacingOccurrences(of: ":emoji", with: "%F0%9F%91%8D")
            let json: Any? = [.post, .put, .patch].contains(route.method) ? [String: Any]() : nil
            let reply = try await api.request(route.method, path, token: token, json: json)
            #expect(reply.status == .notFound, "\(route.method) \(path): \(reply.status) \(reply.text.prefix(200))")
        }
    }

    @Test(
        "a members-only game is invisible to non-members by every route, search and socket; a removed member loses it at once",
        arguments: engines)
    func membersOnly(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public")
            let joinReply = try await api.post("/v1/groups/\(group.id)/membership", token: member.token)
            #expect(joinReply.status == .ok, "\(joinReply.status) \(joinReply.text)")

            let hidden = try await Self.groupEvent(api, owner.token, group: group.id, title: "Members' padel", now: clock.now())
            let open = try await Self.groupEvent(
                api, owner.token, group: group.id, title: "Open padel", membersOnly: false, now: clock.now(), startsIn: 90_000)
            #expect(hidden.membersOnly && hidden.groupId == group.id)
            #expect(!open.membersOnly && open.groupId == group.id)
            try await api.join(hidden.id, token: member.token)
            _ = try await api.sendMessage("See you on court 3", clientID: "m1", to: hidden.id, token: member.token)
            let memberFeed = try await api.post("/v1/me/calendar", token: member.token).decode(Feed.self, expecting: .created)
            let memberSocket = try await TestSocket.subscribed(try socketURL(api), token: member.token, to: hidden.id)

            // Members see it everywhere: search, the group's games, their games, chats, calendar.
            #expect(Set(try await Self.nearby(api, member.token)) == [hidden.id, open.id])
            #expect(Set(try await Self.inBox(api, member.token)) == [hidden.id, open.id])
            #expect(try await Self.groupEvents(api, group.id, member.token) == [hidden.id, open.id])
            #expect(try await api.event(hidden.id, token: member.token).myStatus?.value1 == .going)
            #expect(try await Self.myRooms(api, member.token).contains(hidden.id))
            #expect(try await api.get(memberFeed.path).text.contains("Members' padel"))
            try await eventually("the members heard of the new games") {
                try await api.notifications(member.token).filter { $0.kind == .groupEvent }.count == 2
            }

            // An outsider sees the open game and nothing of the other, by any route.
            #expect(try await Self.nearby(api, outsider.token) == [open.id])
            #expect(try await Self.inBox(api, outsider.token) == [open.id])
            #expect(try await Self.groupEvents(api, group.id, outsider.token) == [open.id])
            #expect(try await api.event(open.id, token: outsider.token).groupId == group.id)
            try await Self.walk(api, services, prefix: "/v1/events/:id", id: hidden.id, someone: member.id, token: outsider.token)
            try await Self.walk(api, services, prefix: "/v1/rooms/:id", id: hidden.id, someone: member.id, token: outsider.token)
            #expect(try await api.notifications(outsider.token).isEmpty)
            // Reporting it answers as for an event that does not exist.
            let report = try await api.post(
                "/v1/reports", token: outsider.token, json: ["target_type": "event", "target_id": hidden.id, "reason": "spam"])
            #expect(report.status == .notFound)
            #expect(
                try await api.post(
                    "/v1/reports", token: outsider.token, json: ["target_type": "event", "target_id": UUID().uuidString, "reason": "spam"]
                ).text == report.text)
            // Not on the organiser's profile, not by invitation, not through a socket.
            let profile = try await api.user(owner.id, token: outsider.token)
            #expect(!profile.upcomingEvents.map(\.id).contains(hidden.id))
            let invite = try await api.post("/v1/events/\(hidden.id)/invitations", token: owner.token, json: ["user_ids": [outsider.id]])
            #expect(invite.status == .unprocessableContent)
            #expect(try invite.errorFields["user_ids[0]"]?.contains("group") == true)
            let outsiderSocket = try await TestSocket.connect(try socketURL(api), token: outsider.token)
            outsiderSocket.send(["type": "subscribe", "room_id": hidden.id, "after_seq": 0])
            let refused = try await outsiderSocket.waitFor("refused") { $0.type == "error" }
            #expect(refused.error?.code == "not_found")
            outsiderSocket.send(["type": "message", "room_id": hidden.id, "body": "hello?", "client_id": "o1"])
            let refusedSend = try await outsiderSocket.waitFor("send refused") { $0.type == "error" && $0.error?.clientId == "o1" }
            #expect(refusedSend.error?.code == "not_found")
            await outsiderSocket.close()

            // The owner invites the member to the open game: an invitation the member sees;
            // and a second member to the members-only game.
            _ = try await api.invite([member.id], to: open.id, token: owner.token)
            #expect(try await api.invitations(member.token).count == 1)
            let second = try await api.register("Sid")
            try await GroupsTests.join(api, group.id, second.token)
            let waiting = try #require(try await api.invite([second.id], to: hidden.id, token: owner.token).first)

            // Removed: the room ends on the socket at once, the place is freed, and the
            // game is gone from every list, search and the calendar.
            #expect(try await api.delete("/v1/groups/\(group.id)/members/\(member.id)", token: owner.token).status == .noContent)
            let ended = try await memberSocket.waitFor("unsubscribed") { $0.type == "unsubscribed" }
            #expect(ended.unsubscribed?.reason == .notAttending)
            #expect(try await api.event(hidden.id, token: owner.token).goingCount == 0)
            #expect(try await Self.nearby(api, member.token) == [open.id])
            #expect(try await Self.inBox(api, member.token) == [open.id])
            #expect(try await Self.groupEvents(api, group.id, member.token) == [open.id])
            #expect(try await api.allPages(API.Event.self, "/v1/me/events?limit=5", token: member.token).isEmpty)
            #expect(!(try await Self.myRooms(api, member.token).contains(hidden.id)))
            #expect(!(try await api.get(memberFeed.path).text.contains("Members' padel")))
            #expect(
                try await api.notifications(member.token).filter { $0.kind == .groupEvent }.count == 1,
                "only the open game's notice stays")
            try await Self.walk(api, services, prefix: "/v1/events/:id", id: hidden.id, someone: owner.id, token: member.token)
            #expect(try await api.invitations(member.token).count == 1, "the open game's invitation stays")
            // The second member leaves: the invitation waiting for them goes with the game.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: second.token).status == .noContent)
            #expect(try await api.post("/v1/invitations/\(waiting.id)/decline", token: second.token).status == .notFound)
            memberSocket.send(["type": "subscribe", "room_id": hidden.id, "after_seq": 0])
            let again = try await memberSocket.waitFor("refused") { $0.type == "error" }
            #expect(again.error?.code == "not_found")
            await memberSocket.close()

            // Back in the group, the game is there again (to join anew).
            try await GroupsTests.join(api, group.id, member.token)
            #expect(try await api.event(hidden.id, token: member.token).myStatus == nil)
            #expect(Set(try await Self.nearby(api, member.token)) == [hidden.id, open.id])
            // A second group's first members-only game, made after the member last searched, is found too.
            let club2 = try await GroupsTests.create(api, owner.token, policy: "public", name: "Second club")
            try await GroupsTests.join(api, club2.id, member.token)
            #expect(Set(try await Self.nearby(api, member.token)) == [hidden.id, open.id])
            let later = try await Self.groupEvent(api, owner.token, group: club2.id, title: "Second club's game", now: clock.now())
            #expect(Set(try await Self.nearby(api, member.token)) == [hidden.id, open.id, later.id])
            #expect(try await Self.nearby(api, outsider.token) == [open.id])
        }
    }

}

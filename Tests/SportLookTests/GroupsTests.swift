import Foundation
import GeoGrid
import HTTPTypes
import Testing

@testable import SportLook

/// Groups: policies, roles, requests, removals, bans, hand-over and invite links.
@Suite("Groups: members, roles and policies", .timeLimit(.minutes(5)))
struct GroupsTests {
    struct GroupView: Decodable, Sendable {
        struct Location: Decodable, Sendable {
            var lat: Double
            var lon: Double
        }
        var id: String
        var name: String
        var description: String
        var sports: [String]
        var location: Location
        var policy: String
        var visibility: String
        var memberCount: Int
        var owner: API.UserSummary
        var myRole: String?
        var myRequest: Bool

        enum CodingKeys: String, CodingKey {
            case id, name, description, sports, location, policy, visibility, owner
            case memberCount = "member_count", myRole = "my_role", myRequest = "my_request"
        }
    }

    struct Member: Decodable, Sendable {
        var user: API.UserSummary
        var role: String
    }

    struct Joined: Decodable, Sendable { var status: String }
    struct RequestItem: Decodable, Sendable {
        var user: API.UserSummary
        var message: String
    }
    struct Invite: Decodable, Sendable { var invite: String }

    static func create(_ api: API, _ token: String, policy: String, name: String = "Tuesday padel", extra: [String: Any] = [:]) async throws
        -> GroupView
    {
        var body: [String: Any] = [
            "name": name, "sports": ["padel", "tennis"], "location": ["lat": 55.6761, "lon": 12.5683], "policy": policy,
        ]
        body.merge(extra) { $1 }
        return try await api.post("/v1/groups", token: token, json: body).decode(expecting: .created)
    }

    static func view(_ api: API, _ id: String, _ token: String) async throws -> GroupView {
        try await api.get("/v1/groups/\(id)", token: token).decode(expecting: .ok)
    }

    static func members(_ api: API, _ id: String, _ token: String) async throws -> [Member] {
        try await api.allPages(Member.self, "/v1/groups/\(id)/members?limit=2", token: token)
    }

    @Test("a group is made with its owner as first member; its home area is snapped; bad input is refused", arguments: engines)
    func create(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let owner = try await api.register("Olga")
            let group = try await Self.create(
                api, owner.token, policy: "approval", extra: ["description": "Courts at Fælledparken, all levels."])
            #expect(group.myRole == "owner" && group.memberCount == 1 && group.owner.id == owner.id)
            #expect(group.sports == ["padel", "tennis"] && group.visibility == "listed")
            #expect(group.location.lat != 55.6761 || group.location.lon != 12.5683, "snapped, not the exact point")
            #expect(abs(group.location.lat - 55.6761) < 0.01 && abs(group.location.lon - 12.5683) < 0.01)
            let stranger = try await api.register("Sam")
            let seen = try await Self.view(api, group.id, stranger.token)
            #expect(seen.myRole == nil && !seen.myRequest && seen.name == "Tuesday padel")
            let bad: [[String: Any]] = [
                ["name": "", "location": ["lat": 1, "lon": 1]], ["name": "X"], ["name": "X", "location": ["lat": 91, "lon": 0]],
                ["name": "X", "location": ["lat": 1, "lon": 1], "policy": "secret"],
                ["name": "X", "location": ["lat": 1, "lon": 1], "visibility": "hidden"],
                ["name": "X", "location": ["lat": 1, "lon": 1], "sports": ["quidditch"]],
                ["name": String(repeating: "é", count: 81), "location": ["lat": 1, "lon": 1]],
                ["name": "X", "location": ["lat": 1, "lon": 1], "description": String(repeating: "a", count: 2_001)],
            ]
            for body in bad {
                #expect(try await api.post("/v1/groups", token: owner.token, json: body).status == .unprocessableContent, "\(body)")
            }
            #expect(try await api.get("/v1/groups/\(UUID())", token: owner.token).status == .notFound)
            #expect(try await api.get("/v1/groups/not-an-id", token: owner.token).status == .notFound)
            // Only admins edit.
            #expect(try await api.patch("/v1/groups/\(group.id)", token: stranger.token, json: ["name": "Mine now"]).status == .forbidden)
            let renamed: GroupView = try await api.patch(
                "/v1/groups/\(group.id)", token: owner.token, json: ["name": "Padel Tuesdays", "policy": "public"]
            ).decode(expecting: .ok)
            #expect(
                renamed.name == "Padel Tuesdays" && renamed.policy == "public"
                    && renamed.description == "Courts at Fælledparken, all levels.")
        }
    }

    @Test("each policy: public joins at once, approval asks and an admin answers, invite-only needs the live link", arguments: engines)
    func policies(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Olga")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            // Public.
            let open = try await Self.create(api, owner.token, policy: "public")
            #expect(
                try await api.post("/v1/groups/\(open.id)/membership", token: ann.token).decode(Joined.self, expecting: .ok).status
                    == "member")
            #expect(
                try await api.post("/v1/groups/\(open.id)/membership", token: ann.token).decode(Joined.self, expecting: .ok).status
                    == "member", "again: still a member")
            #expect(try await Self.view(api, open.id, ann.token).memberCount == 2)

            // Approval: a request, which the admins hear of; a refusal and an acceptance, each told.
            let club = try await Self.create(api, owner.token, policy: "approval")
            #expect(
                try await api.post("/v1/groups/\(club.id)/membership", token: bo.token, json: ["message": "I play on Tuesdays"]).decode(
                    Joined.self, expecting: .ok
                ).status == "requested")
            clock.advance(by: 1)
            #expect(
                try await api.post("/v1/groups/\(club.id)/membership", token: cy.token).decode(Joined.self, expecting: .ok).status
                    == "requested")
            #expect(try await Self.view(api, club.id, bo.token).myRequest)
            #expect(try await api.get("/v1/groups/\(club.id)/members", token: bo.token).status == .forbidden, "members only")
            #expect(try await api.get("/v1/groups/\(club.id)/requests", token: bo.token).status == .forbidden, "admins only")
            let requests = try await api.allPages(RequestItem.self, "/v1/groups/\(club.id)/requests?limit=1", token: owner.token)
            #expect(requests.map(\.user.id) == [bo.id, cy.id] && requests.first?.message == "I play on Tuesdays")
            try await eventually("the owner is told of both requests") {
                try await api.notifications(owner.token).filter { $0.kind == "group_request" }.count >= 1
            }
            #expect(try await api.post("/v1/groups/\(club.id)/requests/\(bo.id)", token: owner.token).status == .noContent)
            #expect(try await api.delete("/v1/groups/\(club.id)/requests/\(cy.id)", token: owner.token).status == .noContent)
            #expect(
                try await api.post("/v1/groups/\(club.id)/requests/\(cy.id)", token: owner.token).status == .notFound, "answered already")
            #expect(try await Self.view(api, club.id, bo.token).myRole == "member")
            #expect(try await Self.view(api, club.id, cy.token).myRole == nil)
            try await eventually("each is told the answer") {
                let accepted = try await api.notifications(bo.token).contains { $0.kind == "group_request_accepted" }
                let refused = try await api.notifications(cy.token).contains { $0.kind == "group_request_refused" }
                return accepted && refused
            }
            #expect(try await Self.members(api, club.id, bo.token).map(\.user.id) == [owner.id, bo.id])
            // A request can be taken back.
            #expect(
                try await api.post("/v1/groups/\(club.id)/membership", token: cy.token).decode(Joined.self, expecting: .ok).status
                    == "requested")
            #expect(try await api.delete("/v1/groups/\(club.id)/membership", token: cy.token).status == .noContent)
            #expect(!(try await Self.view(api, club.id, cy.token).myRequest))

            // Invite only: refused without the link, admitted with it, refused once it is
            // rotated or revoked. The link admits to an approval group at once too.
            let team = try await Self.create(api, owner.token, policy: "invite")
            let refused = try await api.post("/v1/groups/\(team.id)/membership", token: ann.token)
            #expect(refused.status == .forbidden && refused.text.contains("invite_only"))
            #expect(try await api.post("/v1/groups/\(team.id)/invite", token: ann.token).status == .forbidden, "admins make links")
            let first = try await api.post("/v1/groups/\(team.id)/invite", token: owner.token).decode(Invite.self, expecting: .created)
                .invite
            #expect(
                try await api.post("/v1/groups/\(team.id)/membership", token: ann.token, json: ["invite": first]).decode(
                    Joined.self, expecting: .ok
                ).status == "member")
            let second = try await api.post("/v1/groups/\(team.id)/invite", token: owner.token).decode(Invite.self, expecting: .created)
                .invite
            #expect(second != first)
            let stale = try await api.post("/v1/groups/\(team.id)/membership", token: bo.token, json: ["invite": first])
            #expect(stale.status == .forbidden && stale.text.contains("invite_invalid"))
            #expect(try await api.post("/v1/groups/\(team.id)/membership", token: bo.token, json: ["invite": "x"]).status == .forbidden)
            #expect(try await api.delete("/v1/groups/\(team.id)/invite", token: owner.token).status == .noContent)
            #expect(
                try await api.post("/v1/groups/\(team.id)/membership", token: bo.token, json: ["invite": second]).status == .forbidden,
                "revoked")
            let clubLink = try await api.post("/v1/groups/\(club.id)/invite", token: owner.token).decode(Invite.self, expecting: .created)
                .invite
            #expect(
                try await api.post("/v1/groups/\(club.id)/membership", token: cy.token, json: ["invite": clubLink]).decode(
                    Joined.self, expecting: .ok
                ).status == "member")
            #expect(
                try await api.post("/v1/groups/\(team.id)/membership", token: cy.token, json: ["invite": clubLink]).status == .forbidden,
                "one group's link opens no other")
        }
    }

    @Test(
        "blocks hold in groups: members blocked either way are off each other's member lists, and a blocked person's request is not listed to the admin who blocked them",
        arguments: engines)
    func blocksInGroups(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Olga")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            let dan = try await api.register("Dan")
            let open = try await Self.create(api, owner.token, policy: "public")
            for person in [ann, bo] {
                _ = try await api.post("/v1/groups/\(open.id)/membership", token: person.token).decode(Joined.self, expecting: .ok)
            }
            #expect(try await api.post("/v1/users/\(bo.id)/block", token: ann.token).status == .noContent)
            #expect(try await Set(Self.members(api, open.id, ann.token).map(\.user.id)) == [owner.id, ann.id])
            #expect(try await Set(Self.members(api, open.id, bo.token).map(\.user.id)) == [owner.id, bo.id])
            #expect(try await Set(Self.members(api, open.id, owner.token).map(\.user.id)) == [owner.id, ann.id, bo.id])
            // The owner of an approval group blocks Cy; Cy's request, with its message, is not listed to her; Dan's is.
            let club = try await Self.create(api, owner.token, policy: "approval")
            #expect(try await api.post("/v1/users/\(cy.id)/block", token: owner.token).status == .noContent)
            _ = try await api.post("/v1/groups/\(club.id)/membership", token: cy.token, json: ["message": "let me in"]).decode(
                Joined.self, expecting: .ok)
            clock.advance(by: 1)
            _ = try await api.post("/v1/groups/\(club.id)/membership", token: dan.token).decode(Joined.self, expecting: .ok)
            let requests = try await api.allPages(RequestItem.self, "/v1/groups/\(club.id)/requests?limit=1", token: owner.token)
            #expect(requests.map(\.user.id) == [dan.id])
        }
    }

    @Test(
        "roles: admins remove and ban members, only the owner handles admins and hands over; leaving passes ownership on",
        arguments: engines)
    func roles(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Date().wholeMilliseconds)
        try await withApp(engine, clock: clock) { api, _ in
            let owner = try await api.register("Olga")
            let group = try await Self.create(api, owner.token, policy: "public")
            var people: [(token: String, id: String)] = []
            for name in ["Ann", "Bo", "Cy", "Di"] {
                let person = try await api.register(name)
                clock.advance(by: 1)
                _ = try await api.post("/v1/groups/\(group.id)/membership", token: person.token).decode(Joined.self, expecting: .ok)
                people.append(person)
            }
            let (ann, bo, cy, di) = (people[0], people[1], people[2], people[3])
            // The owner names Bo an admin; an admin cannot name admins.
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(bo.id)", token: owner.token, json: ["role": "admin"]).status
                    == .noContent)
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(cy.id)", token: bo.token, json: ["role": "admin"]).status
                    == .forbidden)
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(cy.id)", token: owner.token, json: ["role": "owner"]).status
                    == .unprocessableContent)
            #expect(try await Self.members(api, group.id, ann.token).map(\.role) == ["owner", "admin", "member", "member", "member"])
            // An admin removes a member; not the owner, not another admin; a member removes nobody.
            #expect(try await api.delete("/v1/groups/\(group.id)/members/\(cy.id)", token: ann.token).status == .forbidden)
            #expect(try await api.delete("/v1/groups/\(group.id)/members/\(cy.id)", token: bo.token).status == .noContent)
            #expect(try await api.delete("/v1/groups/\(group.id)/members/\(owner.id)", token: bo.token).status == .forbidden)
            #expect(try await Self.view(api, group.id, cy.token).myRole == nil)
            // Removed is not banned: Cy joins again. Banned, Cy cannot, even with a link.
            _ = try await api.post("/v1/groups/\(group.id)/membership", token: cy.token).decode(Joined.self, expecting: .ok)
            #expect(try await api.post("/v1/groups/\(group.id)/bans", token: bo.token, json: ["user_id": cy.id]).status == .noContent)
            #expect(try await Self.view(api, group.id, cy.token).myRole == nil)
            let link = try await api.post("/v1/groups/\(group.id)/invite", token: owner.token).decode(Invite.self, expecting: .created)
                .invite
            let barred = try await api.post("/v1/groups/\(group.id)/membership", token: cy.token, json: ["invite": link])
            #expect(barred.status == .forbidden && barred.text.contains("banned"))
            #expect(try await api.allPages(API.Ban.self, "/v1/groups/\(group.id)/bans", token: bo.token).map(\.user.id) == [cy.id])
            #expect(try await api.delete("/v1/groups/\(group.id)/bans/\(cy.id)", token: bo.token).status == .noContent)
            #expect(
                try await api.post("/v1/groups/\(group.id)/membership", token: cy.token).decode(Joined.self, expecting: .ok).status
                    == "member")

            // The owner hands over to Di and stays an admin.
            #expect(try await api.post("/v1/groups/\(group.id)/owner", token: bo.token, json: ["user_id": di.id]).status == .forbidden)
            let handed: GroupView = try await api.post("/v1/groups/\(group.id)/owner", token: owner.token, json: ["user_id": di.id]).decode(
                expecting: .ok)
            #expect(handed.owner.id == di.id && handed.myRole == "admin")
            // Di leaves: the longest-standing admin (Olga, who joined first) takes over.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: di.token).status == .noContent)
            #expect(try await Self.view(api, group.id, ann.token).owner.id == owner.id)
            // Olga deletes her account: Bo, the other admin, takes over before the members.
            #expect(try await api.delete("/v1/me", token: owner.token).status == .noContent)
            let now = try await Self.view(api, group.id, ann.token)
            #expect(now.owner.id == bo.id && now.memberCount == 3)
            // The last to leave ends the group.
            for person in [ann, cy, bo] {
                #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: person.token).status == .noContent)
            }
            #expect(try await api.get("/v1/groups/\(group.id)", token: ann.token).status == .notFound)
            #expect(try await api.allPages(GroupView.self, "/v1/me/groups?limit=1", token: ann.token).isEmpty)
        }
    }

    @Test("the owner deletes a group: it is gone for everyone; others cannot", arguments: engines)
    func deletion(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let owner = try await api.register("Olga")
            let ann = try await api.register("Ann")
            let group = try await Self.create(api, owner.token, policy: "public")
            _ = try await api.post("/v1/groups/\(group.id)/membership", token: ann.token).decode(Joined.self, expecting: .ok)
            #expect(try await api.allPages(GroupView.self, "/v1/me/groups", token: ann.token).map(\.id) == [group.id])
            #expect(try await api.delete("/v1/groups/\(group.id)", token: ann.token).status == .forbidden)
            #expect(try await api.delete("/v1/groups/\(group.id)", token: owner.token).status == .noContent)
            #expect(try await api.get("/v1/groups/\(group.id)", token: ann.token).status == .notFound)
            #expect(try await api.post("/v1/groups/\(group.id)/membership", token: ann.token).status == .notFound)
            #expect(try await api.allPages(GroupView.self, "/v1/me/groups", token: ann.token).isEmpty)
        }
    }

    @Test("people joining at once are each counted once; two admins answering one request add one member", arguments: engines)
    func concurrency(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let owner = try await api.register("Olga")
            let admin = try await api.register("Ada")
            let open = try await Self.create(api, owner.token, policy: "public")
            var tokens: [String] = []
            for i in 0..<8 { tokens.append(try await api.register("P\(i)").token) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens {
                    group.addTask {
                        // Each asks twice at once.
                        async let a = api.post("/v1/groups/\(open.id)/membership", token: token)
                        async let b = api.post("/v1/groups/\(open.id)/membership", token: token)
                        let (x, y) = try await (a, b)
                        #expect(x.status == .ok && y.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.view(api, open.id, owner.token).memberCount == 9)
            #expect(try await Self.members(api, open.id, owner.token).count == 9)

            let club = try await Self.create(api, owner.token, policy: "approval")
            _ = try await api.post(
                "/v1/groups/\(club.id)/membership", token: admin.token,
                json: [
                    "invite": try await api.post("/v1/groups/\(club.id)/invite", token: owner.token).decode(
                        Invite.self, expecting: .created
                    ).invite
                ])
            #expect(
                try await api.patch("/v1/groups/\(club.id)/members/\(admin.id)", token: owner.token, json: ["role": "admin"]).status
                    == .noContent)
            let asker = try await api.register("Asker")
            _ = try await api.post("/v1/groups/\(club.id)/membership", token: asker.token).decode(Joined.self, expecting: .ok)
            async let one = api.post("/v1/groups/\(club.id)/requests/\(asker.id)", token: owner.token)
            async let two = api.post("/v1/groups/\(club.id)/requests/\(asker.id)", token: admin.token)
            let statuses = try await [one.status, two.status].map(\.code).sorted()
            #expect(statuses == [204, 404], "one answers, the other finds it answered")
            #expect(try await Self.view(api, club.id, owner.token).memberCount == 3)
        }
    }

    struct Nearby: Decodable, Sendable {
        var id: String
        var memberCount: Int
        var sports: [String]
        var myRole: String?
        var distanceM: Double

        enum CodingKeys: String, CodingKey {
            case id, sports
            case memberCount = "member_count", myRole = "my_role", distanceM = "distance_m"
        }
    }

    @Test(
        "groups nearby equal a brute-force filter by sport and size over listed groups, across the antimeridian; pages are full",
        arguments: engines)
    func nearby(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            var rng = TestRandom(seed: 38)
            let owner = try await api.register("Olga")
            var joiners: [String] = []
            for i in 0..<6 { joiners.append(try await api.register("J\(i)").token) }
            struct Made {
                var id: String
                var point: GeoPoint
                var sports: [String]
                var members: Int
                var listed: Bool
            }
            var made: [Made] = []
            let spots: [(Double, Double)] = [(55.68, 12.57), (-16.5, 179.95), (-16.5, -179.95)]
            for i in 0..<45 {
                let (clat, clon) = spots[i % spots.count]
                var lon = clon + Double.random(in: -0.4...0.4, using: &rng)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                let lat = clat + Double.random(in: -0.3...0.3, using: &rng)
                let sports = [["padel"], ["tennis"], ["padel", "running"], []][i % 4]
                let listed = i % 5 != 0
                let group = try await Self.create(
                    api, owner.token, policy: "public", name: "G\(i)",
                    extra: ["location": ["lat": lat, "lon": lon], "sports": sports, "visibility": listed ? "listed" : "unlisted"])
                var members = 1
                for token in joiners.prefix(Int.random(in: 0...joiners.count, using: &rng)) {
                    _ = try await api.post("/v1/groups/\(group.id)/membership", token: token).decode(Joined.self, expecting: .ok)
                    members += 1
                }
                made.append(
                    Made(
                        id: group.id, point: GeoPoint(latitude: group.location.lat, longitude: group.location.lon)!, sports: group.sports,
                        members: members, listed: listed))
            }
            // One is deleted, one becomes unlisted, one listed again.
            #expect(try await api.delete("/v1/groups/\(made[1].id)", token: owner.token).status == .noContent)
            made[1].listed = false
            _ = try await api.patch("/v1/groups/\(made[2].id)", token: owner.token, json: ["visibility": "unlisted"]).decode(
                GroupView.self, expecting: .ok)
            made[2].listed = false
            _ = try await api.patch("/v1/groups/\(made[5].id)", token: owner.token, json: ["visibility": "listed"]).decode(
                GroupView.self, expecting: .ok)
            made[5].listed = true
            var matched = 0
            for q in 0..<24 {
                let (clat, clon) = spots[q % spots.count]
                let center = GeoPoint(latitude: clat + Double.random(in: -0.2...0.2, using: &rng), longitude: clon)!
                let radiusKm = [10.0, 40, 100][q % 3]
                let sport: String? = [nil, "padel", "tennis"][q % 3]
                let minMembers: Int? = q % 2 == 0 ? nil : Int.random(in: 1...5, using: &rng)
                let want = made.filter { g in
                    g.listed && (sport.map(g.sports.contains) ?? true) && g.members >= (minMembers ?? 0)
                        && GeoMath.distance(center, g.point) <= radiusKm * 1_000
                }.sorted { a, b in
                    let (da, db) = (GeoMath.distance(center, a.point), GeoMath.distance(center, b.point))
                    return da != db ? da < db : UUID(uuidString: a.id)!.geoKey < UUID(uuidString: b.id)!.geoKey
                }.map(\.id)
                var path = "/v1/groups/nearby?lat=\(center.latitude)&lon=\(center.longitude)&radius_km=\(radiusKm)&limit=4"
                if let sport { path += "&sport=\(sport)" }
                if let minMembers { path += "&min_members=\(minMembers)" }
                var got: [Nearby] = []
                var cursor: String?
                repeat {
                    let page = try await api.page(Nearby.self, path + (cursor.map { "&cursor=\($0)" } ?? ""), token: owner.token)
                    if page.nextCursor != nil { #expect(page.items.count == 4, "a page before the last is full") }
                    got += page.items
                    cursor = page.nextCursor
                } while cursor != nil
                #expect(got.map(\.id) == want, "query \(q): \(path)")
                #expect(got.allSatisfy { $0.myRole == "owner" })
                matched += want.count
            }
            #expect(matched > 20)
            for bad in ["lat=0&lon=0&radius_km=101", "lat=0&lon=0&min_members=0", "lat=0&lon=0&sport=quidditch", "lon=0"] {
                #expect(try await api.get("/v1/groups/nearby?\(bad)", token: owner.token).status == .unprocessableContent, "\(bad)")
            }
        }
    }
}

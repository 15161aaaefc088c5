import Foundation
import GeoGrid
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Groups: policies, roles, requests, removals, bans, hand-over and invite links.
@Suite("Groups: members, roles and policies", .timeLimit(.minutes(10)))
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
                try await api.notifications(owner.token).filter { $0.kind == .groupRequest }.count >= 1
            }
            #expect(try await api.post("/v1/groups/\(club.id)/requests/\(bo.id)", token: owner.token).status == .noContent)
            #expect(try await api.delete("/v1/groups/\(club.id)/requests/\(cy.id)", token: owner.token).status == .noContent)
            #expect(
                try await api.post("/v1/groups/\(club.id)/requests/\(cy.id)", token: owner.token).status == .notFound, "answered already")
            #expect(try await Self.view(api, club.id, bo.token).myRole == "member")
            #expect(try await Self.view(api, club.id, cy.token).myRole == nil)
            try await eventually("each is told the answer") {
                let accepted = try await api.notifications(bo.token).contains { $0.kind == .groupRequestAccepted }
                let refused = try await api.notifications(cy.token).contains { $0.kind == .groupRequestRefused }
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

}

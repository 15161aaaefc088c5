import Foundation
import GeoGrid
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

/// Groups: deletion, people joining at once, and groups nearby.
extension GroupsTests {
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

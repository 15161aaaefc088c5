import Foundation
import GeoGrid
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

/// Nearby and map search by who a game is for: level, audience, free places and
/// sport, each answered by the index while it walks its cells.
@Suite("Search filters: level, audience, free places, sport", .timeLimit(.minutes(10)))
struct SearchFilterTests {
    struct Game {
        var id: String
        var point: GeoPoint
        var sport: String
        /// In half steps; nil for a game open to every level.
        var levels: ClosedRange<Int>?
        var audience: String
        var capacity: Int?
        /// The organiser is not counted among those going.
        var going = 0

        var hasFreePlace: Bool { capacity.map { going < $0 } ?? true }
    }

    struct Query {
        var sport: String?
        var level: Int?
        var audiences: [String] = []
        var free = false

        var parameters: String {
            var out = ""
            if let sport { out += "&sport=\(sport)" }
            if let level { out += "&level=\(Double(level) / 2)" }
            if !audiences.isEmpty { out += "&audience=\(audiences.joined(separator: ","))" }
            if free { out += "&free_places=true" }
            return out
        }

        func accepts(_ game: Game) -> Bool {
            if let sport, game.sport != sport { return false }
            if let level, let range = game.levels, !range.contains(level) { return false }
            if !audiences.isEmpty && !audiences.contains(game.audience) { return false }
            if free && !game.hasFreePlace { return false }
            return true
        }
    }

    static let audiences = ["anyone", "women", "men", "mixed"]

    static func randomQuery(_ rng: inout TestRandom) -> Query {
        var q = Query()
        if Bool.random(using: &rng) { q.sport = ["football", "padel", "tennis"].randomElement(using: &rng) }
        if Bool.random(using: &rng) { q.level = Int.random(in: 0...14, using: &rng) }
        if Bool.random(using: &rng) { q.audiences = audiences.filter { _ in Bool.random(using: &rng) } }
        q.free = Bool.random(using: &rng)
        return q
    }

    /// Walks every page of `path` with `limit` per page: each page but the last is full.
    static func pages(_ api: API, _ path: String, limit: Int, token: String) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try await api.page(API.Event.self, path + "&limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            if page.nextCursor != nil { #expect(page.items.count == limit, "a page before the last is full: \(path)") }
            ids += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        return ids
    }

    @Test("a cursor is its fields joined by U+001F in base64url without padding, and decodes back to them")
    func cursorEncoding() {
        var generator = SystemRandomNumberGenerator()
        var lists: [[String]] = [
            [], [""], ["", ""], ["a"], ["ab"], ["abc"], ["3ff0000000000000", "0b6f2f1e-7a1c-4e55-9d51-1f0a3c1f2e11"], ["é", "東京", "+/="],
        ]
        for _ in 0..<2_000 {
            lists.append(
                (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                    String(
                        decoding: (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                            UInt8.random(in: 0x20...0x7E, using: &generator)
                        }, as: UTF8.self)
                })
        }
        for fields in lists {
            let reference = Data(fields.joined(separator: "\u{1F}").utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let cursor = OpaqueCursor.encode(fields)
            #expect(cursor == reference, "\(fields)")
            if !fields.isEmpty { #expect(OpaqueCursor.decode(cursor, count: fields.count) == fields, "\(fields)") }
        }
    }

    @Test(
        "a query's fingerprint (what a cursor carries) changes with every parameter of the query; the same query gives the same one, whatever the order of its audiences"
    )
    func queryFingerprints() throws {
        let paris = try #require(GeoPoint(latitude: 48.85, longitude: 2.35))
        let near = try #require(GeoPoint(latitude: 48.8500001, longitude: 2.35))
        let box = try #require(GeoBox(minLatitude: 48, minLongitude: 2, maxLatitude: 49, maxLongitude: 3))
        let areas: [EventSearch.Area] = [
            .radius(center: paris, metres: 5_000), .radius(center: paris, metres: 5_001), .radius(center: near, metres: 5_000), .box(box),
            .box(try #require(GeoBox(minLatitude: 48, minLongitude: 2, maxLatitude: 49, maxLongitude: 3.5))),
        ]
        var filters: [EventSearch.Filters] = [
            .init(), .init(sport: "tennis"), .init(sport: "football"), .init(startsAfter: Date(timeIntervalSince1970: 0)),
            .init(startsBefore: Date(timeIntervalSince1970: 1_800_000_000)), .init(level: Level(3.5)), .init(level: Level(4)),
            .init(audiences: [.women]), .init(audiences: [.women, .mixed]), .init(freePlaces: true),
        ]
        filters.append(.init(sport: "", startsAfter: nil))
        func fingerprint(_ area: EventSearch.Area, _ filter: EventSearch.Filters) -> UInt32 {
            var query = QueryFingerprint()
            area.fingerprint(into: &query)
            filter.fingerprint(into: &query)
            return query.value
        }
        var seen: [UInt32: String] = [:]
        for (a, area) in areas.enumerated() {
            for (f, filter) in filters.enumerated() {
                let value = fingerprint(area, filter)
                #expect(seen[value] == nil, "area \(a) filter \(f) has the fingerprint of \(seen[value] ?? "")")
                seen[value] = "area \(a) filter \(f)"
                #expect(fingerprint(area, filter) == value, "the same query, the same fingerprint")
            }
        }
        // The order audiences were given in does not make another query.
        #expect(fingerprint(areas[0], .init(audiences: [.mixed, .women])) == fingerprint(areas[0], .init(audiences: [.women, .mixed])))
    }

    @Test("nearby and in-box with filters equal a brute-force filter over the same games; pages are full", arguments: engines)
    func filtersMatchBruteForce(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let organiser = try await api.register("Organiser")
            let joiner = try await api.register("Joiner")
            var rng = TestRandom(seed: 37)
            var games: [Game] = []
            for i in 0..<160 {
                let (clat, clon) = searchSpots[i % searchSpots.count]
                let lat = max(-90, min(90, clat + Double.random(in: -0.3...0.3, using: &rng)))
                var lon = clon + Double.random(in: -0.6...0.6, using: &rng)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                let sport = ["football", "padel", "tennis"][i % 3]
                var body: [String: Any] = [
                    "title": "G\(i)", "sport": sport,
                    "starts_at": RFC3339.format(clock.now().addingTimeInterval(Double(1 + i % 48) * 3_600)),
                    "location": ["lat": lat, "lon": lon],
                ]
                var levels: ClosedRange<Int>?
                if Bool.random(using: &rng) {
                    let low = Int.random(in: 0...14, using: &rng)
                    let high = Int.random(in: low...14, using: &rng)
                    levels = low...high
                    body["level"] = ["min": Double(low) / 2, "max": Double(high) / 2]
                }
                let audience = Self.audiences.randomElement(using: &rng)!
                body["audience"] = audience
                let capacity: Int? = [nil, 1, 2, 3].randomElement(using: &rng)!
                if let capacity { body["capacity"] = capacity }
                let event = try await api.post("/v1/events", token: organiser.token, json: body).decode(API.Event.self, expecting: .created)
                games.append(
                    Game(
                        id: event.id, point: GeoPoint(latitude: lat, longitude: lon)!, sport: sport, levels: levels, audience: audience,
                        capacity: capacity))
            }
            // The joiner takes the place of every game of one for anyone, then leaves a
            // few: the free place goes and comes back with them.
            for i in games.indices where games[i].capacity == 1 && games[i].levels == nil && games[i].audience == "anyone" {
                #expect(try await api.join(games[i].id, token: joiner.token).status == .going)
                games[i].going = 1
            }
            for i in games.indices where games[i].going == 1 && i % 2 == 0 {
                #expect(try await api.delete("/v1/events/\(games[i].id)/attendance", token: joiner.token).status == .noContent)
                games[i].going = 0
            }
            #expect(games.contains { !$0.hasFreePlace } && games.contains { $0.hasFreePlace })

            func brute(_ q: Query, from center: GeoPoint, within radius: Double? = nil, in box: GeoBox? = nil) -> [String] {
                games.compactMap { g -> (Double, GeoKey, String)? in
                    guard q.accepts(g) else { return nil }
                    if let box, !box.contains(g.point) { return nil }
                    let d = GeoMath.distance(center, g.point)
                    if let radius, d > radius { return nil }
                    return (d, UUID(uuidString: g.id)!.geoKey, g.id)
                }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map(\.2)
            }

            var matched = 0
            for n in 0..<40 {
                let (clat, clon) = searchSpots[n % searchSpots.count]
                let lat = max(-90, min(90, clat + Double.random(in: -0.2...0.2, using: &rng)))
                var lon = clon + Double.random(in: -0.3...0.3, using: &rng)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                let radiusKm = [5.0, 25, 60, 100][n % 4]
                let q = Self.randomQuery(&rng)
                let center = GeoPoint(latitude: lat, longitude: lon)!
                let want = brute(q, from: center, within: radiusKm * 1_000)
                let got = try await Self.pages(
                    api, "/v1/events/nearby?lat=\(lat)&lon=\(lon)&radius_km=\(radiusKm)" + q.parameters, limit: n % 2 == 0 ? 3 : 50,
                    token: organiser.token)
                #expect(got == want, "query \(n): \(q.parameters)")
                matched += want.count
            }
            #expect(matched > 100, "the queries match something")

            let boxes: [(Double, Double, Double, Double)] = [
                (48.5, 1.7, 49.2, 3.0), (-16.9, 179.3, -16.1, -179.3), (77, 10, 80, 20), (-90, -180, 90, 180),
            ]
            for (n, (minLat, minLon, maxLat, maxLon)) in boxes.enumerated() {
                for _ in 0..<4 {
                    let q = Self.randomQuery(&rng)
                    let box = try #require(GeoBox(minLatitude: minLat, minLongitude: minLon, maxLatitude: maxLat, maxLongitude: maxLon))
                    let want = brute(q, from: box.center, in: box)
                    let got = try await Self.pages(
                        api, "/v1/events/in-box?min_lat=\(minLat)&min_lon=\(minLon)&max_lat=\(maxLat)&max_lon=\(maxLon)" + q.parameters,
                        limit: 4, token: organiser.token)
                    #expect(got == want, "box \(n): \(q.parameters)")
                }
            }

            // An instance starting now reads the same traits from the database as this one
            // keeps from its writes.
            let fresh = EventIndex(
                cellSize: services.configuration.geoCellSize, sports: services.sports,
                encodeCard: EventJSON.cardEncoder(sports: services.sports, links: services.mediaLinks))
            try await services.sync.warm(fresh)
            let live = Dictionary(uniqueKeysWithValues: services.eventIndex.grid.allEntries.map { ($0.key, $0.tags) })
            let warmed = Dictionary(uniqueKeysWithValues: fresh.grid.allEntries.map { ($0.key, $0.tags) })
            #expect(live.count == games.count && warmed == live)

            // Filters a client gets wrong are refused with the reason.
            for bad in [
                "level=7.5", "level=3.3", "level=high", "level=1e300", "level=-1e300", "level=nan", "audience=kids", "audience=women,",
                "free_places=maybe",
            ] {
                let reply = try await api.get("/v1/events/nearby?lat=48.85&lon=2.35&\(bad)", token: organiser.token)
                #expect(reply.status == .unprocessableContent, "\(bad)")
            }
            // A cursor belongs to its filters.
            let first = try await api.page(
                API.Event.self, "/v1/events/nearby?lat=48.85&lon=2.35&radius_km=100&limit=1&free_places=true", token: organiser.token)
            let cursor = try #require(first.nextCursor)
            #expect(
                try await api.get("/v1/events/nearby?lat=48.85&lon=2.35&radius_km=100&limit=1&cursor=\(cursor)", token: organiser.token)
                    .status == .unprocessableContent)
        }
    }
}

import Foundation
import GeoGrid
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// The deterministic generator of the demo data serves the tests too.
typealias TestRandom = DemoRandom

struct SeededEvent {
    var id: String
    var lat: Double
    var lon: Double
    var sport: String
    var startsAt: Date
}

/// Places where events cluster in the search tests: a city, the antimeridian, the far north.
let searchSpots: [(Double, Double)] = [(48.8566, 2.3522), (-16.5, 179.95), (-16.5, -179.95), (78.22, 15.65), (89.9, 0)]

func seedEvents(_ api: API, token: String, count: Int, clock: ManualClock, rng: inout TestRandom) async throws -> [SeededEvent] {
    var out: [SeededEvent] = []
    let sports = ["football", "tennis", "running"]
    for i in 0..<count {
        let (clat, clon) = searchSpots[i % searchSpots.count]
        let lat = max(-90, min(90, clat + Double.random(in: -0.3...0.3, using: &rng)))
        var lon = clon + Double.random(in: -0.6...0.6, using: &rng)
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        let sport = sports[i % 3]
        let startsIn = Double(Int.random(in: 1...72, using: &rng)) * 3_600
        let event = try await api.createEvent(token, title: "S\(i)", sport: sport, lat: lat, lon: lon, startsIn: startsIn, now: clock.now())
        out.append(SeededEvent(id: event.id, lat: lat, lon: lon, sport: sport, startsAt: clock.now().addingTimeInterval(startsIn)))
    }
    return out
}

/// What the nearby search must answer: a haversine scan over the same events.
func bruteForce(_ events: [SeededEvent], lat: Double, lon: Double, radius: Double, sport: String?, after: Date?, before: Date?) -> [String]
{
    let center = GeoPoint(latitude: lat, longitude: lon)!
    return events.compactMap { e -> (Double, GeoKey, String)? in
        guard sport == nil || e.sport == sport else { return nil }
        if let after, e.startsAt < after { return nil }
        if let before, e.startsAt > before { return nil }
        let d = GeoMath.distance(center, GeoPoint(latitude: e.lat, longitude: e.lon)!)
        guard d <= radius else { return nil }
        return (d, UUID(uuidString: e.id)!.geoKey, e.id)
    }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map(\.2)
}

@Suite("Finding events nearby and on the map", .timeLimit(.minutes(10)))
struct EventSearchTests {
    @Test("nearby equals a brute-force haversine filter; pages concatenate to the whole", arguments: engines)
    func nearbyMatchesBruteForce(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (token, _) = try await api.register("Seeker")
            var rng = TestRandom(seed: 42)
            let events = try await seedEvents(api, token: token, count: 200, clock: clock, rng: &rng)
            for q in 0..<40 {
                let (clat, clon) = searchSpots[q % searchSpots.count]
                let lat = max(-90, min(90, clat + Double.random(in: -0.2...0.2, using: &rng)))
                var lon = clon + Double.random(in: -0.3...0.3, using: &rng)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                let radiusKm = [1.0, 5, 25, 60, 100][q % 5]
                let sport: String? = q % 3 == 0 ? "tennis" : nil
                let after: Date? = q % 4 == 1 ? clock.now().addingTimeInterval(24 * 3_600) : nil
                let before: Date? = q % 4 == 2 ? clock.now().addingTimeInterval(48 * 3_600) : nil
                var path = "/v1/events/nearby?lat=\(lat)&lon=\(lon)&radius_km=\(radiusKm)&limit=\(q % 2 == 0 ? 7 : 100)"
                if let sport { path += "&sport=\(sport)" }
                if let after { path += "&starts_after=\(RFC3339.format(after))" }
                if let before { path += "&starts_before=\(RFC3339.format(before))" }
                let got = try await api.allPages(API.Event.self, path, token: token)
                let want = bruteForce(events, lat: lat, lon: lon, radius: radiusKm * 1_000, sport: sport, after: after, before: before)
                #expect(got.map(\.id) == want, "query \(q): \(path)")
                let distances = got.compactMap(\.distanceM)
                #expect(distances == distances.sorted())
            }
            // A cursor only continues its own query.
            let first = try await api.page(API.Event.self, "/v1/events/nearby?lat=48.85&lon=2.35&radius_km=50&limit=2", token: token)
            let cursor = try #require(first.nextCursor)
            let misuse = try await api.get("/v1/events/nearby?lat=10&lon=2.35&radius_km=50&limit=2&cursor=\(cursor)", token: token)
            #expect(misuse.status == .unprocessableContent)
            #expect(try misuse.errorFields["cursor"] != nil)
        }
    }

    @Test("cancelled and finished events leave search at once", arguments: engines)
    func cancelledDisappear(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (token, _) = try await api.register("Host")
            let keep = try await api.createEvent(token, title: "Keep", startsIn: 7_200, now: clock.now()).id
            let drop = try await api.createEvent(token, title: "Drop", startsIn: 7_200, now: clock.now()).id
            let short = try await api.createEvent(token, title: "Short", startsIn: 60, duration: 600, now: clock.now()).id
            let path = "/v1/events/nearby?lat=48.8566&lon=2.3522&radius_km=1"
            #expect(Set(try await api.page(API.Event.self, path, token: token).items.map(\.id)) == [keep, drop, short])
            #expect(try await api.delete("/v1/events/\(drop)", token: token).status == .noContent)
            #expect(Set(try await api.page(API.Event.self, path, token: token).items.map(\.id)) == [keep, short])
            clock.advance(by: 700)
            #expect(try await api.page(API.Event.self, path, token: token).items.map(\.id) == [keep])
            #expect(services.eventIndex.sweep(now: clock.now()) == 1)
            #expect(services.eventIndex.grid.count == 1)
            // Moving an event moves it in search.
            _ = try await api.patch("/v1/events/\(keep)", token: token, json: ["location": ["lat": 40.4168, "lon": -3.7038]])
            #expect(try await api.page(API.Event.self, path, token: token).items.isEmpty)
            #expect(
                try await api.page(API.Event.self, "/v1/events/nearby?lat=40.4168&lon=-3.7038&radius_km=1", token: token).items.count == 1)
        }
    }

    @Test("map boxes, across the antimeridian too", arguments: engines)
    func inBox(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (token, _) = try await api.register("Mapper")
            var rng = TestRandom(seed: 7)
            let events = try await seedEvents(api, token: token, count: 100, clock: clock, rng: &rng)
            let boxes: [(Double, Double, Double, Double)] = [
                (48.6, 2.0, 49.1, 2.7), (-16.8, 179.7, -16.2, -179.7), (-17, 179.9, -16, 180), (77, 10, 80, 20), (-90, -180, 90, 180),
            ]
            for (minLat, minLon, maxLat, maxLon) in boxes {
                let got = try await api.allPages(
                    API.Event.self, "/v1/events/in-box?min_lat=\(minLat)&min_lon=\(minLon)&max_lat=\(maxLat)&max_lon=\(maxLon)&limit=9",
                    token: token)
                let box = try #require(GeoBox(minLatitude: minLat, minLongitude: minLon, maxLatitude: maxLat, maxLongitude: maxLon))
                let want = events.filter { box.contains(GeoPoint(latitude: $0.lat, longitude: $0.lon)!) }.map(\.id)
                #expect(Set(got.map(\.id)) == Set(want))
                #expect(got.count == want.count)
            }
            #expect(
                try await api.get("/v1/events/in-box?min_lat=10&min_lon=0&max_lat=5&max_lon=1", token: token).status
                    == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lat=10&lon=0&radius_km=101", token: token).status == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lat=abc&lon=0", token: token).status == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lon=0", token: token).status == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lat=0&lon=0&sport=quidditch", token: token).status == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lat=0&lon=0&limit=101", token: token).status == .unprocessableContent)
            #expect(try await api.get("/v1/events/nearby?lat=0&lon=0&starts_after=monday", token: token).status == .unprocessableContent)
        }
    }

    @Test("an index warmed from the database pages before its cards are cached, and keeps what it reads", arguments: engines)
    func warmThenCards(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (token, userID) = try await api.register("Starter")
            var ids: [String] = []
            for i in 0..<12 {
                ids.append(
                    try await api.createEvent(
                        token, title: "E\(i)", lat: 48.85 + Double(i) * 0.001, lon: 2.35, startsIn: 3_600, now: clock.now()
                    ).id)
            }
            #expect(try await api.delete("/v1/events/\(ids[0])", token: token).status == .noContent)
            let uuids = ids.map { UUID(uuidString: $0)! }

            // A second index on the same data, as an instance starting now would build it.
            let fresh = EventIndex(
                cellSize: services.configuration.geoCellSize, sports: services.sports,
                encodeCard: EventJSON.cardEncoder(sports: services.sports, links: services.mediaLinks))
            try await services.sync.warm(fresh)
            #expect(fresh.grid.count == 11)
            let before = fresh.cards(uuids, now: clock.now())
            #expect(before.json.allSatisfy { $0 == nil })
            #expect(before.unloaded == Array(1..<12), "all live but the cancelled first, none cached")

            // Changed after the warm-up, and this index not told: a page shows the row it reads.
            #expect(try await api.patch("/v1/events/\(ids[5])", token: token, json: ["title": "Renamed"]).status == .ok)
            let search = EventSearch(
                database: services.database, store: services.eventStore, index: fresh, attendance: services.attendanceCache,
                access: services.eventAccess, groups: services.groupStore, blocks: services.eventSearch.blocks, sports: services.sports,
                clock: clock)
            func page() async throws -> [API.Event] {
                let bytes = EventJSON.nearby(
                    try await search.page(
                        in: .radius(center: GeoPoint(latitude: 48.85, longitude: 2.35)!, metres: 5_000), filters: .init(),
                        limit: 50, cursor: nil, for: UUID(uuidString: userID)!))
                return try API.decoder.decode(API.Page<API.Event>.self, from: Data(bytes.readableBytesView)).items
            }
            let served = try await api.page(API.Event.self, "/v1/events/nearby?lat=48.85&lon=2.35&radius_km=5&limit=50", token: token).items
            let lazy = try await page()
            #expect(lazy.map(\.id) == Array(ids.dropFirst()))
            #expect(lazy.map(\.id) == served.map(\.id))
            #expect(lazy.map(\.title) == served.map(\.title))
            #expect(lazy.first { $0.id == ids[5] }?.title == "Renamed")
            // What the page read is kept, at the version it read.
            let kept = fresh.cards(uuids, now: clock.now())
            #expect(kept.unloaded.isEmpty)
            #expect(kept.json.dropFirst().allSatisfy { $0 != nil } && kept.json[0] == nil)

            // Filling every card agrees with the lazy reads.
            let other = EventIndex(
                cellSize: services.configuration.geoCellSize, sports: services.sports,
                encodeCard: EventJSON.cardEncoder(sports: services.sports, links: services.mediaLinks))
            try await services.sync.warm(other)
            #expect(!other.hasAllCards)
            try await services.sync.fillCards(other)
            #expect(other.hasAllCards)
            let filled = other.cards(uuids, now: clock.now())
            #expect(filled.unloaded.isEmpty)
            #expect(filled.json == kept.json, "filled cards equal the ones read lazily")
        }
    }

    @Test("a start-up bulk read may outlast the request timeout; a request may not", arguments: engines)
    func bulkReadTimeout(engine: DatabaseEngine) async throws {
        // A request timeout far below what the slow statement takes (SQLite: about half a
        // second on a 2.1 GHz core, ten times the timeout).
        try await withEmptyDatabase(engine, timeout: 0.05) { database in
            let slow: SQLQueryString =
                engine == .sqlite
                ? "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) AS n FROM c"
                : "SELECT count(*) AS n FROM (SELECT pg_sleep(1)) AS s"
            await #expect(throws: DatabaseUnavailable.self) {
                _ = try await database.read { sql in try await sql.raw(slow).first() }
            }
            // A longer bound than the start-up reads' 30 s (``Database/bulkReadTimeout``): beside
            // every other test on a 2.1 GHz two-core Xeon, the answer of this half-second
            // statement came back past 30 s (most likely the threads that resume it busy with
            // other tests).
            let rows = try await database.read(timeout: .seconds(300)) { sql in try await sql.raw(slow).first()?.value("n", as: Int.self) }
            #expect(rows == (engine == .sqlite ? 1_000_000 : 1))
        }
    }

    @Test(
        "UUID columns and comma-separated lists of them parse as Foundation parses them, malformed text is refused, and spatial keys keep the bytes and their order"
    )
    func uuidText() {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.uuidString.lowercased()) == id)
            #expect(UUID(geoKey: id.geoKey) == id)
        }
        // A spatial key orders as the UUID's bytes do (and as the databases order ids).
        let ordered = (0..<200).map { _ in UUID() }.sorted { $0.uuidString < $1.uuidString }
        #expect(ordered.map(\.geoKey) == ordered.map(\.geoKey).sorted())
        #expect(
            UUID(uuidString: "01020304-0506-0708-090A-0B0C0D0E0F10")!.geoKey
                == GeoKey(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10))
        let good = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        for bad in [
            "", String(good.dropLast()), good + "0", good.replacingOccurrences(of: "-", with: "_"), "3F2504E0-4F89-11D3-9A0C-0305E82C330G",
            "3F2504E04-F89-11D3-9A0C-0305E82C3301", "3F2504E0-4F89-11D3-9A0C-0305E82C33\u{e9}",
        ] {
            #expect(UUID(text: bad) == nil, "\(bad)")
            #expect(UUID(uuidString: bad) == nil, "\(bad)")
        }
        // A list as PostgreSQL's string_agg writes it (a poll's voters): read in order, what is no id skipped.
        let ids = (0..<1_000).map { _ in UUID() }
        #expect(UUID.list(commaSeparated: ids.map(\.lowercased).joined(separator: ",")) == ids)
        #expect(UUID.list(commaSeparated: ids.prefix(3).map(\.uuidString).joined(separator: ",")) == Array(ids.prefix(3)))
        #expect(UUID.list(commaSeparated: "").isEmpty)
        #expect(UUID.list(commaSeparated: ids[0].lowercased) == [ids[0]])
        let mixed = "\(ids[0].lowercased),,x,\(String(good.dropLast())),\(ids[1].uuidString),"
        #expect(UUID.list(commaSeparated: mixed) == [ids[0], ids[1]])
        // As Foundation reads the same pieces (split leaves the empty ones out).
        #expect(UUID.list(commaSeparated: mixed) == mixed.split(separator: ",").compactMap { UUID(uuidString: String($0)) })
    }

    @Test("after its listener lost the connection, an instance re-reads what changed meanwhile")
    func resyncAfterReconnect() async throws {
        TestCounter.record(.postgres)
        try await withApp(.postgres, clock: ManualClock(Date().wholeMilliseconds)) { api, services in
            try await eventually("the bus listener") { services.bus.isListening }
            let (token, _) = try await api.register("Quiet")
            let id = try await api.createEvent(token, title: "Before", lat: 1.3521, lon: 103.8198, now: services.clock.now()).id
            let path = "/v1/events/nearby?lat=1.3521&lon=103.8198&radius_km=1"
            // A change no notification announces (as if made while this instance was not listening).
            try await services.database.transaction { sql in
                try await sql.raw(
                    "UPDATE events SET title = 'After', version = version + 1, updated_at = \(bind: services.clock.now()) WHERE id = \(bind: UUID(uuidString: id)!)"
                ).run()
            }
            #expect(try await api.page(API.Event.self, path, token: token).items.first?.title == "Before")
            // Every connection to the database dropped, the listener's among them.
            try await services.database.read { sql in
                _ = try await sql.raw(
                    """
                    SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                    """
                ).all()
            }
            try await eventually("the re-read title") {
                // Answers fail while the connections come back: those polls just do not count.
                (try? await api.page(API.Event.self, path, token: token).items.first?.title) == "After"
            }
        }
    }

    @Test("an event created on one instance appears in another's search")
    func twoInstances() async throws {
        try await withTwoInstances(firstSetup: .router) { a, b, _, _ in
            let (token, _) = try await a.register("Twin")
            let id = try await a.createEvent(token, lat: 35.6762, lon: 139.6503, now: Date()).id
            try await eventually("the second instance to see the event") {
                try await b.page(API.Event.self, "/v1/events/nearby?lat=35.6762&lon=139.6503&radius_km=1", token: token).items.contains {
                    $0.id == id
                }
            }
            _ = try await a.delete("/v1/events/\(id)", token: token)
            try await eventually("the second instance to drop the cancelled event") {
                try await b.page(API.Event.self, "/v1/events/nearby?lat=35.6762&lon=139.6503&radius_km=1", token: token).items.isEmpty
            }
        }
    }
}

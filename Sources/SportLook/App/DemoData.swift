import Foundation
import HummingbirdBcrypt
import SQLKit

/// Fifty real city centres, for demo data and benchmarks.
public enum WorldCities {
    /// (name, latitude, longitude).
    public static let all: [(name: String, lat: Double, lon: Double)] = [
        ("Paris", 48.8566, 2.3522), ("London", 51.5074, -0.1278), ("Berlin", 52.52, 13.405), ("Madrid", 40.4168, -3.7038),
        ("Rome", 41.9028, 12.4964), ("Amsterdam", 52.3676, 4.9041), ("Stockholm", 59.3293, 18.0686), ("Warsaw", 52.2297, 21.0122),
        ("Istanbul", 41.0082, 28.9784), ("Moscow", 55.7558, 37.6173), ("Cairo", 30.0444, 31.2357), ("Lagos", 6.5244, 3.3792),
        ("Nairobi", -1.2921, 36.8219), ("Johannesburg", -26.2041, 28.0473), ("Cape Town", -33.9249, 18.4241), ("Dubai", 25.2048, 55.2708),
        ("Mumbai", 19.076, 72.8777), ("Delhi", 28.7041, 77.1025), ("Bangalore", 12.9716, 77.5946), ("Bangkok", 13.7563, 100.5018),
        ("Singapore", 1.3521, 103.8198), ("Jakarta", -6.2088, 106.8456), ("Manila", 14.5995, 120.9842), ("Hong Kong", 22.3193, 114.1694),
        ("Shanghai", 31.2304, 121.4737), ("Beijing", 39.9042, 116.4074), ("Seoul", 37.5665, 126.978), ("Tokyo", 35.6762, 139.6503),
        ("Osaka", 34.6937, 135.5023), ("Sydney", -33.8688, 151.2093), ("Melbourne", -37.8136, 144.9631), ("Auckland", -36.8485, 174.7633),
        ("Suva", -18.1248, 178.4501), ("Honolulu", 21.3069, -157.8583), ("Anchorage", 61.2181, -149.9003),
        ("Vancouver", 49.2827, -123.1207),
        ("San Francisco", 37.7749, -122.4194), ("Los Angeles", 34.0522, -118.2437), ("Mexico City", 19.4326, -99.1332),
        ("Chicago", 41.8781, -87.6298),
        ("Toronto", 43.6532, -79.3832), ("New York", 40.7128, -74.006), ("Miami", 25.7617, -80.1918), ("Bogotá", 4.711, -74.0721),
        ("Lima", -12.0464, -77.0428), ("Santiago", -33.4489, -70.6693), ("Buenos Aires", -34.6037, -58.3816),
        ("São Paulo", -23.5505, -46.6333),
        ("Reykjavík", 64.1466, -21.9426), ("Tromsø", 69.6492, 18.9553),
    ]

    /// `count` city centres: the real ones first, then made-up ones spread over the
    /// inhabited latitudes (the same every time), for data sets with more cities.
    public static func centres(_ count: Int) -> [(lat: Double, lon: Double)] {
        var out = all.prefix(count).map { (lat: $0.lat, lon: $0.lon) }
        var rng = DemoRandom(seed: 0x5EED_C171)
        while out.count < count {
            out.append((lat: Double.random(in: -50...65, using: &rng), lon: Double.random(in: -180..<180, using: &rng)))
        }
        return out
    }
}

/// A seeded generator (SplitMix64): the same seed makes the same data.
public struct DemoRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal deviate (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// A point scattered around a city (σ ≈ 15 km): one of the 50 real ones, or of `cities`.
    public mutating func nearCity(among cities: [(lat: Double, lon: Double)]? = nil) -> (lat: Double, lon: Double) {
        let city: (lat: Double, lon: Double)
        if let cities {
            city = cities[Int.random(in: 0..<cities.count, using: &self)]
        } else {
            let real = WorldCities.all[Int.random(in: 0..<WorldCities.all.count, using: &self)]
            city = (real.lat, real.lon)
        }
        let sigma = 15_000 / 111_195.0
        let lat = min(89.9, max(-89.9, city.lat + normal() * sigma))
        var lon = city.lon + normal() * sigma / max(0.05, cos(city.lat * .pi / 180))
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return (lat, lon)
    }
}

/// What `sportlook seed --demo` made.
public struct DemoReport: Sendable {
    public var users: Int
    public var events: Int
    public var groups: Int = 0
    /// Of the events, those that are a group's members-only games.
    public var membersOnly: Int = 0
    public var seconds: Double
}

/// A deterministic demo data set, written in bulk (multi-row inserts of 500 rows).
///
/// Every demo account's password is `sportlook-demo`.
struct DemoSeeder: Sendable {
    let database: Database
    let sports: SportCatalog
    static let password = "sportlook-demo"
    static let batch = 500

    static let firstNames = [
        "Ana", "Ben", "Chloé", "Dev", "Emma", "Femi", "Gus", "Hana", "Ivan", "Jun", "Kai", "Lea", "Mo", "Nia", "Omar", "Pia", "Quinn",
        "Rosa", "Sam", "Tomás", "Uma", "Vik", "Wen", "Xavi", "Yara", "Zoe",
    ]
    static let titles = [
        "Morning session", "After-work game", "Sunday meetup", "Beginners welcome", "Weekly match", "Training run", "Friendly game",
        "Tournament practice",
    ]

    /// With `groups`, public listed groups near the cities, each with 5 to 50 members;
    /// `membersOnly` of the events are then members-only games of a random group, organised
    /// by its owner near its home.
    func run(
        users: Int, events: Int, cities: Int = WorldCities.all.count, groups: Int = 0, membersOnly: Double = 0, seed: UInt64,
        progress: @Sendable (Int, Int, String) -> Void
    ) async throws -> DemoReport {
        let centres = WorldCities.centres(cities)
        let started = Date()
        var rng = DemoRandom(seed: seed)
        let hash = Bcrypt.hash(Self.password, cost: 4)
        let now = Date().wholeMilliseconds
        let catalogue = sports.all.map(\.slug)
        var userIDs: [UUID] = []
        userIDs.reserveCapacity(users)
        // Users, a batch per statement and a transaction per batch.
        for start in stride(from: 0, to: users, by: Self.batch) {
            let count = min(Self.batch, users - start)
            var rows: [[any Encodable & Sendable]] = []
            var favourites: [(UUID, String)] = []
            for i in start..<(start + count) {
                let id = UUID(uuid: Self.uuidBytes(&rng))
                userIDs.append(id)
                let email = "demo-\(seed)-\(i)@sportlook.demo"
                let name =
                    Self.firstNames[Int.random(in: 0..<Self.firstNames.count, using: &rng)] + " "
                    + String(UnicodeScalar(UInt8(65 + Int.random(in: 0..<26, using: &rng))))
                let place = rng.nearCity()
                let snapped = Coordinate(lat: place.lat, lon: place.lon).snappedForPrivacy
                let discoverable = Double.random(in: 0..<1, using: &rng) < 0.6
                rows.append([id, email, email, name, hash, "", discoverable, snapped.lat, snapped.lon, Int64(1), now, now])
                for slug in Set(
                    (0..<Int.random(in: 1...4, using: &rng)).map { _ in catalogue[Int.random(in: 0..<catalogue.count, using: &rng)] })
                {
                    favourites.append((id, slug))
                }
            }
            try await database.transaction { [rows, favourites] sql in
                try await Self.insert(
                    into: "users",
                    columns: [
                        "id", "email", "email_normalized", "name", "password_hash", "bio", "discoverable", "lat", "lon", "version",
                        "created_at", "updated_at",
                    ], rows: rows, on: sql)
                for part in favourites.chunks(of: Self.batch) {
                    try await Self.insert(
                        into: "user_sports", columns: ["user_id", "sport_slug"], rows: part.map { [$0.0, $0.1] }, on: sql)
                }
            }
            progress(start + count, users, "users")
        }
        guard !userIDs.isEmpty else { return DemoReport(users: 0, events: 0, seconds: 0) }
        // Groups: (id, owner, home) of each, for the members-only games.
        var groupList: [(id: UUID, owner: UUID, lat: Double, lon: Double)] = []
        for start in stride(from: 0, to: groups, by: Self.batch) {
            let count = min(Self.batch, groups - start)
            var rows: [[any Encodable & Sendable]] = []
            var members: [[any Encodable & Sendable]] = []
            var kinds: [[any Encodable & Sendable]] = []
            var rooms: [[any Encodable & Sendable]] = []
            for i in start..<(start + count) {
                let id = UUID(uuid: Self.uuidBytes(&rng))
                let home = rng.nearCity(among: centres)
                let snapped = Coordinate(lat: home.lat, lon: home.lon).snappedForPrivacy
                let people = Array(
                    Set((0..<Int.random(in: 5...50, using: &rng)).map { _ in userIDs[Int.random(in: 0..<userIDs.count, using: &rng)] }))
                let owner = people[0]
                groupList.append((id, owner, home.lat, home.lon))
                let sport = catalogue[Int.random(in: 0..<catalogue.count, using: &rng)]
                rows.append([
                    id, "Demo club \(i)", "Demo group, seed \(seed).", snapped.lat, snapped.lon, "public", "listed", owner,
                    Int64(people.count), "active", Int64(1), now, now,
                ])
                for (n, person) in people.enumerated() { members.append([id, person, n == 0 ? "owner" : "member", now]) }
                kinds.append([id, sport])
                rooms.append([id, "group", id, now, now])
            }
            try await database.transaction { [rows, members, kinds, rooms] sql in
                try await Self.insert(
                    into: "sport_groups",
                    columns: [
                        "id", "name", "description", "lat", "lon", "policy", "visibility", "owner_id", "member_count",
                        "status", "version", "created_at", "updated_at",
                    ], rows: rows, on: sql)
                for chunk in members.chunks(of: Self.batch) {
                    try await Self.insert(
                        into: "group_members", columns: ["group_id", "user_id", "role", "joined_at"], rows: Array(chunk), on: sql)
                }
                try await Self.insert(into: "group_sports", columns: ["group_id", "sport_slug"], rows: kinds, on: sql)
                try await Self.insert(
                    into: "rooms", columns: ["id", "kind", "group_id", "last_activity_at", "created_at"], rows: rooms, on: sql)
            }
            progress(start + count, groups, "groups")
        }
        var restricted = 0
        for start in stride(from: 0, to: events, by: Self.batch) {
            let count = min(Self.batch, events - start)
            var rows: [[any Encodable & Sendable]] = []
            var organisers: [[any Encodable & Sendable]] = []
            var rooms: [[any Encodable & Sendable]] = []
            for _ in 0..<count {
                let id = UUID(uuid: Self.uuidBytes(&rng))
                var organiser = userIDs[Int.random(in: 0..<userIDs.count, using: &rng)]
                let sport = catalogue[
                    min(catalogue.count - 1, Int(Double(catalogue.count) * pow(Double.random(in: 0..<1, using: &rng), 2)))]
                var place = rng.nearCity(among: centres)
                // A members-only game: its group's owner organises it, within a few kilometres of the group's home.
                var group: UUID?
                if membersOnly > 0, !groupList.isEmpty, Double.random(in: 0..<1, using: &rng) < membersOnly {
                    let chosen = groupList[Int.random(in: 0..<groupList.count, using: &rng)]
                    group = chosen.id
                    organiser = chosen.owner
                    place = (
                        min(89.9, max(-89.9, chosen.lat + Double.random(in: -0.03...0.03, using: &rng))),
                        max(-180, min(180, chosen.lon + Double.random(in: -0.03...0.03, using: &rng)))
                    )
                    restricted += 1
                }
                // Quarter-hour starts over the next four weeks, one to three hours long.
                let starts = Date(
                    timeIntervalSince1970: ((now.timeIntervalSince1970 + Double.random(in: 3_600...(28 * 86_400), using: &rng)) / 900)
                        .rounded(.down) * 900)
                let ends = starts.addingTimeInterval(Double(Int.random(in: 2...6, using: &rng)) * 1_800)
                let capacity: Int? = Double.random(in: 0..<1, using: &rng) < 0.3 ? nil : Int.random(in: 6...40, using: &rng)
                let title = "\(Self.titles[Int.random(in: 0..<Self.titles.count, using: &rng)]): \(sports[sport]?.name ?? sport)"
                // Half the games name a level range (two to six half steps wide); most are
                // for anyone, some for women, men or mixed teams.
                var levels: (Int64?, Int64?) = (nil, nil)
                if Bool.random(using: &rng) {
                    let low = Int64.random(in: 0...10, using: &rng)
                    levels = (low, min(14, low + Int64.random(in: 2...6, using: &rng)))
                }
                let draw = Double.random(in: 0..<1, using: &rng)
                let audience = draw < 0.7 ? "anyone" : draw < 0.82 ? "mixed" : draw < 0.92 ? "women" : "men"
                rows.append([
                    id, organiser, sport, title, "Demo event, seed \(seed).", place.lat, place.lon, starts, ends, capacity, "active",
                    Int64(0), Int64(0), Int64(0), Int64(1), now, now, levels.0, levels.1, audience, group, group != nil,
                ])
                organisers.append([id, organiser, "going", now])
                rooms.append([id, "event", id, now, now])
            }
            try await database.transaction { [rows, organisers, rooms] sql in
                try await Self.insert(
                    into: "events",
                    columns: [
                        "id", "organiser_id", "sport_slug", "title", "description", "lat", "lon", "starts_at", "ends_at",
                        "capacity", "status", "going_count", "waitlist_count", "waitlist_counter", "version", "created_at", "updated_at",
                        "level_min_half", "level_max_half", "audience", "group_id", "members_only",
                    ], rows: rows, on: sql)
                try await Self.insert(
                    into: "attendances", columns: ["event_id", "user_id", "status", "joined_at"], rows: organisers, on: sql)
                try await Self.insert(
                    into: "rooms", columns: ["id", "kind", "event_id", "last_activity_at", "created_at"], rows: rooms, on: sql)
            }
            progress(start + count, events, "events")
        }
        try await database.vacuumAfterBulkLoad(["users", "user_sports", "events", "attendances", "rooms", "sport_groups", "group_members"])
        return DemoReport(users: users, events: events, groups: groups, membersOnly: restricted, seconds: Date().timeIntervalSince(started))
    }

    static func uuidBytes(_ rng: inout DemoRandom) -> uuid_t {
        var a = rng.next()
        var b = rng.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a)
            a >>= 8
            bytes[8 + i] = UInt8(truncatingIfNeeded: b)
            b >>= 8
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
            bytes[12], bytes[13], bytes[14], bytes[15]
        )
    }

    /// One multi-row INSERT.
    static func insert(into table: String, columns: [String], rows: [[any Encodable & Sendable]], on sql: any SQLDatabase) async throws {
        guard !rows.isEmpty else { return }
        try await sql.raw("INSERT INTO \(unsafeRaw: table) (\(unsafeRaw: columns.joined(separator: ", "))) VALUES \(BindRows(rows: rows))")
            .run()
    }
}

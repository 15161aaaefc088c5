import ArgumentParser
import Foundation
import GeoGrid
import Logging
import NIOCore
import PostgresNIO
import SportLook
import Synchronization

/// GeoGrid against PostGIS, Redis GEOSEARCH and brute force, on the same data, in one run.
struct GeoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo", abstract: "Radius search: GeoGrid vs PostGIS vs Redis vs brute force.")

    @Option(help: "Points to generate.") var points = 1_000_000
    @Option(help: "Query centres to generate.") var queries = 2_000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Points from a CSV file of id,lat,lon instead.") var pointsCSV: String?
    @Option(help: "Query centres from a CSV file of lat,lon instead.") var queriesCSV: String?
    @Option(help: "PostgreSQL with PostGIS (postgres://user@host:port/db); skipped when absent.") var postgres: String?
    @Option(help: "Redis port on 127.0.0.1; skipped when absent.") var redisPort: Int?
    @Option(help: "Queries timed per scenario for brute force (it is slow).") var bruteForceQueries = 60
    @Option(help: "GeoGrid cell edge in metres.") var cellSize: Double = 1_250
    @Option(help: "Seconds of the updates-while-querying run.") var mixedSeconds: Double = 5
    @Option(
        help:
            "Timed passes over the query centres per GeoGrid scenario, after one untimed pass, the scenarios taking turns: a pass of the small ones lasts milliseconds."
    ) var rounds = 5

    struct Point {
        var id: Int
        var lat: Double
        var lon: Double
    }

    static let radii: [Double] = [1_000, 5_000, 25_000]

    func run() async throws {
        var log: [String] = []
        func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            log.append(line)
        }
        let (data, centres) = try loadData()
        say("data: \(data.count) points, \(centres.count) query centres (seed \(seed))")

        // GeoGrid
        let entries = data.map { GeoEntry(key: GeoKey($0.id), point: GeoPoint(latitude: $0.lat, longitude: $0.lon)!) }
        let buildStart = ContinuousClock.now
        let grid = GeoGrid(cellSize: cellSize, entries: entries)
        let buildTime = seconds(ContinuousClock.now - buildStart)
        let stats = grid.statistics
        say("GeoGrid build: \(String(format: "%.2f", buildTime)) s; \(stats)")
        var rows: [Row] = []
        let geoCentres = centres.map { GeoPoint(latitude: $0.lat, longitude: $0.lon)! }
        // Rounds interleave the scenarios, so that a slow moment of the machine
        // falls on all of them rather than on one.
        struct Scenario {
            var radius: Double
            var limit: Int
            var samples = Samples()
            var results = 0, candidates = 0, steps = 0, cells = 0
        }
        var scenarios = Self.radii.flatMap { radius in [Int.max, 50].map { Scenario(radius: radius, limit: $0) } }
        for scenario in scenarios {
            for centre in geoCentres { _ = grid.search(within: scenario.radius, of: centre, limit: scenario.limit) }
        }
        for _ in 0..<max(1, rounds) {
            for i in scenarios.indices {
                let radius = scenarios[i].radius
                let limit = scenarios[i].limit
                for centre in geoCentres {
                    let start = ContinuousClock.now
                    let (hits, s) = grid.searchWithStatistics(within: radius, of: centre, limit: limit)
                    scenarios[i].samples.add(seconds(ContinuousClock.now - start))
                    scenarios[i].results += hits.count
                    scenarios[i].candidates += s.candidates
                    scenarios[i].steps += s.steps
                    scenarios[i].cells += s.cells
                }
            }
        }
        for scenario in scenarios {
            let queries = Double(scenario.samples.count)
            rows.append(
                Row(
                    engine: "GeoGrid", radius: scenario.radius, nearest: scenario.limit != .max, samples: scenario.samples,
                    meanResults: Double(scenario.results) / queries,
                    note: String(
                        format: "%.2f candidates/result, %.1f cells and %.1f steps/query",
                        Double(scenario.candidates) / Double(max(1, scenario.results)), Double(scenario.cells) / queries,
                        Double(scenario.steps) / queries)))
        }
        let mixed = try await updatesWhileQuerying(grid: grid, entries: entries, centres: geoCentres)
        say(
            String(
                format: "GeoGrid updates while querying: %.0f updates/s with %.0f queries/s (nearest 50 within 5 km) on the other threads",
                mixed.updates, mixed.queries))

        // Brute force
        let someCentres = Array(geoCentres.prefix(bruteForceQueries))
        let allPoints = entries.map(\.point)
        for radius in Self.radii {
            for nearest in [false, true] {
                var samples = Samples()
                var results = 0
                for centre in someCentres {
                    let start = ContinuousClock.now
                    var found: [(Double, Int)] = []
                    for (i, p) in allPoints.enumerated() {
                        let d = GeoMath.distance(centre, p)
                        if d <= radius { found.append((d, i)) }
                    }
                    found.sort { $0 < $1 }
                    results += nearest ? min(50, found.count) : found.count
                    samples.add(seconds(ContinuousClock.now - start))
                }
                rows.append(
                    Row(
                        engine: "brute force", radius: radius, nearest: nearest, samples: samples,
                        meanResults: Double(results) / Double(someCentres.count), note: "\(someCentres.count) queries"))
            }
        }

        // PostGIS
        if let postgres {
            rows += try await PostGIS.run(url: postgres, data: data, centres: centres, say: say)
        }
        // Redis
        if let redisPort {
            rows += try Redis.run(port: redisPort, data: data, centres: centres, say: say)
        }

        say("")
        say("| engine | query | radius | p50 | p99 | queries/s | mean results | notes |")
        say("|---|---|---:|---:|---:|---:|---:|---|")
        for row in rows {
            say(
                "| \(row.engine) | \(row.nearest ? "nearest 50" : "all within R") | \(Int(row.radius / 1000)) km | \(formatLatency(row.samples.percentile(50))) | \(formatLatency(row.samples.percentile(99))) | \(formatRate(Double(row.samples.count) / max(1e-9, row.samples.total))) | \(String(format: "%.1f", row.meanResults)) | \(row.note) |"
            )
        }
        say("")
        say("Goals, from the figures above (ratios of mean time per query):")
        for radius in Self.radii {
            let mine = rows.first { $0.engine == "GeoGrid" && $0.radius == radius && !$0.nearest }!.samples.mean
            if let pg = rows.first(where: { $0.engine == "PostGIS" && $0.radius == radius && !$0.nearest }) {
                say(
                    String(
                        format: "- all within %d km: GeoGrid is %.0f× faster than PostGIS (goal ≥ 40×)", Int(radius / 1000),
                        pg.samples.mean / mine))
            }
            if let redis = rows.first(where: { $0.engine == "Redis" && $0.radius == radius && !$0.nearest }) {
                say(
                    String(
                        format:
                            "- all within %d km: GeoGrid is %.1f× faster than Redis end to end (goal ≥ 10×) and %.1f× faster than Redis's server-side time (goal ≥ 5×)",
                        Int(radius / 1000), redis.samples.mean / mine, (redis.serverMicros ?? 0) * 1e-6 / mine))
            }
        }
        let near1 = rows.first { $0.engine == "GeoGrid" && $0.radius == 1_000 && $0.nearest }!.samples.mean
        let near25 = rows.first { $0.engine == "GeoGrid" && $0.radius == 25_000 && $0.nearest }!.samples.mean
        say(String(format: "- nearest 50 at 25 km costs %.2f× nearest 50 at 1 km (goal ≤ 3×)", near25 / near1))
        let at5 = rows.first { $0.engine == "GeoGrid" && $0.radius == 5_000 && !$0.nearest }!
        say("- candidates examined per result at 5 km: \(at5.note.split(separator: ",")[0]) (goal ≤ 3)")
        say(String(format: "- bytes per entry at %d entries: %.1f (goal ≤ 64)", stats.entries, stats.bytesPerEntry))
        if let out = ProcessInfo.processInfo.environment["GEO_BENCH_OUT"] {
            try log.joined(separator: "\n").write(toFile: out, atomically: true, encoding: .utf8)
        }
    }

    struct Row {
        var engine: String
        var radius: Double
        var nearest: Bool
        var samples: Samples
        var meanResults: Double
        var note: String
        var serverMicros: Double?
    }

    /// The data set of the issue: 80% around 50 cities (σ ≈ 15 km), 20% uniform over
    /// latitudes −60…70, with some at the antimeridian and at latitude 69.
    func loadData() throws -> ([Point], [(lat: Double, lon: Double)]) {
        var rng = DemoRandom(seed: seed)
        func mixPoint() -> (Double, Double) {
            let r = Double.random(in: 0..<1, using: &rng)
            if r < 0.80 {
                let p = rng.nearCity()
                return (p.lat, p.lon)
            }
            if r < 0.99 {
                let lat = asin(Double.random(in: sin(-60 * .pi / 180)...sin(70 * .pi / 180), using: &rng)) * 180 / .pi
                return (lat, Double.random(in: -180...180, using: &rng))
            }
            if r < 0.995 {
                var lon = 180 + rng.normal() * 0.2
                if lon > 180 { lon -= 360 }
                return (Double.random(in: -50...60, using: &rng), lon)
            }
            return (69 + rng.normal() * 0.05, Double.random(in: -180...180, using: &rng))
        }
        var data: [Point] = []
        if let pointsCSV {
            for line in try String(contentsOfFile: pointsCSV, encoding: .utf8).split(separator: "\n") {
                let f = line.split(separator: ",")
                if f.count >= 3, let id = Int(f[0]), let lat = Double(f[1]), let lon = Double(f[2]) {
                    data.append(Point(id: id, lat: lat, lon: lon))
                }
            }
        } else {
            data = (0..<points).map { i in
                let (lat, lon) = mixPoint()
                return Point(id: i, lat: lat, lon: lon)
            }
        }
        var centres: [(lat: Double, lon: Double)] = []
        if let queriesCSV {
            for line in try String(contentsOfFile: queriesCSV, encoding: .utf8).split(separator: "\n") {
                let f = line.split(separator: ",")
                if f.count >= 2, let lat = Double(f[0]), let lon = Double(f[1]) { centres.append((lat, lon)) }
            }
        } else {
            centres = (0..<queries).map { _ in mixPoint() }
        }
        return (data, centres)
    }

    /// Moves random entries as fast as one thread can while another queries. Both
    /// loops watch a deadline themselves: they never yield, so nothing else may be
    /// relied on to stop them.
    func updatesWhileQuerying(grid: GeoGrid, entries: [GeoEntry], centres: [GeoPoint]) async throws -> (updates: Double, queries: Double) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(mixedSeconds * 1000))
        async let updates: Int = Task.detached {
            var rng = DemoRandom(seed: 7)
            var n = 0
            while ContinuousClock.now < deadline {
                var entry = entries[Int.random(in: 0..<entries.count, using: &rng)]
                let lat = min(89, max(-89, entry.point.latitude + Double.random(in: -0.01...0.01, using: &rng)))
                entry.point = GeoPoint(latitude: lat, longitude: entry.point.longitude)!
                grid.upsert(entry)
                n += 1
            }
            return n
        }.value
        async let queries: Int = Task.detached {
            var n = 0
            while ContinuousClock.now < deadline {
                _ = grid.search(within: 5_000, of: centres[n % centres.count], limit: 50)
                n += 1
            }
            return n
        }.value
        return (Double(await updates) / mixedSeconds, Double(await queries) / mixedSeconds)
    }
}

extension PostGIS.RadiusStatement {
    func makeBindings() throws -> PostgresBindings {
        var b = PostgresBindings()
        b.append(lon)
        b.append(lat)
        b.append(radius)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}

/// PostGIS: a geography column with a GiST index, `ST_DWithin … ORDER BY g <-> centre`, prepared, one client on loopback.
enum PostGIS {
    /// A radius query on `pts`, all results or the nearest 50.
    protocol RadiusStatement: PostgresPreparedStatement where Row == Int64 {
        var lon: Double { get }
        var lat: Double { get }
        var radius: Double { get }
    }

    static let withinSQL =
        "SELECT id FROM pts WHERE ST_DWithin(g, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3) ORDER BY g <-> ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography"

    struct Within: RadiusStatement {
        static let sql = withinSQL
        var lon: Double, lat: Double, radius: Double
    }

    struct Nearest: RadiusStatement {
        static let sql = withinSQL + " LIMIT 50"
        var lon: Double, lat: Double, radius: Double
    }

    static func run(url: String, data: [GeoBench.Point], centres: [(lat: Double, lon: Double)], say: (String) -> Void) async throws
        -> [GeoBench.Row]
    {
        guard case .postgres(let address) = try DatabaseLocation(parsing: url) else { throw BenchError("not a postgres URL") }
        var logger = Logger(label: "postgis")
        logger.logLevel = .error
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: address.host, port: address.port, username: address.user, password: address.password, database: address.database,
                tls: .disable),
            id: 1, logger: logger
        )
        defer { Task { try? await connection.close() } }
        let started = ContinuousClock.now
        try await connection.query("CREATE EXTENSION IF NOT EXISTS postgis", logger: logger)
        try await connection.query("DROP TABLE IF EXISTS pts", logger: logger)
        try await connection.query("CREATE TABLE pts (id bigint PRIMARY KEY, g geography(Point, 4326) NOT NULL)", logger: logger)
        try await connection.copyFrom(table: "pts", columns: ["id", "g"], logger: logger) { writer in
            var buffer = ByteBuffer()
            for (i, p) in data.enumerated() {
                buffer.writeString("\(p.id)\tSRID=4326;POINT(\(p.lon) \(p.lat))\n")
                if i % 20_000 == 19_999 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        try await connection.query("CREATE INDEX pts_g ON pts USING GIST (g)", logger: logger)
        try await connection.query("ANALYZE pts", logger: logger)
        say("PostGIS load and index: \(String(format: "%.1f", seconds(ContinuousClock.now - started))) s")
        var rows: [GeoBench.Row] = []
        for radius in GeoBench.radii {
            for nearest in [false, true] {
                // Warm the plan cache and the buffers once.
                for centre in centres.prefix(20) {
                    for try await _ in try await connection.execute(
                        Within(lon: centre.lon, lat: centre.lat, radius: radius), logger: logger)
                    {}
                }
                var samples = Samples()
                var results = 0
                for centre in centres {
                    let start = ContinuousClock.now
                    if nearest {
                        for try await _ in try await connection.execute(
                            Nearest(lon: centre.lon, lat: centre.lat, radius: radius), logger: logger)
                        { results += 1 }
                    } else {
                        for try await _ in try await connection.execute(
                            Within(lon: centre.lon, lat: centre.lat, radius: radius), logger: logger)
                        { results += 1 }
                    }
                    samples.add(seconds(ContinuousClock.now - start))
                }
                rows.append(
                    GeoBench.Row(
                        engine: "PostGIS", radius: radius, nearest: nearest, samples: samples,
                        meanResults: Double(results) / Double(centres.count), note: "prepared, 1 client"))
            }
        }
        return rows
    }
}

/// Redis `GEOSEARCH … BYRADIUS … ASC`, one client on loopback; also its server-side time (INFO commandstats).
enum Redis {
    static func run(port: Int, data: [GeoBench.Point], centres: [(lat: Double, lon: Double)], say: (String) -> Void) throws -> [GeoBench
        .Row]
    {
        let redis = try RedisConnection(port: port)
        _ = try redis.command("DEL", "pts")
        let started = ContinuousClock.now
        for chunk in stride(from: 0, to: data.count, by: 10_000) {
            var commands: [[String]] = []
            for start in stride(from: chunk, to: min(data.count, chunk + 10_000), by: 1_000) {
                var command = ["GEOADD", "pts"]
                for p in data[start..<min(data.count, start + 1_000)] {
                    command += [String(p.lon), String(max(-85.05, min(85.05, p.lat))), String(p.id)]
                }
                commands.append(command)
            }
            _ = try redis.pipeline(commands)
        }
        say("Redis load: \(String(format: "%.1f", seconds(ContinuousClock.now - started))) s")
        var rows: [GeoBench.Row] = []
        for radius in GeoBench.radii {
            for nearest in [false, true] {
                _ = try redis.command("CONFIG", "RESETSTAT")
                var samples = Samples()
                var results = 0
                for centre in centres {
                    var command = [
                        "GEOSEARCH", "pts", "FROMLONLAT", String(centre.lon), String(max(-85.05, min(85.05, centre.lat))), "BYRADIUS",
                        String(radius), "m", "ASC",
                    ]
                    if nearest { command += ["COUNT", "50"] }
                    let start = ContinuousClock.now
                    let reply = try redis.pipeline([command])[0]
                    samples.add(seconds(ContinuousClock.now - start))
                    if case .array(let items?) = reply { results += items.count }
                }
                let info = try redis.command("INFO", "commandstats").string ?? ""
                let perCall = info.split(separator: "\r\n").first { $0.hasPrefix("cmdstat_geosearch:") }?
                    .split(separator: ",").first { $0.hasPrefix("usec_per_call=") }?.split(separator: "=").last.flatMap { Double($0) }
                rows.append(
                    GeoBench.Row(
                        engine: "Redis", radius: radius, nearest: nearest, samples: samples,
                        meanResults: Double(results) / Double(centres.count),
                        note: "server side \(perCall.map { String(format: "%.1f µs", $0) } ?? "?")/query", serverMicros: perCall))
            }
        }
        return rows
    }
}

/// A flag one task raises and others read.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

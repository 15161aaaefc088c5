import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import Testing

@testable import SportLook

/// The contract and the configuration: a long migration, the demo data and request limits.
extension ContractTests {
    @Test("a migration longer than DATABASE_TIMEOUT still completes (start-up waits for it)", arguments: engines)
    func slowMigration(engine: DatabaseEngine) async throws {
        // A request may wait 0.2 s here; the migration takes longer (a second on PostgreSQL,
        // five million rows written on SQLite), as rewriting a large table does.
        try await withEmptyDatabase(engine, timeout: 0.2) { database in
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let slow =
                engine == .postgres
                ? "CREATE TABLE slow AS SELECT 1 AS x FROM pg_sleep(1)"
                : "CREATE TABLE slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT x FROM c"
            let migrator = Migrator(
                database: database, migrations: [Migration(version: 1, name: "slow", statements: [slow], checksum: "slow")], logger: logger)
            #expect(try await migrator.migrate() == [1])
            let rows = try await database.read(timeout: .seconds(30)) { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM slow").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == (engine == .postgres ? 1 : 5_000_000))
        }
    }

    @Test("the demo data set is the same for the same seed", arguments: engines)
    func demoSeed(engine: DatabaseEngine) async throws {
        try await withApp(engine) { _, services in
            let seeder = DemoSeeder(database: services.database, sports: services.sports)
            let report = try await seeder.run(users: 30, events: 120, seed: 9) { _, _, _ in }
            #expect(report.events == 120)
            let first: [String] = try await services.database.read { sql in
                try await sql.raw("SELECT title FROM events ORDER BY id").all().map { try $0.value("title") }
            }
            #expect(first.count == 120)
            try await withApp(engine) { _, other in
                _ = try await DemoSeeder(database: other.database, sports: other.sports).run(users: 30, events: 120, seed: 9) { _, _, _ in }
                let second: [String] = try await other.database.read { sql in
                    try await sql.raw("SELECT title FROM events ORDER BY id").all().map { try $0.value("title") }
                }
                #expect(first == second)
            }
        }
    }

    @Test("the demo data set can hold groups and their members-only games, as the application makes them", arguments: engines)
    func demoGroups(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let report = try await DemoSeeder(database: services.database, sports: services.sports).run(
                users: 60, events: 400, groups: 12, membersOnly: 0.25, seed: 3
            ) { _, _, _ in }
            #expect(report.groups == 12 && report.membersOnly > 50 && report.membersOnly < 150)
            let (restricted, byOwners, rooms, owners) = try await services.database.read { sql in
                let restricted =
                    try await sql.raw("SELECT COUNT(*) AS n FROM events WHERE members_only = \(bind: true)").first()?.decode(
                        column: "n", as: Int.self) ?? -1
                let byOwners =
                    try await sql.raw(
                        """
                        SELECT COUNT(*) AS n FROM events e JOIN sport_groups g ON g.id = e.group_id WHERE e.members_only = \(bind: true) AND e.organiser_id = g.owner_id
                        """
                    ).first()?.decode(column: "n", as: Int.self) ?? -1
                let rooms =
                    try await sql.raw("SELECT COUNT(*) AS n FROM rooms WHERE kind = 'group'").first()?.decode(column: "n", as: Int.self)
                    ?? -1
                let owners =
                    try await sql.raw("SELECT COUNT(*) AS n FROM group_members WHERE role = 'owner'").first()?.decode(
                        column: "n", as: Int.self) ?? -1
                return (restricted, byOwners, rooms, owners)
            }
            #expect(restricted == report.membersOnly && byOwners == restricted, "each members-only game is its group owner's")
            #expect(rooms == 12 && owners == 12)
            // A stranger finds none of them: a fresh index warmed from these rows holds them restricted.
            try await services.sync.warm(services.eventIndex)
            let token = try await api.register("Stranger").token
            let all = try await api.allPages(
                API.Event.self, "/v1/events/in-box?min_lat=-90&min_lon=-180&max_lat=90&max_lon=180&limit=100", token: token)
            #expect(all.count == 400 - restricted && all.allSatisfy { !$0.membersOnly })
        }
    }

    @Test(
        "cross-origin clients: a preflight allows every method the API answers and the headers it reads; every answer, errors and 429 included, names the origin and exposes Retry-After",
        arguments: [DatabaseEngine.sqlite])
    func crossOrigin(engine: DatabaseEngine) async throws {
        let origin = "https://app.example"
        try await withApp(
            engine,
            configure: {
                $0.corsAllowedOrigins = [origin]
                $0.userRateLimit = 5
            }
        ) { api, services in
            @Sendable func list(_ value: String?) -> Set<String> {
                Set((value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            }
            // Muting a room is a PUT: the preflight must allow it, and every other method routes answer.
            let preflight = try await api.request(
                .options, "/v1/rooms/\(UUID())/mute",
                headers: [
                    .origin: origin, .accessControlRequestMethod: "PUT", .accessControlRequestHeaders: "authorization, content-type",
                ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == origin)
            let methods = list(preflight.headers[.accessControlAllowMethods])
            #expect(Set(services.routes.all.map { $0.method.rawValue.lowercased() }).isSubset(of: methods), "\(methods)")
            #expect(methods.contains("put"))
            #expect(
                list(preflight.headers[.accessControlAllowHeaders]).isSuperset(of: [
                    "authorization", "content-type", "if-none-match", "range",
                ]))

            // An error answer names the origin, so a script reads its body.
            let unauthorized = try await api.request(.get, "/v1/me", headers: [.origin: origin])
            #expect(unauthorized.status == .unauthorized)
            #expect(unauthorized.headers[.accessControlAllowOrigin] == origin)
            #expect(try unauthorized.decode(API.ErrorBody.self).error.code == "unauthorized")

            // Past the rate limit: the 429 names the origin and lets a script read Retry-After.
            let (token, _) = try await api.register("Busy")
            var limited: Reply?
            for _ in 0..<6 {
                let reply = try await api.request(.get, "/v1/me", token: token, headers: [.origin: origin])
                #expect(reply.headers[.accessControlAllowOrigin] == origin)
                if reply.status == .tooManyRequests { limited = reply }
            }
            let refused = try #require(limited)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(list(refused.headers[.accessControlExposeHeaders]).isSuperset(of: ["retry-after", "location", "etag"]))

            // Another origin gets no grant.
            let stranger = try await api.request(
                .options, "/v1/me", headers: [.origin: "https://elsewhere.example", .accessControlRequestMethod: "GET"])
            #expect(stranger.status == .forbidden)
            #expect(stranger.headers[.accessControlAllowOrigin] == nil)
            #expect(
                try await api.request(.get, "/health", headers: [.origin: "https://elsewhere.example"]).headers[.accessControlAllowOrigin]
                    == nil)
        }
    }

    @Test("request limits answer 429 with Retry-After", arguments: [DatabaseEngine.sqlite])
    func rateLimits(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.userRateLimit = 5 }) { api, _ in
            let (token, _) = try await api.register("Busy")
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<6 { statuses.append(try await api.get("/v1/me", token: token).status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == .ok })
            #expect(statuses.last == .tooManyRequests)
            let limited = try await api.get("/v1/me", token: token)
            #expect(limited.status == .tooManyRequests)
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await api.get("/health").status == .ok)
            clock.advance(by: 61)
            #expect(try await api.get("/v1/me", token: token).status == .ok)
        }
    }
}

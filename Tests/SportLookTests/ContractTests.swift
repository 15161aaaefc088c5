import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

#if canImport(Glibc)
    import Glibc
#endif

/// The (method, path) pairs of `openapi.yaml`, read line by line: paths at two
/// spaces of indentation, methods at four.
func documentedRoutes() throws -> Set<String> {
    let text = try String(contentsOf: Resources.locate().root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
    var routes = Set<String>()
    var inPaths = false
    var path: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("paths:") {
            inPaths = true
            continue
        }
        if inPaths, let first = line.first, first != " " { inPaths = false }
        guard inPaths else { continue }
        if line.hasPrefix("  /"), line.hasSuffix(":") {
            path = String(line.dropFirst(2).dropLast())
            continue
        }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("    "), !line.hasPrefix("     "), let path,
            ["get:", "head:", "post:", "patch:", "put:", "delete:"].contains(trimmed)
        {
            routes.insert("\(trimmed.dropLast().uppercased()) \(path)")
        }
    }
    return routes
}

@Suite("The contract and the configuration", .timeLimit(.minutes(10)))
struct ContractTests {
    @Test("every route in the router is in openapi.yaml, and every documented route exists")
    func routesMatchTheDocument() async throws {
        try await withApp(.sqlite) { api, services in
            let served = Set(
                services.routes.all.map { route in
                    let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.reduce("") {
                        $0 + "/" + $1
                    }
                    return "\(route.method.rawValue) " + (path.isEmpty ? "/" : path)
                })
            let documented = try documentedRoutes()
            #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
            #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
            #expect(served.count >= 40)
            // The document's sport enum is the catalogue.
            let text = try String(contentsOf: services.resources.root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
            let enumLine = try #require(text.split(separator: "\n").drop { !$0.contains("SportSlug:") }.first { $0.contains("enum:") })
            let documentedSlugs = enumLine.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(documentedSlugs == services.sports.all.map(\.slug))
            let document = try await api.get("/openapi.yaml")
            #expect(document.status == .ok)
            #expect(document.text.hasPrefix("openapi: 3"))
        }
    }

    @Test("every notification kind the server makes is in the contract, with the fields of its data told")
    func notificationKindsMatchTheDocument() throws {
        let text = try String(contentsOf: Resources.locate().root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let lines = text.split(separator: "\n")
        let kindLine = try #require(lines.drop { $0 != "    Notification:" }.first { $0.hasPrefix("        kind:") })
        let documented = kindLine.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(documented.sorted() == NotificationKind.allCases.map(\.rawValue).sorted())
        // NotificationData's description lists each kind's fields (the suite's answers are held
        // against its properties by scripts/contract-check).
        let data = lines.drop { $0 != "    NotificationData:" }.prefix { !$0.hasPrefix("      properties:") }.joined(separator: "\n")
        for kind in NotificationKind.allCases {
            #expect(data.contains("`\(kind.rawValue)`"), "NotificationData does not tell \(kind.rawValue)'s fields")
        }
    }

    @Test("operations answer health, readiness and metrics", arguments: engines)
    func operations(engine: DatabaseEngine) async throws {
        try await withApp(engine, configure: { $0.metricsToken = "a-metrics-token-for-tests" }) { api, _ in
            #expect(try await api.get("/health").status == .ok)
            let ready = try await api.get("/ready")
            #expect(ready.status == .ok)
            #expect(try ready.decode(API.Readiness.self).checks.additionalProperties == ["database": true, "indexes": true])
            _ = try await api.get("/v1/sports")
            #expect(try await api.get("/metrics").status == .notFound)
            let metrics = try await api.get("/metrics", token: "a-metrics-token-for-tests")
            #expect(metrics.status == .ok)
            #expect(metrics.text.contains("hb_requests"))
            #expect(metrics.text.contains("http_server_request_duration"))
        }
    }

    @Test("a bad setting stops start-up with a message naming it")
    func configuration() throws {
        let cases: [([String: String], String)] = [
            (["PORT": "http"], "PORT"), (["PORT": "70000"], "PORT"), (["BCRYPT_COST": "3"], "BCRYPT_COST"),
            (["DATABASE_URL": "mysql://x"], "DATABASE_URL"), (["DATABASE_URL": "postgres://host/db"], "DATABASE_URL"),
            (["TOKEN_TTL": "forever"], "TOKEN_TTL"), (["TOKEN_TTL": "10s"], "TOKEN_TTL"), (["LOG_LEVEL": "loud"], "LOG_LEVEL"),
            (["CORS_ALLOWED_ORIGINS": "not a url"], "CORS_ALLOWED_ORIGINS"), (["PUSH_GATEWAY_URL": "http://gw"], "PUSH_GATEWAY_SECRET"),
            (["JOB_WORKERS": "-1"], "JOB_WORKERS"), (["RATE_LIMIT_USER": "lots"], "RATE_LIMIT_USER"),
            (["MAIL_TRANSPORT": "pigeon"], "MAIL_TRANSPORT"), (["MAIL_TRANSPORT": "smtp"], "SMTP_URL"),
            (["SMTP_URL": "smtp://mail.example.com"], "MAIL_FROM"),
            (["SMTP_URL": "smtp://mail.example.com", "MAIL_FROM": "SportLook <not an address>"], "MAIL_FROM"),
            (["SMTP_URL": "https://mail.example.com", "MAIL_FROM": "a@example.com"], "SMTP_URL"),
            (["SMTP_URL": "smtp://mail.example.com", "MAIL_FROM": "a@example.com", "SMTP_CA_FILE": "/no/such/ca.pem"], "SMTP_CA_FILE"),
            (["SMTP_URL": "smtp://user@mail.example.com", "MAIL_FROM": "a@example.com"], "SMTP_URL"),
            (["WEB_CLIENT": "maybe"], "WEB_CLIENT"),
            (["AUTH_GOOGLE_CLIENT_IDS": "a,b", "AUTH_GOOGLE_WEB_CLIENT_ID": "c"], "AUTH_GOOGLE_WEB_CLIENT_ID"),
            (["TILE_URL": "http://tiles.example.com/{z}/{x}/{y}.png"], "TILE_URL"),
            (["TILE_URL": "https://tiles.example.com/tile.png"], "TILE_URL"),
            (["SMTP_URL": "smtp://mail.example.com", "MAIL_FROM": "a@example.com", "SMTP_TIMEOUT": "90s"], "SMTP_TIMEOUT"),
            (["PUSH_TIMEOUT": "15s", "VAPID_SUBJECT": "mailto:ops@example.com"], "PUSH_TIMEOUT"),
            (["PUSH_TIMEOUT": "30s", "JOB_LEASE": "2m", "VAPID_SUBJECT": "mailto:ops@example.com"], "PUSH_TIMEOUT"),
            (
                [
                    "PUSH_GATEWAY_URL": "https://push.example.com", "PUSH_GATEWAY_SECRET": String(repeating: "k", count: 32),
                    "PUSH_GATEWAY_TIMEOUT": "60s",
                ], "PUSH_GATEWAY_TIMEOUT"
            ),
        ]
        for (environment, setting) in cases {
            #expect(throws: ConfigurationError.self) { try AppConfiguration(environment: environment) }
            do { _ = try AppConfiguration(environment: environment) } catch let error as ConfigurationError {
                #expect(error.setting == setting, "\(environment)")
            }
        }
        let good = try AppConfiguration(environment: [
            "PORT": "9000", "TOKEN_TTL": "12h", "DATABASE_URL": "postgres://app:s%40cret@db.example.com:6543/sport",
            "CORS_ALLOWED_ORIGINS": "https://a.example.com, *",
        ])
        #expect(good.port == 9000)
        #expect(good.tokenTTL == 43_200)
        #expect(
            good.database
                == .postgres(PostgresAddress(host: "db.example.com", port: 6543, user: "app", password: "s@cret", database: "sport")))
        #expect(good.corsAllowedOrigins == ["https://a.example.com", "*"])
        let defaults = try AppConfiguration(environment: [:])
        #expect(defaults.host == "127.0.0.1" && defaults.port == 8080 && defaults.bcryptCost == 12 && defaults.tokenTTL == 30 * 86_400)
        #expect(defaults.database == .sqliteFile("sportlook.sqlite"))
        #expect(try AppConfiguration(environment: ["DATABASE_URL": "sqlite::memory:"]).database == .sqliteMemory)
        #expect(defaults.mail == nil)
        #expect(defaults.webSignIn.isEmpty)
        let web = try AppConfiguration(environment: [
            "AUTH_GOOGLE_CLIENT_IDS": "ios, web", "AUTH_GOOGLE_WEB_CLIENT_ID": "web", "AUTH_APPLE_CLIENT_IDS": "com.example.web",
            "AUTH_FACEBOOK_CLIENT_IDS": "123",
        ]).webSignIn
        #expect(web.map(\.provider) == [.apple, .google], "Facebook on the web needs classic Login (its app secret)")
        #expect(web.map(\.clientID) == ["com.example.web", "web"])
        #expect(web.first?.authorizeURL.absoluteString == "https://appleid.apple.com/auth/authorize")
        let mail = try AppConfiguration(environment: [
            "SMTP_URL": "smtps://me%40example.com:p%3Ass@mail.example.com", "MAIL_FROM": "\"SportLook\" <no-reply@example.com>",
        ]).mail
        guard case .smtp(let smtp) = mail else {
            Issue.record("SMTP_URL gives SMTP mail, not \(String(describing: mail))")
            return
        }
        #expect(smtp.host == "mail.example.com" && smtp.port == 465 && smtp.security == .implicitTLS)
        #expect(smtp.username == "me@example.com" && smtp.password == "p:ss" && !smtp.allowsPlaintext)
        #expect(smtp.from == MailAddress(parsing: "SportLook <no-reply@example.com>"))
        #expect(smtp.from.header == "\"SportLook\" <no-reply@example.com>")
        guard
            case .smtp(let plain) = try AppConfiguration(environment: ["SMTP_URL": "smtp://127.0.0.1", "MAIL_FROM": "a@example.com"]).mail
        else {
            Issue.record("SMTP_URL")
            return
        }
        #expect(plain.port == 587 && plain.security == .startTLS && plain.username == nil && plain.allowsPlaintext)
        guard case .log = try AppConfiguration(environment: ["MAIL_TRANSPORT": "log", "SMTP_URL": "smtp://mail.example.com"]).mail else {
            Issue.record("MAIL_TRANSPORT=log")
            return
        }
    }

    @Test("a migration splits at each line-ending `;` but inside a function's `$$` body, comment lines dropped")
    func migrationStatements() {
        let text = """
            -- a comment;
            CREATE TABLE t (a integer);
            CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS $$
            BEGIN
                RETURN 1;
            END
            $$;
            SELECT f();
            """
        #expect(
            Migrator.splitStatements(text) == [
                "CREATE TABLE t (a integer)",
                "CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS $$\nBEGIN\n    RETURN 1;\nEND\n$$", "SELECT f()",
            ])
    }

    @Test("an edited migration, or a database newer than the code, stops start-up", arguments: engines)
    func migrations(engine: DatabaseEngine) async throws {
        try await withEmptyDatabase(engine) { database in
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let resources = try Resources.locate()
            let migrator = try Migrator(database: database, resources: resources, logger: logger)
            #expect(try await migrator.verify().count == migrator.migrations.count)
            #expect(try await migrator.migrate() == migrator.migrations.map(\.version))
            #expect(try await migrator.migrate().isEmpty, "applying twice changes nothing")
            #expect(try await migrator.verify().isEmpty)
            // Someone edits an applied file.
            try await database.transaction { sql in
                try await sql.raw("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 2").run()
            }
            await #expect(throws: MigrationError.self) { try await migrator.verify() }
            await #expect(throws: MigrationError.self) { try await migrator.migrate() }
            try await database.transaction { [checksum = migrator.migrations[1].checksum] sql in
                try await sql.raw("UPDATE schema_migrations SET checksum = \(bind: checksum) WHERE version = 2").run()
            }
            // A newer release ran against this database.
            try await database.transaction { sql in
                try await sql.raw("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, 'future', 'x', 'now')")
                    .run()
            }
            do {
                _ = try await migrator.verify()
                Issue.record("a database newer than the code must be refused")
            } catch let error as MigrationError {
                #expect(error.description.contains("newer"))
            }
        }
    }

    @Test(
        "SQLite: a migration that rebuilds a table others refer to keeps every row that refers to it, and one that would break a reference is refused whole",
        arguments: [DatabaseEngine.sqlite])
    func rebuildingMigration(engine: DatabaseEngine) async throws {
        try await withEmptyDatabase(engine) { database in
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let setUp = Migration(
                version: 1, name: "rooms",
                statements: [
                    "CREATE TABLE parents (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('a', 'b')))",
                    "CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parents(id) ON DELETE CASCADE)",
                    "INSERT INTO parents VALUES ('p1', 'a'), ('p2', 'b')", "INSERT INTO children VALUES (1, 'p1'), (2, 'p2'), (3, 'p2')",
                ], checksum: "1")
            let rebuild = Migration(
                version: 2, name: "kinds",
                statements: [
                    "CREATE TABLE parents_new (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('a', 'b', 'c')))",
                    "INSERT INTO parents_new SELECT id, kind FROM parents", "DROP TABLE parents",
                    "ALTER TABLE parents_new RENAME TO parents",
                ], checksum: "2", relaxesForeignKeys: true)
            #expect(try await Migrator(database: database, migrations: [setUp, rebuild], logger: logger).migrate() == [1, 2])
            let children = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM children").first()?.decode(column: "n", as: Int.self)
            }
            #expect(children == 3, "the rebuild deleted no child")
            try await database.transaction { sql in try await sql.raw("INSERT INTO parents VALUES ('p3', 'c')").run() }
            // Foreign keys are on again: a child of nothing is refused, and deleting a parent cascades.
            await #expect(throws: (any Error).self) {
                try await database.transaction { sql in try await sql.raw("INSERT INTO children VALUES (9, 'nobody')").run() }
            }
            try await database.transaction { sql in try await sql.raw("DELETE FROM parents WHERE id = 'p2'").run() }
            let left = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM children").first()?.decode(column: "n", as: Int.self)
            }
            #expect(left == 1)
            // A rebuild that drops a parent some child still names: refused, nothing of it kept.
            let broken = Migration(
                version: 3, name: "broken",
                statements: [
                    "CREATE TABLE parents_new (id TEXT PRIMARY KEY, kind TEXT NOT NULL)",
                    "INSERT INTO parents_new SELECT id, kind FROM parents WHERE id <> 'p1'",
                    "DROP TABLE parents", "ALTER TABLE parents_new RENAME TO parents",
                ], checksum: "3", relaxesForeignKeys: true)
            await #expect(throws: MigrationError.self) {
                try await Migrator(database: database, migrations: [setUp, rebuild, broken], logger: logger).migrate()
            }
            let parents = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM parents").first()?.decode(column: "n", as: Int.self)
            }
            #expect(parents == 2, "rolled back")
        }
    }

}

@Suite("Limits on the wire", .timeLimit(.minutes(10)))
struct WireLimitTests {
    /// Sends raw bytes and returns the status line of the answer.
    func statusLine(port: Int, _ request: String) async throws -> String {
        try await blocking { try Self.blockingStatusLine(port: port, request) }
    }

    static func blockingStatusLine(port: Int, _ request: String) throws -> String {
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(UInt8(ascii: "\n")) {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
    }

    @Test("connections the decoder refuses, closed at any point, never hold up the server's shutdown")
    func refusedConnectionsLetShutdownFinish() async throws {
        // A hang here once stopped the whole suite: the server waited, at shutdown,
        // for connection tasks that waited for an upgrade decision on channels the
        // decoder-error path had closed. The deadline turns a hang into a failure.
        try await withDeadline(.seconds(120)) {
            try await withApp(.sqlite, setup: .live) { api, _ in
                let port = try #require(api.client.port)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<48 {
                        group.addTask {
                            try await blocking { try Self.sendAndHangUp(port: port, pieces: 1 + i % 6, readFirst: i % 2 == 0) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// Sends an oversized header in `pieces` writes and closes, reading the answer first or not.
    static func sendAndHangUp(port: Int, pieces: Int, readFirst: Bool) throws {
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /v1/sports HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 60_000))\r\n\r\n".utf8)
        let size = (request.count + pieces - 1) / pieces
        for start in stride(from: 0, to: request.count, by: size) {
            let piece = Array(request[start..<min(request.count, start + size)])
            guard Glibc.send(fd, piece, piece.count, Int32(MSG_NOSIGNAL)) > 0 else { break }
        }
        if readFirst {
            var buffer = [UInt8](repeating: 0, count: 512)
            _ = recv(fd, &buffer, buffer.count, 0)
        }
    }

    @Test("oversized or malformed requests get a clear 4xx, not silence")
    func headerLimits() async throws {
        try await withApp(.sqlite, setup: .live) { api, _ in
            let port = try #require(api.client.port)
            let bigHeader = try await statusLine(
                port: port, "GET /v1/sports HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n")
            #expect(bigHeader.hasPrefix("HTTP/1.1 431"))
            let manyHeaders = try await statusLine(
                port: port, "GET /v1/sports HTTP/1.1\r\nHost: x\r\n" + (0..<300).map { "X-H\($0): v\r\n" }.joined() + "\r\n")
            #expect(manyHeaders.hasPrefix("HTTP/1.1 431"))
            let nonsense = try await statusLine(port: port, "NONSENSE\r\n\r\n")
            #expect(nonsense.hasPrefix("HTTP/1.1 400"))
            let normal = try await statusLine(port: port, "GET /v1/sports HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(normal.hasPrefix("HTTP/1.1 200"))
        }
    }
}

extension Migration {
    /// A migration of these statements, written as its file would hold them.
    init(version: Int, name: String, statements: [String], checksum: String, relaxesForeignKeys: Bool = false) {
        let marker = relaxesForeignKeys ? "-- foreign_keys: off\n" : ""
        self.init(version: version, name: name, text: marker + statements.map { $0 + ";\n" }.joined(), checksum: checksum)
    }
}

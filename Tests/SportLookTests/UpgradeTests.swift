import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Databases that earlier versions of the server filled (`Tests/Fixtures/upgrade/NNNN/`,
/// made by `scripts/upgrade_fixture.py` with the build that had NNNN migrations): today's
/// server migrates each on start, and every read its clients made then answers
/// everything it answered then (fields may be added; none may go or change).
@Suite("Upgrades", .timeLimit(.minutes(10)))
struct UpgradeTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade")
    static let fixtures = ["0020", "0055"]

    struct Record: Decodable {
        struct Person: Decodable {
            var email: String
            var password: String
            var id: String
        }
        var madeAt: String
        var migration: Int
        var people: [Person]

        enum CodingKeys: String, CodingKey {
            case madeAt = "made_at"
            case migration, people
        }
    }

    @Test(
        "a database filled at an earlier migration is migrated, and every read answers what it answered before",
        arguments: engines, fixtures)
    func upgrade(engine: DatabaseEngine, fixture: String) async throws {
        TestCounter.record(engine)
        let folder = Self.folder.appendingPathComponent(fixture)
        let recordData = try Data(contentsOf: folder.appendingPathComponent("\(engine.rawValue).json"))
        let record = try JSONDecoder().decode(Record.self, from: recordData)
        let location = try await Self.restore(engine, from: folder)
        var configuration = testConfiguration(on: location)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        configuration.logLevel = .error
        do {
            let madeAt = try #require(RFC3339.parse(record.madeAt))
            // The fixture stands at its migration: today's later ones are what the start runs.
            let latest = try Migrator.load(from: try Resources.locate().migrations(for: engine)).map(\.version).max() ?? 0
            #expect(try await Self.pending(location, logger: logger) == Array((record.migration + 1)..<(latest + 1)))
            let (application, services) = try await makeApplication(
                configuration, clock: ManualClock(madeAt.addingTimeInterval(60)), logger: logger)
            #expect(try await Self.pending(location, logger: logger).isEmpty)
            try await application.test(.router) { client in
                let api = API(client: client)
                let reads = try #require(
                    (try JSONSerialization.jsonObject(with: recordData) as? [String: Any])?["reads"] as? [[String: Any]])
                try await services.waitUntilWarm()
                var tokens: [String: String] = [:]
                for person in record.people {
                    let session = try await api.login(person.email, password: person.password)
                    #expect(session.user.id == person.id)
                    tokens[person.email] = session.accessToken
                }
                #expect(reads.count > 100)
                for read in reads {
                    let path = try #require(read["path"] as? String)
                    let reader = try #require(read["as"] as? String)
                    let before = try #require(read["status"] as? Int)
                    let reply = try await api.get(path, token: tokens[reader])
                    #expect(Int(reply.status.code) == before, "\(reader) GET \(path): \(reply.status) \(reply.text.prefix(300))")
                    guard before == 200, reply.status == .ok, let then = read["body"] else { continue }
                    let now = try JSONSerialization.jsonObject(with: reply.body)
                    let lost = Self.lost(then, in: now, at: path)
                    #expect(lost.isEmpty, "\(reader) GET \(path) lost: \(lost.prefix(5))")
                }
            }
        } catch {
            await dispose(configuration)
            throw error
        }
        await dispose(configuration)
    }

    /// The migrations not applied to the database at `location`.
    static func pending(_ location: DatabaseLocation, logger: Logger) async throws -> [Int] {
        let database = try await Database.open(location, poolSize: 2, timeout: 60, logger: logger)
        do {
            let pending = try await Migrator(database: database, resources: try Resources.locate(), logger: logger).verify()
            await database.close()
            return pending
        } catch {
            await database.close()
            throw error
        }
    }

    /// Restores the fixture's database: a copy of the SQLite file, or the PostgreSQL dump
    /// loaded into an empty database.
    static func restore(_ engine: DatabaseEngine, from folder: URL) async throws -> DatabaseLocation {
        switch engine {
        case .sqlite:
            let path = scratchFolder + "sportlook-upgrade-\(UUID().uuidString).sqlite"
            try FileManager.default.copyItem(atPath: folder.appendingPathComponent("sqlite.sqlite").path, toPath: path)
            return .sqliteFile(path)
        case .postgres:
            let address = try await PostgresCluster.shared.emptyDatabase()
            let dump = folder.appendingPathComponent("postgres.sql").path
            do {
                let psql = try PostgresCluster.binary("psql")
                try await blocking {
                    try PostgresCluster.run(
                        psql,
                        [
                            "-h", address.host, "-p", "\(address.port)", "-U", address.user, "-d", address.database, "-q", "-v",
                            "ON_ERROR_STOP=1", "-f", dump,
                        ], asPostgres: false)
                }
            } catch {
                await PostgresCluster.shared.drop(address)
                throw error
            }
            return .postgres(address)
        }
    }

    /// What `then` held that `now` does not: a key gone, a value changed, an item of a
    /// list gone.
    static func lost(_ then: Any, in now: Any, at path: String) -> [String] {
        switch (then, now) {
        case (let then as [String: Any], let now as [String: Any]):
            return then.keys.sorted().flatMap { key in
                guard let value = now[key] else { return ["\(path).\(key) is gone"] }
                return lost(then[key]!, in: value, at: "\(path).\(key)")
            }
        case (let then as [Any], let now as [Any]):
            // Items with ids (pages, lists) are found by id, in any order, among as many or
            // more (a notification whose job ran only after the restart); others in turn.
            let ids = then.compactMap { ($0 as? [String: Any])?["id"] as? String }
            if ids.count == then.count {
                let byID = Dictionary(
                    now.compactMap { item in (item as? [String: Any]).flatMap { dict in (dict["id"] as? String).map { ($0, item) } } },
                    uniquingKeysWith: { first, _ in first })
                return zip(ids, then).flatMap { id, item in
                    guard let found = byID[id] else { return ["\(path) lost the item \(id)"] }
                    return lost(item, in: found, at: "\(path)[\(id)]")
                }
            }
            guard then.count == now.count else { return ["\(path) had \(then.count) items, now \(now.count)"] }
            return zip(then, now).enumerated().flatMap { index, pair in lost(pair.0, in: pair.1, at: "\(path)[\(index)]") }
        case (let then as NSNumber, let now as NSNumber):
            return then == now ? [] : ["\(path) was \(then), now \(now)"]
        case (let then as String, let now as String):
            // Builds before the fix printed a whole millisecond, stored as a double a hair
            // below it, one millisecond short: the same instant, now printed as stored.
            if then != now, let before = RFC3339.parse(then), let after = RFC3339.parse(now),
                (0.000_5...0.001_5).contains(after.timeIntervalSince(before))
            {
                return []
            }
            return then == now ? [] : ["\(path) was \(then.prefix(80)), now \(now.prefix(80))"]
        case (is NSNull, is NSNull):
            return []
        default:
            return ["\(path) was \(String(describing: then).prefix(80)), now \(String(describing: now).prefix(80))"]
        }
    }
}

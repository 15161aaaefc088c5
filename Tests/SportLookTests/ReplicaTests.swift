import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Reads on PostgreSQL's streaming replicas (`DATABASE_READ_URLS`): a primary and two
/// replicas on loopback (``ReplicatedCluster``). A held-back replica
/// (`recovery_min_apply_delay`) shows which server answered: it still has the old name.
/// The clock that measures replicas' lag is the test's.
@Suite("Read replicas", .serialized, .timeLimit(.minutes(10)))
struct ReplicaTests {
    struct Named: Decodable { var name: String }

    /// An app on a fresh replicated database, both replicas applying as they go.
    func withReplicas(
        _ test: @Sendable (API, AppServices, ManualClock, _ database: String) async throws -> Void
    ) async throws {
        TestCounter.record(.postgres)
        let cluster = ReplicatedCluster.shared
        for index in 0..<2 { try await cluster.holdBack(index, false) }
        let (primary, replicas) = try await cluster.freshDatabase()
        var configuration = testConfiguration(on: .postgres(primary))
        configuration.databaseReadReplicas = replicas
        configuration.readMaxLag = 5
        let clock = ManualClock(Date().wholeMilliseconds)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let (application, services) = try await makeApplication(configuration, clock: clock, logger: logger)
        do {
            try await application.test(.router) { client in
                try await services.waitUntilWarm()
                // Until it hears the other instances' commits, no replica answers.
                try await eventually("the commits' listener") { services.database.replicas?.isListening == true }
                try await test(API(client: client), services, clock, primary.database)
            }
        } catch {
            for index in 0..<2 { try? await cluster.holdBack(index, false) }
            await cluster.drop(primary)
            throw error
        }
        for index in 0..<2 { try await cluster.holdBack(index, false) }
        await cluster.drop(primary)
    }

    /// Alex and Sam, signed up, with both replicas past them and up.
    func twoPlayers(_ api: API, _ replicas: ReplicaSet) async throws -> (
        alex: (token: String, id: String), sam: (token: String, id: String)
    ) {
        let alex = try await api.register("Alex")
        let sam = try await api.register("Sam")
        for index in 0..<2 { try await ReplicatedCluster.shared.waitUntilReplayed(index) }
        try await states(of: replicas, are: ["up", "up"])
        return (alex, sam)
    }

    /// The statements each replica ran in `database` so far.
    func statements(in database: String) async throws -> [Int] {
        [
            try await ReplicatedCluster.shared.statements(on: 0, in: database),
            try await ReplicatedCluster.shared.statements(on: 1, in: database),
        ]
    }

    func name(of user: String, as token: String, _ api: API) async throws -> String {
        try await api.get("/v1/users/\(user)", token: token).decode(Named.self, expecting: .ok).name
    }

    func rename(_ token: String, to name: String, _ api: API) async throws {
        _ = try await api.patch("/v1/me", token: token, json: ["name": name]).decode(Named.self, expecting: .ok)
    }

    @Test("reads land on a replica; a caller's own write is seen at once, another's a moment later")
    func readsOnReplicas() async throws {
        try await withReplicas { api, services, _, database in
            let cluster = ReplicatedCluster.shared
            let replicas = try #require(services.database.replicas)
            let (alex, sam) = try await twoPlayers(api, replicas)
            let before = try await statements(in: database)
            // Both replicas hold the new name back.
            for index in 0..<2 { try await cluster.holdBack(index, true) }
            try await rename(alex.token, to: "Alexandra", api)
            // Checked until a check finds both up (on a loaded machine one may miss its second).
            try await states(of: replicas, are: ["up", "up"])
            for _ in 0..<4 {
                #expect(try await name(of: alex.id, as: alex.token, api) == "Alexandra")
                #expect(try await name(of: alex.id, as: sam.token, api) == "Alex")
            }
            // Sam's four reads went to the replicas in turn; Alex's four to the primary.
            let after = try await statements(in: database)
            #expect(after[0] > before[0] && after[1] > before[1])
            // Someone who signs up sees what they wrote before they had a session.
            let casey = try await api.register("Casey")
            #expect(try await name(of: casey.id, as: casey.token, api) == "Casey")
        }
    }

    @Test("a caller's read goes to a replica only once that replica has replayed their write")
    func readYourWritesPerReplica() async throws {
        try await withReplicas { api, services, _, database in
            let cluster = ReplicatedCluster.shared
            let replicas = try #require(services.database.replicas)
            let (alex, sam) = try await twoPlayers(api, replicas)
            try await cluster.holdBack(1, true)
            try await rename(alex.token, to: "Alexandra", api)
            try await cluster.waitUntilReplayed(0)
            await replicas.check()
            // Both may answer others: the second has the old name.
            #expect(
                Set([try await name(of: alex.id, as: sam.token, api), try await name(of: alex.id, as: sam.token, api)]) == [
                    "Alex", "Alexandra",
                ])
            let before = try await statements(in: database)
            for _ in 0..<6 { #expect(try await name(of: alex.id, as: alex.token, api) == "Alexandra") }
            let after = try await statements(in: database)
            // The first replica, caught up, answered; the second, behind Alex's write, never did.
            #expect(after[0] > before[0])
            #expect(after[1] == before[1])
        }
    }

    @Test("a replica past READ_MAX_LAG is skipped; a stopped one too, and both come back")
    func lagAndLoss() async throws {
        try await withReplicas { api, services, clock, database in
            let cluster = ReplicatedCluster.shared
            let replicas = try #require(services.database.replicas)
            let (alex, sam) = try await twoPlayers(api, replicas)

            // The second replica falls behind: ten seconds on the clock later it lags by ten.
            try await cluster.holdBack(1, true)
            try await rename(alex.token, to: "Alexandra", api)
            try await cluster.waitUntilReplayed(0)
            await replicas.check()
            clock.advance(by: 10)
            try await states(of: replicas, are: ["up", "lagging"])
            let ready = try await api.get("/ready").decode(API.Readiness.self, expecting: .ok)
            #expect(ready.replicas?.map(\.state) == [.up, .lagging])
            #expect((ready.replicas?[1].lagSeconds ?? 0) >= 10)
            var lagging = try await cluster.statements(on: 1, in: database)
            for _ in 0..<4 { #expect(try await name(of: alex.id, as: sam.token, api) == "Alexandra") }
            #expect(try await cluster.statements(on: 1, in: database) == lagging)

            // Caught up, it answers again.
            try await cluster.holdBack(1, false)
            try await states(of: replicas, are: ["up", "up"])
            lagging = try await cluster.statements(on: 1, in: database)
            for _ in 0..<4 { #expect(try await name(of: alex.id, as: sam.token, api) == "Alexandra") }
            #expect(try await cluster.statements(on: 1, in: database) > lagging)

            // Stopped, the first is skipped and reads still answer: the first read that finds it
            // gone goes to the primary and says so, before any check; started, it rejoins.
            try await cluster.control(0, "stop")
            for _ in 0..<4 { #expect(try await name(of: alex.id, as: sam.token, api) == "Alexandra") }
            #expect(replicas.report().map(\.state) == ["down", "up"])
            try await states(of: replicas, are: ["down", "up"])
            try await cluster.control(0, "start")
            try await cluster.waitUntilReplayed(0)
            try await states(of: replicas, are: ["up", "up"])
            let back = try await cluster.statements(on: 0, in: database)
            for _ in 0..<4 { #expect(try await name(of: alex.id, as: sam.token, api) == "Alexandra") }
            #expect(try await cluster.statements(on: 0, in: database) > back)
        }
    }

    /// Checks until the replicas are in `states`: a write of the service's own (a job) may
    /// land between a replica's check and the primary's, and the clock stands still.
    func states(of replicas: ReplicaSet, are states: [String]) async throws {
        try await eventually("replicas \(states)") {
            await replicas.check()
            return replicas.report().map(\.state) == states
        }
    }

    @Test("the lag is the time since the primary was at a position the replica has replayed")
    func lagFromSamples() {
        let start = Date(timeIntervalSince1970: 1_000)
        let samples = [(start, UInt64(100)), (start.addingTimeInterval(1), UInt64(200)), (start.addingTimeInterval(2), UInt64(300))]
        let now = start.addingTimeInterval(3)
        let current = (position: UInt64(400), at: start.addingTimeInterval(2.5))
        // Past this check's own sample: the time the check took.
        #expect(ReplicaSet.lag(replayed: 400, primary: current, samples: samples, now: now) == 0.5)
        #expect(ReplicaSet.lag(replayed: 250, primary: current, samples: samples, now: now) == 2)
        // Behind every sample: not known (hours behind, for all it says).
        #expect(ReplicaSet.lag(replayed: 50, primary: current, samples: samples, now: now) == nil)
        #expect(ReplicaSet.lag(replayed: 50, primary: current, samples: [], now: now) == nil)
        #expect(ReplicaSet.walPosition("16/B374D848") == 0x16_B374_D848)
        #expect(ReplicaSet.walPosition("nonsense") == nil)
    }

    @Test("a replica answers when reachable, its lag and the time since its check within the bound, and past the position")
    func answering() {
        let checked = Date(timeIntervalSince1970: 1_000)
        let health = ReplicaSet.Health(reachable: true, replayed: 500, lag: 1, checkedAt: checked)
        #expect(ReplicaSet.answers(health, after: 500, maxLag: 5, now: checked.addingTimeInterval(3)))
        #expect(!ReplicaSet.answers(health, after: 501, maxLag: 5, now: checked.addingTimeInterval(3)))
        #expect(!ReplicaSet.answers(health, after: 0, maxLag: 5, now: checked.addingTimeInterval(4.5)))
        // A clock that went back since the check.
        #expect(!ReplicaSet.answers(health, after: 0, maxLag: 5, now: checked.addingTimeInterval(-1)))
        var unknown = health
        unknown.lag = nil
        #expect(!ReplicaSet.answers(unknown, after: 0, maxLag: 5, now: checked))
        var gone = health
        gone.reachable = false
        #expect(!ReplicaSet.answers(gone, after: 0, maxLag: 5, now: checked))
    }

    @Test("DATABASE_READ_URLS names PostgreSQL replicas of a PostgreSQL primary")
    func configuration() throws {
        let primary = "postgres://app@127.0.0.1:5432/sportlook"
        let parsed = try AppConfiguration(environment: [
            "DATABASE_URL": primary,
            "DATABASE_READ_URLS": "postgres://app@127.0.0.1:5433/sportlook, postgres://app@127.0.0.1:5434/sportlook",
            "READ_MAX_LAG": "2s",
        ])
        #expect(parsed.databaseReadReplicas.map(\.port) == [5433, 5434])
        #expect(parsed.readMaxLag == 2)
        #expect(throws: ConfigurationError.self) {
            try AppConfiguration(environment: ["DATABASE_URL": primary, "DATABASE_READ_URLS": "sqlite:replica.sqlite"])
        }
        // Several hosts, as libpq writes them: the primary is whichever takes writes.
        let hosts = try DatabaseLocation(parsing: "postgres://app:s%40cret@db1:5432,db2:5433,db3/sportlook")
        guard case .postgres(let address) = hosts else { throw ClusterError("not PostgreSQL") }
        #expect(address.hosts == [.init(host: "db1", port: 5432), .init(host: "db2", port: 5433), .init(host: "db3", port: 5432)])
        #expect(address.password == "s@cret" && address.database == "sportlook" && address.user == "app")
        #expect(hosts.description == "postgres://app@db1:5432,db2:5433,db3:5432/sportlook")
        for bad in ["postgres://app@db1:5432,/sportlook", "postgres://app@db1,db2:99999/sportlook", "postgres://app@db1,db2:x/sportlook"] {
            #expect(throws: ConfigurationError.self) { try DatabaseLocation(parsing: bad) }
        }
        #expect(throws: ConfigurationError.self) {
            try AppConfiguration(environment: ["DATABASE_READ_URLS": "postgres://app@127.0.0.1:5433/sportlook"])
        }
    }
}

extension ReplicaTests {
    @Test("a caller's write through one instance is seen by their next read through another")
    func readYourWritesAcrossInstances() async throws {
        TestCounter.record(.postgres)
        let cluster = ReplicatedCluster.shared
        for index in 0..<2 { try await cluster.holdBack(index, false) }
        let (primary, replicas) = try await cluster.freshDatabase()
        var configuration = testConfiguration(on: .postgres(primary))
        configuration.databaseReadReplicas = replicas
        let clock = ManualClock(Date().wholeMilliseconds)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let (first, firstServices) = try await makeApplication(configuration, clock: clock, logger: logger)
        let (second, secondServices) = try await makeApplication(configuration, clock: clock, logger: logger)
        defer { Task { await cluster.drop(primary) } }
        try await first.test(.router) { one in
            try await second.test(.router) { two in
                let (one, two) = (API(client: one), API(client: two))
                try await firstServices.waitUntilWarm()
                try await secondServices.waitUntilWarm()
                try await eventually("bus listeners") {
                    firstServices.bus.isListening && secondServices.bus.isListening
                        && firstServices.database.replicas?.isListening == true && secondServices.database.replicas?.isListening == true
                }
                let alex = try await one.register("Alex")
                let sam = try await one.register("Sam")
                for index in 0..<2 { try await cluster.waitUntilReplayed(index) }
                for services in [firstServices, secondServices] {
                    try await states(of: try #require(services.database.replicas), are: ["up", "up"])
                }
                for index in 0..<2 { try await cluster.holdBack(index, true) }
                // Written through the first, read through the second once it has heard of it
                // (NOTIFY, as the write answers).
                try await rename(alex.token, to: "Alexandra", one)
                let told = try #require(firstServices.database.replicas?.position(of: alex.id.uppercased()))
                try await eventually("the second instance hears of Alex's commit") {
                    (secondServices.database.replicas?.position(of: alex.id.uppercased()) ?? 0) >= told
                }
                await secondServices.database.replicas?.check()
                #expect(try await name(of: alex.id, as: alex.token, two) == "Alexandra")
                #expect(try await name(of: alex.id, as: sam.token, two) == "Alex")
                // A new account made through the second is seen through the first.
                let casey = try await two.register("Casey")
                try await eventually("the first instance hears of Casey's commit") {
                    (try? await name(of: casey.id, as: casey.token, one)) == "Casey"
                }
            }
        }
        for index in 0..<2 { try await cluster.holdBack(index, false) }
    }
}

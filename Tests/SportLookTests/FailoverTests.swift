import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// The primary lost and a replica promoted in its place, on a cluster of its own (a
/// primary, two `pg_basebackup -R` replicas): `DATABASE_URL` names the primary and the
/// first replica (`host1:port1,host2:port2`), `DATABASE_READ_URLS` the second.
@Suite("Failover", .serialized, .timeLimit(.minutes(10)))
struct FailoverTests {
    struct Named: Decodable { var name: String }

    @Test("primary lost: reads answer from a replica, writes 503 read_only at once; promoted: writes resume, nothing acknowledged lost")
    func failover() async throws {
        TestCounter.record(.postgres)
        let cluster = ReplicatedCluster()
        do {
            try await failover(on: cluster)
        } catch {
            await cluster.stopAll()
            throw error
        }
        await cluster.stopAll()
    }

    func failover(on cluster: ReplicatedCluster) async throws {
        let (primary, replicas) = try await cluster.freshDatabase()
        var configuration = testConfiguration(on: .postgres(primary))
        configuration.database = .postgres(
            PostgresAddress(
                host: primary.host, port: primary.port, user: primary.user, password: nil, database: primary.database,
                otherHosts: [PostgresHost(host: replicas[0].host, port: replicas[0].port)]))
        configuration.databaseReadReplicas = [replicas[1]]
        // How long an outage takes to be told is measured by scripts/failover_test.py;
        // here the test's own bound stands, as the whole suite loads the machine.
        var logger = Logger(label: "test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["SPORTLOOK_TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        let (application, services) = try await makeApplication(configuration, logger: logger)
        try await application.test(.live) { client in
            let api = API(client: client)
            try await services.waitUntilWarm()
            let alex = try await api.register("Alex")
            let sam = try await api.register("Sam")
            let game = try await api.createEvent(alex.token, now: Date())
            try await api.join(game.id, token: sam.token)
            for n in 1...5 {
                try await api.sendMessage("before \(n)", clientID: "before-\(n)", to: game.id, token: n % 2 == 0 ? alex.token : sam.token)
            }
            _ = try await api.patch("/v1/me", token: alex.token, json: ["name": "Alexandra"]).decode(Named.self, expecting: .ok)
            for index in 0..<2 { try await cluster.waitUntilReplayed(index) }
            await services.database.replicas?.check()

            let socket = try await TestSocket.subscribed(try socketURL(api), token: alex.token, to: game.id)
            try await cluster.stopPrimary()
            // The bus's listener loses its connection: the instance looks for the primary
            // at once, finds none, and turns read-only before any call waits for one.
            try await eventually("the instance notices the loss by itself") { services.database.isReadOnly }
            // A write finds no primary: refused as read-only, at once.
            let refused = try await api.patch("/v1/me", token: sam.token, json: ["name": "Samuel"])
            #expect(refused.status == .serviceUnavailable)
            #expect(try refused.errorCode == "read_only")
            #expect(refused.headers[.retryAfter] != nil)
            // The socket stays open and is told, once.
            #expect(try await socket.waitFor("told writes stopped") { $0.type == "database" }.database?.writable == false)
            // One opened meanwhile is told as it opens, though the replica missed its last
            // check (a busy moment): with no primary, a read asks the replicas again.
            let readReplicas = try #require(services.database.replicas)
            for replica in readReplicas.replicas { readReplicas.lost(replica) }
            let during = try await TestSocket.connect(try socketURL(api), token: sam.token)
            #expect(try await during.waitFor("told on opening") { $0.type == "database" }.database?.writable == false)
            await during.close()
            // Read-only, later writes are refused at once and reads still answer.
            let chat = try await api.post(
                "/v1/events/\(game.id)/messages", token: sam.token, json: ["body": "lost?", "client_id": "during-1"])
            #expect(chat.status == .serviceUnavailable)
            #expect(try chat.errorCode == "read_only")
            #expect(try await api.get("/v1/users/\(alex.id)", token: sam.token).decode(Named.self, expecting: .ok).name == "Alexandra")
            #expect(try await api.messages(game.id, token: sam.token).map(\.body) == (1...5).map { "before \($0)" })

            // Promoted: writes resume without a restart, each refused one answered read_only meanwhile.
            try await cluster.promote(0)
            try await eventually("writes resume on the promoted replica") {
                let reply = try await api.post(
                    "/v1/events/\(game.id)/messages", token: sam.token, json: ["body": "after", "client_id": "after-1"])
                if reply.status == .created { return true }
                #expect(reply.status == .serviceUnavailable)
                return false
            }
            #expect(try await socket.waitFor("told writes resumed") { $0.database?.writable == true }.type == "database")
            #expect(try socket.frames.filter { $0.type == "database" }.map { $0.database?.writable } == [false, true])
            // A socket opened now is not told anything of it.
            let later = try await TestSocket.subscribed(try socketURL(api), token: sam.token, to: game.id)
            let history = try await api.chatHistory(game.id, token: alex.token)
            // Every message acknowledged before the loss, once, and the seqs without a gap.
            #expect(history.map(\.body) == (1...5).map { "before \($0)" } + ["after"])
            #expect(history.map(\.seq) == Array(1...6))
            #expect(try await api.get("/v1/users/\(alex.id)", token: alex.token).decode(Named.self, expecting: .ok).name == "Alexandra")
            // The bus listens again, on the new primary.
            try await eventually("the bus listens on the new primary") { services.bus.isListening }
            #expect(try !later.frames.contains { $0.type == "database" })
            await socket.close()
            await later.close()
        }
    }
}

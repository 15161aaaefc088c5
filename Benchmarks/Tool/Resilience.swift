import ArgumentParser
import Foundation
import Logging
import NIOCore
import SQLKit
import SportLook
import Synchronization

/// A small world for mixed workloads: people, events around one city, sockets in their chats.
struct MixedWorld: Sendable {
    var people: [(token: String, id: String)] = []
    var events: [String] = []
    var sockets: [BenchSocket] = []

    static func make(_ api: Client, port: Int, people count: Int, events eventCount: Int, sockets socketCount: Int, tally: Tally)
        async throws -> MixedWorld
    {
        var world = MixedWorld()
        for i in 0..<count { world.people.append(try await api.register("Mixed\(i)")) }
        var rng = DemoRandom(seed: 5)
        for e in 0..<eventCount {
            let owner = world.people[e % count]
            let reply = try await api.call(
                "POST", "/v1/events", token: owner.token,
                json: [
                    "title": "Mixed \(e)", "sport": "football",
                    "starts_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400 * 2)),
                    "location": ["lat": 48.8566 + rng.normal() * 0.05, "lon": 2.3522 + rng.normal() * 0.07], "capacity": 12,
                ])
            guard let id = reply.object["id"] as? String else { throw BenchError("event: \(reply.status)") }
            world.events.append(id)
        }
        for s in 0..<socketCount {
            let person = world.people[s % count]
            let event = world.events[s % eventCount]
            _ = try await api.call("POST", "/v1/events/\(event)/attendance", token: person.token)
            let socket = try await BenchSocket(url: "ws://127.0.0.1:\(port)/v1/ws", token: person.token) { frame in
                if frame["type"] as? String == "error" { tally.add("error frames") }
                if frame["type"] as? String == "message" { tally.add("frames delivered") }
            }
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            world.sockets.append(socket)
        }
        return world
    }
}

/// Ten minutes of a steady mixed workload: no 5xx, no error frames, memory flat.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak", abstract: "A long mixed workload; checks for 5xx, error frames and memory growth.")
    @OptionGroup var server: ServerOptions
    @Option(help: "Seconds.") var duration = 600
    @Option(help: "Requests per second (plus chat messages over sockets).") var rate = 100

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "1"])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let tally = Tally()
        let world = try await MixedWorld.make(api, port: server.port, people: 60, events: 30, sockets: 30, tally: tally)
        print("world ready; soaking for \(duration) s at \(rate) requests/s")
        let start = ContinuousClock.now
        var memory: [(Int, Double)] = []
        var n = 0
        var lastSample = -1
        try await withThrowingTaskGroup(of: Void.self) { group in
            while ContinuousClock.now - start < .seconds(duration) {
                let due = start + .nanoseconds(Int64(Double(n) / Double(rate) * 1e9))
                if due > ContinuousClock.now { try await Task.sleep(until: due) }
                let elapsed = Int(seconds(ContinuousClock.now - start))
                if elapsed / 10 != lastSample {
                    lastSample = elapsed / 10
                    if let rss = residentMegabytes(pid: process.pid) { memory.append((elapsed, rss)) }
                }
                let i = n
                n += 1
                let person = world.people[i % world.people.count]
                let event = world.events[(i / 7) % world.events.count]
                group.addTask {
                    let reply: Client.Reply
                    switch i % 10 {
                    case 0...3:
                        reply = try await api.call("GET", "/v1/events/nearby?lat=48.86&lon=2.35&radius_km=5&limit=50", token: person.token)
                    case 4, 5: reply = try await api.call("GET", "/v1/events/\(event)", token: person.token)
                    case 6: reply = try await api.call("POST", "/v1/events/\(event)/attendance", token: person.token)
                    case 7: reply = try await api.call("DELETE", "/v1/events/\(event)/attendance", token: person.token)
                    case 8: reply = try await api.call("GET", "/v1/me/notifications", token: person.token)
                    default:
                        world.sockets[i % world.sockets.count].send([
                            "type": "message", "event_id": world.events[(i % world.sockets.count) % world.events.count],
                            "body": "soak \(i)", "client_id": "soak-\(i)",
                        ])
                        reply = try await api.call("GET", "/v1/users/nearby?lat=48.86&lon=2.35&radius_km=5", token: person.token)
                    }
                    tally.add(reply.status >= 500 ? "5xx" : "\(reply.status / 100)xx")
                }
                // Keep the number of requests in flight bounded.
                if n % 500 == 0 { try await group.waitForAll() }
            }
            try await group.waitForAll()
        }
        if let rss = residentMegabytes(pid: process.pid) { memory.append((duration, rss)) }
        let minuteTwo = memory.first { $0.0 >= 120 }?.1 ?? memory.first?.1 ?? 0
        let end = memory.last?.1 ?? 0
        let counts = tally.snapshot
        print("memory (s, MB): " + memory.map { "\($0.0):\(String(format: "%.0f", $0.1))" }.joined(separator: " "))
        print(
            "| \(duration) s | \(n) requests (\(counts["2xx"] ?? 0) 2xx, \(counts["4xx"] ?? 0) 4xx, \(counts["5xx"] ?? 0) 5xx) | \(counts["frames delivered"] ?? 0) chat frames, \(counts["error frames"] ?? 0) error frames | \(String(format: "%.0f", minuteTwo)) MB at 2:00 | \(String(format: "%.0f", end)) MB at the end | \(String(format: "%+.1f", (end - minuteTwo) / max(1, minuteTwo) * 100)) % |"
        )
        fflush(nil)
        for socket in world.sockets { socket.close() }
    }
}

/// The database goes away under load and comes back.
struct OutageBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outage",
        abstract: "Stops PostgreSQL under load; checks 503s, /health, /ready, recovery and that nothing accepted is lost.")
    @OptionGroup var server: ServerOptions
    @Option(help: "Shell command that stops the database.") var stopCommand: String
    @Option(help: "Shell command that starts it again.") var startCommand: String
    @Option var before = 10
    @Option var down = 15
    @Option var after = 20
    @Option(help: "Requests per second.") var rate = 40

    /// What the API accepted during the run: message client ids by event, invitations.
    final class Accepted: Sendable {
        let messages = Mutex<[String: [String]]>([:])
        let invitations = Mutex<Int>(0)
    }

    final class Record: Sendable {
        let rows = Mutex<[(at: Double, kind: String, status: Int, latency: Double)]>([])
        func add(_ at: Double, _ kind: String, _ status: Int, _ latency: Double) {
            rows.withLock { $0.append((at, kind, status, latency)) }
        }
    }

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "2", "DATABASE_TIMEOUT": "3s"])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let tally = Tally()
        let world = try await MixedWorld.make(api, port: server.port, people: 20, events: 10, sockets: 10, tally: tally)
        let record = Record()
        let accepted = Accepted()
        let start = ContinuousClock.now
        let now: @Sendable () -> Double = { seconds(ContinuousClock.now - start) }
        let total = before + down + after
        var stopAt: Double = 0
        var startAt: Double = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The outage itself.
            group.addTask {
                try await Task.sleep(for: .seconds(before))
                _ = try await Spawned.shell(stopCommand)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(before + down))
                _ = try await Spawned.shell(startCommand)
            }
            // Probes, every 250 ms.
            group.addTask {
                while now() < Double(total) {
                    for path in ["/health", "/ready"] {
                        let t = now()
                        let s = ContinuousClock.now
                        let status = (try? await api.call("GET", path, timeout: .seconds(30)).status) ?? 0
                        record.add(t, path, status, seconds(ContinuousClock.now - s))
                    }
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            // Load.
            var n = 0
            while now() < Double(total) {
                let due = start + .nanoseconds(Int64(Double(n) / Double(rate) * 1e9))
                if due > ContinuousClock.now { try await Task.sleep(until: due) }
                let i = n
                n += 1
                let person = world.people[i % world.people.count]
                let event = world.events[i % world.events.count]
                group.addTask {
                    let t = now()
                    let s = ContinuousClock.now
                    var kind = "read"
                    var status = 0
                    switch i % 4 {
                    case 0:
                        kind = "chat"
                        let owner = world.people[(i % world.events.count) % world.people.count]
                        let reply = try? await api.call(
                            "POST", "/v1/events/\(event)/messages", token: owner.token,
                            json: ["body": "outage \(i)", "client_id": "o\(i)"], timeout: .seconds(30))
                        status = reply?.status ?? 0
                        if status == 201 { accepted.messages.withLock { $0[event, default: []].append("o\(i)") } }
                    case 1:
                        kind = "invite"
                        let owner = world.people[(i % world.events.count) % world.people.count]
                        let guest = world.people[(i / 4 + 1) % world.people.count]
                        let reply = try? await api.call(
                            "POST", "/v1/events/\(event)/invitations", token: owner.token, json: ["user_ids": [guest.id]],
                            timeout: .seconds(30))
                        status = reply?.status ?? 0
                        if status == 201 { accepted.invitations.withLock { $0 += 1 } }
                    default:
                        status =
                            (try? await api.call(
                                "GET", i % 4 == 2 ? "/v1/events/\(event)" : "/v1/events/nearby?lat=48.86&lon=2.35&radius_km=10",
                                token: person.token, timeout: .seconds(30)
                            ).status) ?? 0
                    }
                    record.add(t, kind, status, seconds(ContinuousClock.now - s))
                }
            }
            try await group.waitForAll()
            stopAt = Double(before)
            startAt = Double(before + down)
        }
        // Afterwards: every accepted message is stored, every queued job delivered.
        let owner = world.people[0]
        var missing = 0
        for (event, clientIDs) in accepted.messages.withLock({ $0 }) {
            var stored = Set<String>()
            var after = 0
            while true {
                let page = try await api.call(
                    "GET", "/v1/events/\(event)/messages?after_seq=\(after)&limit=100",
                    token: world.people[(world.events.firstIndex(of: event) ?? 0) % world.people.count].token)
                let items = page.object["items"] as? [[String: Any]] ?? []
                for item in items { if let c = item["client_id"] as? String { stored.insert(c) } }
                guard let last = items.last?["seq"] as? Int, items.count == 100 else { break }
                after = last
            }
            missing += Set(clientIDs).subtracting(stored).count
        }
        _ = owner
        // Every job queued by an accepted invitation gets delivered.
        var logger = Logger(label: "outage")
        logger.logLevel = .critical
        let database = try await Database.open(try DatabaseLocation(parsing: server.databaseURL), poolSize: 2, timeout: 30, logger: logger)
        var pendingJobs = -1
        var deliveredJobs = 0
        for _ in 0..<120 {
            (pendingJobs, deliveredJobs) = try await database.read { sql in
                let pending =
                    try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE state IN ('queued', 'running')").first()?.decode(
                        column: "n", as: Int.self) ?? 0
                let done =
                    try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE state = 'done' AND kind = 'invitation'").first()?.decode(
                        column: "n", as: Int.self) ?? 0
                return (pending, done)
            }
            if pendingJobs == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        await database.close()
        let rows = record.rows.withLock { $0 }
        let during = rows.filter { $0.at >= stopAt && $0.at < startAt && $0.kind != "/health" && $0.kind != "/ready" }
        let health = rows.filter { $0.kind == "/health" }
        let ready = rows.filter { $0.kind == "/ready" }
        let readyBack = ready.first { $0.at > startAt && $0.status == 200 }.map { $0.at - startAt }
        let slowest = during.map(\.latency).max() ?? 0
        let statuses = Dictionary(grouping: during, by: \.status).mapValues(\.count).sorted { $0.key < $1.key }.map {
            "\($0.value)× \($0.key)"
        }.joined(separator: ", ")
        let after500 = rows.filter { $0.status >= 500 && $0.status != 503 }.count
        let acceptedCount = accepted.messages.withLock { $0.values.reduce(0) { $0 + $1.count } }
        print("during the outage: \(statuses); slowest answer \(formatLatency(slowest))")
        print(
            "| \(down) s down | \(during.count) requests during: \(statuses) | slowest \(formatLatency(slowest)) | /health \(health.allSatisfy { $0.status == 200 } ? "200 throughout" : "NOT always 200") | /ready 503 during: \(ready.contains { $0.at > stopAt + 1 && $0.at < startAt && $0.status == 503 } ? "yes" : "no"), 200 again \(readyBack.map { String(format: "%.1f s", $0) } ?? "never") after restart | \(acceptedCount) messages accepted, \(missing) missing | \(accepted.invitations.withLock { $0 }) invitations accepted, \(deliveredJobs) notifications delivered, \(pendingJobs) jobs left | \(after500) other 5xx |"
        )
        fflush(nil)
        for socket in world.sockets { socket.close() }
    }
}

import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import SQLKit
import SportLook
import Synchronization

/// A push gateway for the benchmarks: answers 200, counts keys.
final class BenchGateway: Sendable {
    let keys = Tally()
    private let task = Mutex<Task<Void, any Error>?>(nil)

    func start() async throws -> Int {
        let router = Router()
        router.post("push") { [keys] request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            keys.add(request.headers[.init("Idempotency-Key")!] ?? "")
            return Response(status: .ok)
        }
        var logger = Logger(label: "gateway")
        logger.logLevel = .error
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        task.withLock { $0 = Task { try await app.run() } }
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? 0
    }

    func stop() { task.withLock { $0?.cancel() } }
}

/// Options shared by the commands that run a server.
struct ServerOptions: ParsableArguments {
    @Option(help: "The sportlook binary.") var sportlook = ".build/release/sportlook"
    @Option(help: "DATABASE_URL of the server under test.") var databaseURL: String
    @Option(help: "Port for the server.") var port = 18_700
    @Option(help: "Where the server logs.") var serverLog = "/tmp/sportlook-bench-server.log"
    @Option(
        name: .customLong("server-cpus"),
        help:
            "CPUs the server may run on (taskset's list, e.g. 0), so that the load generator, run with the others, takes none of its time; all when not given."
    )
    var serverCPUs: String?

    func start(_ extra: [String: String] = [:]) throws -> Spawned {
        var environment = [
            "DATABASE_URL": databaseURL, "PORT": String(port), "BCRYPT_COST": "4", "LOG_LEVEL": "warning",
            "RATE_LIMIT_USER": "0", "RATE_LIMIT_GLOBAL": "0", "CHAT_RATE_LIMIT": "100000",
            "INVITE_DAILY_LIMIT": "1000000", "REGISTER_MAX_PER_ADDRESS": "0", "WS_FRAME_RATE": "100000", "WS_FRAME_BURST": "100000",
        ]
        // BENCH_SERVER_LOG_LEVEL=info shows what the server decided (retries and their reasons).
        if let level = ProcessInfo.processInfo.environment["BENCH_SERVER_LOG_LEVEL"] { environment["LOG_LEVEL"] = level }
        for (k, v) in extra { environment[k] = v }
        let command = [sportlook, "serve"]
        return try Spawned(
            serverCPUs.map { ["/usr/bin/taskset", "-c", $0] + command } ?? command, environment: environment, log: serverLog)
    }

    var client: Client { Client(base: "http://127.0.0.1:\(port)") }
}

/// 10,000 invitations end to end: enqueue → inbox + a local push gateway.
struct JobsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "Notifications delivered per second and enqueue-to-delivery latency.")
    @OptionGroup var server: ServerOptions
    @Option(help: "Invitations to send.") var invitations = 10_000
    @Option(help: "Job workers in the server.") var workers = 2
    @Option(help: "Organisers sending invitations at once.") var senders = 8
    @Option(
        help:
            "Invitations per second offered, in requests of 50 spread over the senders; 0 sends them all as fast as the server takes them (a burst, which measures how fast the queue drains)."
    )
    var rate = 0.0

    @Option(
        help:
            "Where pushes go: webhook (a gateway in this process) or apns (Tests/fakes/push_server.py, started by the run script, over TLS and HTTP/2)."
    )
    var channel = "webhook"
    @Option(help: "With --channel apns: the push server's folder (its authority, key and request log).") var pushFolder = ""
    @Option(help: "With --channel apns: the push server's port.") var pushPort = 0
    @Option(help: "With --channel apns: PUSH_TIMEOUT in seconds (JOB_LEASE follows it).") var pushTimeout = 10
    @Option(help: "A CSV file a row is appended to (label, offered, delivered, p50, p99: for a capacity plot).") var csv: String?
    @Option(help: "The row's name in --csv (the database).") var label = "database"

    /// Requests the local APNs answered 200, in its log so far.
    func acceptedByAPNs() -> Int {
        let data = FileHandle(forReadingAtPath: pushFolder + "/requests.jsonl")?.readDataToEndOfFile() ?? Data()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter {
            $0.contains("\"apns\"") && $0.contains("\"status\": 200")
        }.count
    }

    func run() async throws {
        let gateway = BenchGateway()
        let gatewayPort = try await gateway.start()
        var environment = [
            "PUSH_GATEWAY_URL": "http://127.0.0.1:\(gatewayPort)/push", "PUSH_GATEWAY_SECRET": "bench-secret-of-at-least-32-bytes!",
            "JOB_WORKERS": String(workers),
        ]
        // The port pushes go to, whose open connections are counted.
        var target = gatewayPort
        if channel == "apns" {
            struct Apple: Decodable {
                var key_id: String
                var team_id: String
                var topic: String
            }
            let apple = try JSONDecoder().decode(Apple.self, from: Data(contentsOf: URL(fileURLWithPath: pushFolder + "/apns.json")))
            environment.merge([
                "APNS_KEY_FILE": pushFolder + "/apns_key.p8", "APNS_KEY_ID": apple.key_id, "APNS_TEAM_ID": apple.team_id,
                "APNS_TOPIC": apple.topic,
                "APNS_URL": "https://localhost:\(pushPort)", "PUSH_CA_FILE": pushFolder + "/ca.pem",
                "PUSH_TIMEOUT": "\(pushTimeout)s", "JOB_LEASE": "\(max(60, 4 * pushTimeout + 65))s",
            ]) { _, new in new }
            target = pushPort
        }
        // The push service logs every request of the script's runs to one file: this run's are those after now.
        let acceptedBefore = channel == "apns" ? acceptedByAPNs() : 0
        let process = try server.start(environment)
        let connections = ConnectionCounter(port: target)
        defer {
            process.terminate()
            gateway.stop()
            connections.stop()
        }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let database = try await Database.open(try DatabaseLocation(parsing: server.databaseURL), poolSize: 4, timeout: 60, logger: logger)
        let invitees = try await insertPeople(invitations, into: database)
        // Several organisers, each inviting to an event of their own, at once: a
        // queue is measured by how fast it drains, so it must be fed faster.
        var events: [(token: String, id: String)] = []
        for n in 0..<senders {
            let (token, _) = try await api.register("Organiser\(n)")
            let event = try await api.call(
                "POST", "/v1/events", token: token,
                json: [
                    "title": "Benchmark party \(n)", "sport": "dance",
                    "starts_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400)),
                    "location": ["lat": 48.85, "lon": 2.35],
                ])
            guard let id = event.object["id"] as? String else { throw BenchError("create event: \(event.status)") }
            events.append((token, id))
        }
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, event) in events.enumerated() {
                let mine = invitees.enumerated().filter { $0.offset % senders == n }.map(\.element)
                group.addTask {
                    for (k, chunk) in stride(from: 0, to: mine.count, by: 50).enumerated() {
                        if rate > 0 {
                            // Request k of sender n is due when the whole offer reaches it: senders interleave.
                            let due = started + .seconds(Double(k * senders + n) * 50 / rate)
                            if due > ContinuousClock.now { try await Task.sleep(until: due) }
                        }
                        let reply = try await api.call(
                            "POST", "/v1/events/\(event.id)/invitations", token: event.token,
                            json: ["user_ids": mine[chunk..<min(mine.count, chunk + 50)].map { $0.uuidString.lowercased() }])
                        guard reply.status == 201 else { throw BenchError("invite: \(reply.status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let enqueued = seconds(ContinuousClock.now - started)
        while true {
            let done: Int = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE state = 'done' AND kind = 'invitation'").first()?.decode(
                    column: "n", as: Int.self) ?? 0
            }
            if done >= invitations { break }
            guard ContinuousClock.now - started < .seconds(600) else { throw BenchError("only \(done) delivered after 10 minutes") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let rows: [(Date, Date)] = try await database.read { sql in
            try await sql.raw("SELECT enqueued_at, finished_at FROM jobs WHERE kind = 'invitation'").all().map {
                (try $0.decode(column: "enqueued_at", as: Date.self), try $0.decode(column: "finished_at", as: Date.self))
            }
        }
        let inbox: Int = try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM notifications").first()?.decode(column: "n", as: Int.self) ?? 0
        }
        await database.close()
        var latencies = Samples()
        for (enqueuedAt, finishedAt) in rows { latencies.add(finishedAt.timeIntervalSince(enqueuedAt)) }
        let first = rows.map(\.0).min()!
        let last = rows.map(\.1).max()!
        let throughput = Double(rows.count) / last.timeIntervalSince(first)
        let offered = rate > 0 ? "\(formatRate(rate))/s" : "burst"
        let engine = server.databaseURL.hasPrefix("sqlite") ? "SQLite" : "PostgreSQL"
        try appendCSV(
            csv, header: "label,kind,offered,achieved,p50_ms,p99_ms,jobs",
            line: "\(label),step,"
                + String(
                    format: "%.0f,%.1f,%.1f,%.1f,%d", rate, throughput, latencies.percentile(50) * 1_000, latencies.percentile(99) * 1_000,
                    rows.count))
        print(
            "| \(engine) | \(workers) | \(offered) | \(rows.count) | \(String(format: "%.1f", enqueued)) s | \(formatRate(throughput))/s | \(formatLatency(latencies.percentile(50))) | \(formatLatency(latencies.percentile(99))) | \(inbox) | \(gateway.keys.snapshot.count) |"
        )
        // One line per channel for Benchmarks/push/run: what the service received, and the most connections open to it at once.
        let received = channel == "apns" ? acceptedByAPNs() - acceptedBefore : gateway.keys.snapshot.count
        print(
            "PUSH | \(engine) | \(channel == "apns" ? "APNs (HTTP/2 over TLS), PUSH_TIMEOUT \(pushTimeout) s" : "webhook (HTTP/1.1)") | \(workers) | \(offered) | \(rows.count) | \(formatRate(throughput))/s | \(formatLatency(latencies.percentile(50))) | \(formatLatency(latencies.percentile(99))) | \(received) | \(connections.peak) |"
        )
    }
}

/// Counts established TCP connections to a local port (from /proc/net/tcp and tcp6)
/// every 20 ms, keeping the peak.
final class ConnectionCounter: Sendable {
    private let state = Mutex<(peak: Int, running: Bool)>((0, true))

    init(port: Int) {
        let hex = String(format: ":%04X", port)
        Thread.detachNewThread { [self] in
            while state.withLock({ $0.running }) {
                var open = 0
                for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
                    // Read to the end: String(contentsOfFile:) stops after the first 4 KB of a /proc file.
                    guard let data = FileHandle(forReadingAtPath: file)?.readDataToEndOfFile() else { continue }
                    let text = String(decoding: data, as: UTF8.self)
                    for line in text.split(separator: "\n").dropFirst() {
                        let fields = line.split(separator: " ")
                        // local, remote, state: connections whose remote end is the port, established (01).
                        if fields.count > 3, fields[2].hasSuffix(hex), fields[3] == "01" { open += 1 }
                    }
                }
                state.withLock { $0.peak = max($0.peak, open) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    var peak: Int { state.withLock { $0.peak } }
    func stop() { state.withLock { $0.running = false } }
}

/// People with one push device each, written straight into the database.
func insertPeople(_ count: Int, into database: Database) async throws -> [UUID] {
    let ids = (0..<count).map { _ in UUID() }
    let now = Date()
    for chunk in stride(from: 0, to: count, by: 500) {
        let slice = Array(ids[chunk..<min(count, chunk + 500)])
        try await database.transaction { sql in
            var users: SQLQueryString =
                "INSERT INTO users (id, email, email_normalized, name, password_hash, bio, discoverable, version, created_at, updated_at) VALUES "
            var devices: SQLQueryString = "INSERT INTO devices (id, token, user_id, platform, created_at) VALUES "
            for (i, id) in slice.enumerated() {
                let email = "bench-\(id.uuidString.lowercased())@bench.example"
                users +=
                    "\(unsafeRaw: i == 0 ? "" : ", ")(\(bind: id), \(bind: email), \(bind: email), 'Bench person', 'x', '', \(bind: false), 1, \(bind: now), \(bind: now))"
                devices +=
                    "\(unsafeRaw: i == 0 ? "" : ", ")(\(bind: UUID()), \(bind: id.uuidString.replacingOccurrences(of: "-", with: "").lowercased() + String(repeating: "0", count: 32)), \(bind: id), 'ios', \(bind: now))"
            }
            try await sql.raw(users).run()
            try await sql.raw(devices).run()
        }
    }
    return ids
}

/// A socket that counts the messages delivered to it (and error frames), and logs each
/// one's latency from the send time its body starts with (nanoseconds after `origin`).
func deliverySocket(url: String, token: String, origin: ContinuousClock.Instant, tally: Tally, latencies: LatencyLog) async throws
    -> BenchSocket
{
    try await BenchSocket(url: url, token: token) { frame in
        switch frame["type"] as? String {
        case "message":
            tally.add("delivered")
            if let body = (frame["message"] as? [String: Any])?["body"] as? String, let sent = Int64(body.split(separator: " ").first ?? "")
            {
                latencies.add(seconds(ContinuousClock.now - origin) - Double(sent) / 1e9)
            }
        case "subscribed": tally.add("subscribed")
        case "error": tally.add("error frames")
        default: break
        }
    }
}

/// Waits until `count` subscriptions are confirmed (sending starts on a settled server).
func waitForSubscriptions(_ tally: Tally, _ count: Int) async throws {
    let start = ContinuousClock.now
    while (tally.snapshot["subscribed"] ?? 0) < count {
        guard ContinuousClock.now - start < .seconds(300) else {
            throw BenchError("only \(tally.snapshot["subscribed"] ?? 0) of \(count) subscriptions confirmed")
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// `rooms` event rooms of `perRoom` people each (registered; the first organises, the
/// others join): each room's id and its people.
func eventRooms(_ api: Client, rooms: Int, perRoom: Int, prefix: String) async throws -> [(
    id: String, people: [(token: String, id: String)]
)] {
    var made: [(id: String, people: [(token: String, id: String)])] = []
    for r in 0..<rooms {
        var people: [(token: String, id: String)] = []
        for m in 0..<perRoom { people.append(try await api.register("\(prefix)\(r)M\(m)")) }
        let event = try await api.call(
            "POST", "/v1/events", token: people[0].token,
            json: [
                "title": "Room \(r)", "sport": "running",
                "starts_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400)),
                "location": ["lat": 48.85, "lon": 2.35],
            ])
        guard let id = event.object["id"] as? String else { throw BenchError("event: \(event.status)") }
        for person in people.dropFirst() { _ = try await api.call("POST", "/v1/events/\(id)/attendance", token: person.token) }
        made.append((id, people))
    }
    return made
}

/// Calls `send(n)` for n in 0..<`count`, the n-th at `n / rate` seconds after now,
/// whatever the answers (an open loop); the seconds it took.
func onSchedule(rate: Int, count: Int, _ send: (Int) throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    for n in 0..<count {
        let due = start + .nanoseconds(Int64(Double(n) / Double(rate) * 1e9))
        if due > ContinuousClock.now { try await Task.sleep(until: due) }
        try send(n)
    }
    return seconds(ContinuousClock.now - start)
}

/// Many sockets in many rooms; messages at a steady rate; delivery latency.
struct ChatBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "WebSocket chat: end-to-end delivery latency under load.")
    @OptionGroup var server: ServerOptions
    @Option var clients = 1_000
    @Option var rooms = 100
    @Option(help: "Messages per second, all rooms together.") var rate = 200
    @Option(help: "Seconds of sending.") var duration = 60
    @Option(help: "Instead of event rooms: this many two-person conversations among the clients (each client in several), all open.")
    var conversations = 0
    @Option(help: "With --conversations: the rooms one person's chats list holds, read this many times.") var listRooms = 500
    @Option var listReads = 2_000

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "1"])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        if conversations > 0 {
            try await runConversations(api)
            return
        }
        let perRoom = clients / rooms
        let origin = ContinuousClock.now
        let latencies = LatencyLog()
        let tally = Tally()
        let made = try await eventRooms(api, rooms: rooms, perRoom: perRoom, prefix: "R")
        let roomIDs = made.map(\.id)
        let members = made.map(\.people)
        print("set up \(rooms) rooms × \(perRoom) people in \(ContinuousClock.now - origin)")
        var sockets: [[BenchSocket]] = []
        let url = "ws://127.0.0.1:\(server.port)/v1/ws"
        for (r, people) in members.enumerated() {
            var row: [BenchSocket] = []
            for person in people {
                let socket = try await deliverySocket(url: url, token: person.token, origin: origin, tally: tally, latencies: latencies)
                socket.send(["type": "subscribe", "room_id": roomIDs[r], "after_seq": 0])
                row.append(socket)
            }
            sockets.append(row)
        }
        try await waitForSubscriptions(tally, clients)
        print("\(clients) sockets subscribed after \(ContinuousClock.now - origin)")
        try await Task.sleep(for: .seconds(2))
        let total = rate * duration
        let sendTime = try await onSchedule(rate: rate, count: total) { n in
            let r = n % rooms
            let m = (n / rooms) % perRoom
            let stamp = Int64(seconds(ContinuousClock.now - origin) * 1e9)
            sockets[r][m].send(["type": "message", "room_id": roomIDs[r], "body": "\(stamp) hello from \(m)", "client_id": "b\(n)"])
        }
        try await Task.sleep(for: .seconds(5))
        let delivered = tally.snapshot["delivered"] ?? 0
        let expected = total * perRoom
        let samples = latencies.samples
        print(
            "| \(clients) sockets, \(rooms) rooms | \(total) messages in \(String(format: "%.1f", sendTime)) s | \(delivered)/\(expected) delivered | \(formatRate(Double(delivered) / sendTime))/s | \(formatLatency(samples.percentile(50))) | \(formatLatency(samples.percentile(99))) | \(tally.snapshot["error frames"] ?? 0) error frames |"
        )
        for row in sockets { for socket in row { socket.close() } }
    }

    /// `clients` people, each with one socket, in `conversations` conversations (each
    /// person in several; they share an event, so every conversation is open); messages
    /// at `rate`, each delivered to both people's sockets. Then one person's chats list
    /// of `listRooms` rooms, read `listReads` times.
    func runConversations(_ api: Client) async throws {
        let origin = ContinuousClock.now
        var people: [(token: String, id: String)] = []
        for n in 0..<clients { people.append(try await api.register("C\(n)")) }
        let club = try await api.call(
            "POST", "/v1/events", token: people[0].token,
            json: [
                "title": "Club", "sport": "running", "starts_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400)),
                "location": ["lat": 48.85, "lon": 2.35],
            ])
        guard let clubID = club.object["id"] as? String else { throw BenchError("event: \(club.status)") }
        for person in people.dropFirst() { _ = try await api.call("POST", "/v1/events/\(clubID)/attendance", token: person.token) }
        // Pair k: person a = k mod n with a + 1 + k / n: distinct pairs, everyone in 2·N/n.
        var pairs: [(a: Int, b: Int, room: String)] = []
        var roomsOf = [[String]](repeating: [], count: clients)
        for k in 0..<conversations {
            let a = k % clients
            let b = (a + 1 + k / clients) % clients
            let reply = try await api.call("POST", "/v1/conversations", token: people[a].token, json: ["user_id": people[b].id])
            guard let id = reply.object["id"] as? String else { throw BenchError("conversation: \(reply.status)") }
            pairs.append((a, b, id))
            roomsOf[a].append(id)
            roomsOf[b].append(id)
        }
        print("set up \(clients) people in \(conversations) conversations in \(ContinuousClock.now - origin)")
        let latencies = LatencyLog()
        let tally = Tally()
        let url = "ws://127.0.0.1:\(server.port)/v1/ws"
        var sockets: [BenchSocket] = []
        for (n, person) in people.enumerated() {
            let socket = try await deliverySocket(url: url, token: person.token, origin: origin, tally: tally, latencies: latencies)
            for room in roomsOf[n] { socket.send(["type": "subscribe", "room_id": room, "after_seq": 0]) }
            sockets.append(socket)
        }
        try await waitForSubscriptions(tally, conversations * 2)
        print("\(clients) sockets in \(conversations * 2) subscriptions after \(ContinuousClock.now - origin)")
        try await Task.sleep(for: .seconds(2))
        let total = rate * duration
        let sendTime = try await onSchedule(rate: rate, count: total) { n in
            let pair = pairs[n % conversations]
            let from = (n / conversations) % 2 == 0 ? pair.a : pair.b
            let stamp = Int64(seconds(ContinuousClock.now - origin) * 1e9)
            sockets[from].send(["type": "message", "room_id": pair.room, "body": "\(stamp) hello", "client_id": "b\(n)"])
        }
        try await Task.sleep(for: .seconds(5))
        let delivered = tally.snapshot["delivered"] ?? 0
        let samples = latencies.samples
        print(
            "| \(clients) sockets, \(conversations) conversations | \(total) messages in \(String(format: "%.1f", sendTime)) s | \(delivered)/\(total * 2) delivered | \(formatRate(Double(delivered) / sendTime))/s | \(formatLatency(samples.percentile(50))) | \(formatLatency(samples.percentile(99))) | \(tally.snapshot["error frames"] ?? 0) error frames |"
        )
        for socket in sockets { socket.close() }

        // One person in `listRooms` rooms (conversations with a message each, and the
        // club): the chats list's first page, read again and again.
        let hub = try await api.register("Hub")
        _ = try await api.call("POST", "/v1/events/\(clubID)/attendance", token: hub.token)
        for n in 0..<min(listRooms - 1, clients) {
            let reply = try await api.call("POST", "/v1/conversations", token: hub.token, json: ["user_id": people[n].id])
            guard let id = reply.object["id"] as? String else { throw BenchError("conversation: \(reply.status)") }
            _ = try await api.call(
                "POST", "/v1/rooms/\(id)/messages", token: people[n].token, json: ["body": "hi hub", "client_id": "hub"])
        }
        let reads = LatencyLog()
        for _ in 0..<listReads {
            let start = ContinuousClock.now
            let reply = try await api.call("GET", "/v1/me/rooms?limit=30", token: hub.token)
            guard reply.status == 200 else { throw BenchError("rooms: \(reply.status)") }
            reads.add(seconds(ContinuousClock.now - start))
        }
        let list = reads.samples
        print(
            "ROOMS | GET /v1/me/rooms (30 of \(min(listRooms - 1, clients) + 1) rooms, one client) | \(listReads) reads | p50 \(formatLatency(list.percentile(50))) | p99 \(formatLatency(list.percentile(99))) |"
        )
    }
}

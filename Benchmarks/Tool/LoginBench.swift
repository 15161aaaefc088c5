import ArgumentParser
import Foundation
import SportLook
import Synchronization

/// Login latency at bcrypt cost 12, and GET /v1/me while 8 logins run at once:
/// bcrypt runs on threads of its own, so reads stay fast. Then a registration
/// flood from one address: offered at a constant rate (an open loop: the rate does
/// not fall when the server slows), and from 64 clients registering as fast as
/// they are answered (a closed loop that takes all the CPU the load generator can
/// get), with the per-address limit (answered 429 at once) and without it (the
/// hashing queue is full: 503 at once): /v1/me p99 during each, and what the flood got.
/// As the reference, the same constant rate of `GET /health`, which costs the server
/// nothing but HTTP: what any traffic of that rate costs /v1/me on the same CPU.
struct LoginBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "bcrypt cost 12: login latency, and /v1/me p99 under 8 concurrent logins.")
    @OptionGroup var server: ServerOptions
    @Option var cost = 12
    @Option(name: .customLong("seconds"), help: "Seconds of the concurrent phase.") var duration = 15
    @Option(help: "Clients in the registration flood.") var flooders = 64
    @Option(help: "Seconds of each registration flood.") var floodSeconds = 10
    @Option(help: "Registrations per second offered in the constant-rate flood.") var floodRate = 2_000

    func run() async throws {
        let process = try server.start(["BCRYPT_COST": String(cost), "REGISTER_MAX_PER_ADDRESS": "20"])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let email = "login-bench@bench.example"
        let password = "benchmark password"
        let registered = try await api.call("POST", "/v1/auth/register", json: ["name": "Login", "email": email, "password": password])
        guard let token = registered.object["access_token"] as? String else { throw BenchError("register: \(registered.status)") }
        var logins = Samples()
        for _ in 0..<10 {
            let start = ContinuousClock.now
            let reply = try await api.call("POST", "/v1/auth/login", json: ["email": email, "password": password])
            guard reply.status == 200 else { throw BenchError("login: \(reply.status)") }
            logins.add(seconds(ContinuousClock.now - start))
        }
        @Sendable func readMe(for duration: Duration) async throws -> Samples { try await Self.readMe(api, token: token, for: duration) }
        let quiet = try await readMe(for: .seconds(5))
        let loginCount = Tally()
        // Both at once (a tuple of awaits would run them one after the other).
        async let busyReads = readMe(for: .seconds(duration))
        async let logging: Void = withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let end = ContinuousClock.now + .seconds(duration)
                    while ContinuousClock.now < end {
                        _ = try await api.call("POST", "/v1/auth/login", json: ["email": email, "password": password])
                        loginCount.add("logins")
                    }
                }
            }
            try await group.waitForAll()
        }
        let busy = try await busyReads
        try await logging
        print(
            "| \(cost) | \(formatLatency(logins.percentile(50))) | \(formatLatency(logins.percentile(99))) | \(formatLatency(quiet.percentile(50))) / \(formatLatency(quiet.percentile(99))) | \(formatLatency(busy.percentile(50))) / \(formatLatency(busy.percentile(99))) (\(busy.count) reads) | \(loginCount.snapshot["logins"] ?? 0) logins in \(duration) s |"
        )
        let reference = try await flood(rate: floodRate, path: "/health") { try await readMe(for: $0) }
        let paced = try await flood(rate: floodRate) { try await readMe(for: $0) }
        let limited = try await flood { try await readMe(for: $0) }
        process.terminate()
        // Again without the per-address limit: only the hashing queue stands in the way.
        let unlimited = try server.start(["BCRYPT_COST": String(cost), "REGISTER_MAX_PER_ADDRESS": "0"])
        defer { unlimited.terminate() }
        _ = try await api.waitUntilReady(of: unlimited)
        let loggedIn = try await api.call("POST", "/v1/auth/login", json: ["email": email, "password": password])
        guard let token2 = loggedIn.object["access_token"] as? String else { throw BenchError("login: \(loggedIn.status)") }
        let open = try await flood { try await Self.readMe(api, token: token2, for: $0) }
        print("FLOOD | reference: GET /health, \(formatRate(Double(floodRate)))/s offered | \(reference)")
        print("FLOOD | REGISTER_MAX_PER_ADDRESS=20, \(formatRate(Double(floodRate)))/s offered | \(paced)")
        print("FLOOD | REGISTER_MAX_PER_ADDRESS=20, \(flooders) clients as fast as answered | \(limited)")
        print("FLOOD | REGISTER_MAX_PER_ADDRESS=0, \(flooders) clients as fast as answered | \(open)")
    }

    /// GET /v1/me one after another for `duration`: each one's latency.
    static func readMe(_ api: Client, token: String, for duration: Duration) async throws -> Samples {
        var samples = Samples()
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            let start = ContinuousClock.now
            _ = try await api.call("GET", "/v1/me", token: token)
            samples.add(seconds(ContinuousClock.now - start))
        }
        return samples
    }

    /// Registrations of new accounts for `floodSeconds` while /v1/me is read: with a
    /// `rate`, that many a second on schedule (at most 1,024 in flight; a request that
    /// finds them all taken is counted as "not sent"); without, `flooders` clients each
    /// sending the next as soon as the last is answered. A table row's cells (answers
    /// by status, their p99, /v1/me p50 / p99). With a `path`, GETs of it instead of registrations.
    func flood(rate: Int? = nil, path: String? = nil, readMe: @escaping @Sendable (Duration) async throws -> Samples) async throws -> String
    {
        let api = server.client
        let statuses = Tally()
        let answers = LatencyLog()
        let span = Duration.seconds(floodSeconds)
        let flooders = self.flooders
        @Sendable func register(_ tag: String) async throws {
            let start = ContinuousClock.now
            let reply =
                if let path {
                    try await api.call("GET", path)
                } else {
                    try await api.call(
                        "POST", "/v1/auth/register",
                        json: [
                            "name": "Flood", "email": "flood-\(tag)-\(UInt32.random(in: 0...UInt32.max))@bench.example",
                            "password": "benchmark password",
                        ])
                }
            answers.add(seconds(ContinuousClock.now - start))
            statuses.add(String(reply.status))
        }
        async let reads = readMe(span)
        async let flooding: Void = withThrowingTaskGroup(of: Void.self) { group in
            if let rate {
                let start = ContinuousClock.now
                let inFlight = InFlight()
                for n in 0..<(rate * Int(span.components.seconds)) {
                    try await Task.sleep(until: start + .seconds(Double(n) / Double(rate)), clock: .continuous)
                    guard inFlight.count.add(1, ordering: .relaxed).newValue <= 1_024 else {
                        inFlight.count.subtract(1, ordering: .relaxed)
                        statuses.add("not sent")
                        continue
                    }
                    group.addTask {
                        defer { inFlight.count.subtract(1, ordering: .relaxed) }
                        try await register("paced-\(n)")
                    }
                }
            } else {
                for worker in 0..<flooders {
                    group.addTask {
                        let end = ContinuousClock.now + span
                        var n = 0
                        while ContinuousClock.now < end {
                            n += 1
                            try await register("\(worker)-\(n)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (readSamples, _) = try await (reads, flooding)
        let counts = statuses.snapshot.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
        return
            "\(counts) | \(formatLatency(answers.samples.percentile(99))) | \(formatLatency(readSamples.percentile(50))) / \(formatLatency(readSamples.percentile(99))) (\(readSamples.count) reads) |"
    }

}

/// Requests of the paced flood in flight.
final class InFlight: Sendable {
    let count = Atomic<Int>(0)
}

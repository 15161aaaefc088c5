import ArgumentParser
import Foundation
import SportLook

/// Login latency at bcrypt cost 12, and GET /v1/me while 8 logins run at once:
/// bcrypt runs on threads of its own, so reads stay fast.
struct LoginBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "bcrypt cost 12: login latency, and /v1/me p99 under 8 concurrent logins.")
    @OptionGroup var server: ServerOptions
    @Option var cost = 12
    @Option(name: .customLong("seconds"), help: "Seconds of the concurrent phase.") var duration = 15

    func run() async throws {
        let process = try server.start(["BCRYPT_COST": String(cost)])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let email = "login-bench@bench.example", password = "benchmark password"
        let registered = try await api.call("POST", "/v1/auth/register", json: ["name": "Login", "email": email, "password": password])
        guard let token = registered.object["access_token"] as? String else { throw BenchError("register: \(registered.status)") }
        var logins = Samples()
        for _ in 0..<10 {
            let start = ContinuousClock.now
            let reply = try await api.call("POST", "/v1/auth/login", json: ["email": email, "password": password])
            guard reply.status == 200 else { throw BenchError("login: \(reply.status)") }
            logins.add(seconds(ContinuousClock.now - start))
        }
        func readMe(for duration: Duration) async throws -> Samples {
            var samples = Samples()
            let end = ContinuousClock.now + duration
            while ContinuousClock.now < end {
                let start = ContinuousClock.now
                _ = try await api.call("GET", "/v1/me", token: token)
                samples.add(seconds(ContinuousClock.now - start))
            }
            return samples
        }
        let quiet = try await readMe(for: .seconds(5))
        let stop = StopFlag()
        let loginCount = Tally()
        let (busy, _) = try await (readMe(for: .seconds(duration)), withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let end = ContinuousClock.now + .seconds(duration)
                    while ContinuousClock.now < end && !stop.isSet {
                        _ = try await api.call("POST", "/v1/auth/login", json: ["email": email, "password": password])
                        loginCount.add("logins")
                    }
                }
            }
            try await group.waitForAll()
        })
        print("| \(cost) | \(formatLatency(logins.percentile(50))) | \(formatLatency(logins.percentile(99))) | \(formatLatency(quiet.percentile(50))) / \(formatLatency(quiet.percentile(99))) | \(formatLatency(busy.percentile(50))) / \(formatLatency(busy.percentile(99))) (\(busy.count) reads) | \(loginCount.snapshot["logins"] ?? 0) logins in \(duration) s |")
    }
}

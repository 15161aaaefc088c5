import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("Sign-in throttles and password hashing under strangers", .timeLimit(.minutes(10)))
struct SignInThrottleTests {
    @Test("40 concurrent wrong passwords for one account: at most LOGIN_MAX_FAILURES are checked", arguments: engines)
    func concurrentGuesses(engine: DatabaseEngine) async throws {
        try await withApp(engine, configure: { $0.loginMaxFailures = 5 }) { api, _ in
            try await api.register("Target", email: "target@example.com", password: "right horse battery")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<40 {
                    group.addTask {
                        try await api.post("/v1/auth/login", json: ["email": "target@example.com", "password": "wrong guess \(i)"]).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count <= 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count >= 35)
            #expect(statuses.allSatisfy { $0 == .unauthorized || $0 == .tooManyRequests })
            // Guesses one at a time after the burst: together, exactly the limit is checked.
            var checked = statuses.filter { $0 == .unauthorized }.count
            while try await api.post("/v1/auth/login", json: ["email": "target@example.com", "password": "one more guess"]).status
                == .unauthorized
            {
                checked += 1
                try #require(checked <= 5)
            }
            #expect(checked == 5)
            // The right password is refused too while the window lasts.
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "target@example.com", "password": "right horse battery"]).status
                    == .tooManyRequests)
        }
    }

    @Test(
        "strangers cannot lock the owner out: guesses from other addresses fill the account's count, the owner's device and address still get in",
        arguments: engines)
    func noLockout(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        let loopback = [try #require(AddressRange(cidr: "127.0.0.0/8")), try #require(AddressRange(cidr: "::1"))]
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                $0.loginMaxFailures = 3
                $0.trustedProxies = loopback
            }
        ) { api, _ in
            let home = "203.0.113.10"
            func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }
            func login(_ password: String, from address: String, deviceKey: String? = nil) async throws -> Reply {
                var body = ["email": "owner@example.com", "password": password]
                if let deviceKey { body["device_key"] = deviceKey }
                return try await api.request(.post, "/v1/auth/login", json: body, headers: from(address))
            }
            let registered = try await api.request(
                .post, "/v1/auth/register", json: ["name": "Owner", "email": "owner@example.com", "password": "right horse battery"],
                headers: from(home)
            ).decode(API.AuthResult.self, expecting: .created)
            // On the road, the owner signs in once from a café: that device gets its own key.
            let phone = try await login("right horse battery", from: "192.0.2.50").decode(API.AuthResult.self, expecting: .ok).deviceKey
            #expect(phone != registered.deviceKey)

            // A stranger guesses from one address until it is refused, then from others:
            // the account's count is full for every address it has not seen.
            for guess in 0..<3 { #expect(try await login("guess \(guess)", from: "198.51.100.1").status == .unauthorized) }
            #expect(try await login("guess 3", from: "198.51.100.1").status == .tooManyRequests)
            for i in 2...5 { #expect(try await login("guess", from: "198.51.100.\(i)").status == .tooManyRequests) }
            #expect(try await login("right horse battery", from: "192.0.2.99").status == .tooManyRequests)
            // A made-up device key is no key at all.
            #expect(
                try await login("right horse battery", from: "192.0.2.99", deviceKey: String(repeating: "A", count: 43)).status
                    == .tooManyRequests)

            // The owner gets in: from home (where the account was made), and with the
            // phone's key from an address never seen before.
            #expect(try await login("right horse battery", from: home).status == .ok)
            for i in 6...9 { _ = try await login("guess", from: "198.51.100.\(i)") }
            #expect(try await login("right horse battery", from: "192.0.2.123", deviceKey: phone).status == .ok)
            // Wrong passwords on the owner's own device count against that device and
            // address alone (a stolen phone still gets only LOGIN_MAX_FAILURES guesses).
            for guess in 0..<3 { #expect(try await login("typo \(guess)", from: "192.0.2.124", deviceKey: phone).status == .unauthorized) }
            #expect(try await login("right horse battery", from: "192.0.2.124", deviceKey: phone).status == .tooManyRequests)
            #expect(try await login("right horse battery", from: home).status == .ok)
            // Known places are the account's own: another account's home is a stranger's address here.
            try await api.register("Other", email: "other@example.com")
            for guess in 0..<3 {
                _ = try await api.request(
                    .post, "/v1/auth/login", json: ["email": "other@example.com", "password": "g\(guess)"], headers: from("198.51.100.20"))
            }
            #expect(
                try await api.request(
                    .post, "/v1/auth/login", json: ["email": "other@example.com", "password": "correct horse battery"], headers: from(home)
                ).status == .tooManyRequests)
            // The window passes: the stranger's count ages out like any other.
            clock.advance(by: 16 * 60)
            #expect(try await login("right horse battery", from: "192.0.2.99").status == .ok)
        }
    }

    @Test("registrations are throttled per address, in their own window", arguments: engines)
    func registrationThrottle(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.registerMaxPerAddress = 3 }) { api, _ in
            for i in 0..<3 { try await api.register("Many\(i)") }
            let refused = try await api.post(
                "/v1/auth/register", json: ["name": "Fourth", "email": "fourth@example.com", "password": "correct horse battery"])
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.errorCode == "too_many_registrations")
            #expect(refused.headers[.retryAfter] != nil)
            // Past the login window (15 min), within the registration window (1 h): a
            // login's clean-up of old attempts leaves the registrations counted.
            clock.advance(by: 16 * 60)
            _ = try await api.post("/v1/auth/login", json: ["email": "nobody@example.com", "password": "whatever it is"])
            #expect(
                try await api.post(
                    "/v1/auth/register", json: ["name": "Fifth", "email": "fifth@example.com", "password": "correct horse battery"]
                ).status == .tooManyRequests)
            clock.advance(by: 45 * 60)
            #expect(
                try await api.post(
                    "/v1/auth/register", json: ["name": "Sixth", "email": "sixth@example.com", "password": "correct horse battery"]
                ).status == .created)
        }
    }

    @Test(
        "a burst of registrations from one address makes exactly the allowed number of accounts, and refusals are not held against it longer than the database would",
        arguments: engines)
    func registrationBurst(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.registerMaxPerAddress = 4 }) { api, _ in
            @Sendable func register(_ tag: String) async throws -> HTTPResponse.Status {
                try await api.post(
                    "/v1/auth/register", json: ["name": "Burst", "email": "\(tag)@example.com", "password": "correct horse battery"]
                ).status
            }
            // Twice the limit at once, each on a connection of its own, so that the server
            // handles them together (the test client sends its requests in turn on its one).
            let port = try #require(api.client.port)
            @Sendable func registerAlone(_ tag: String) async throws -> HTTPResponse.Status {
                let body = Array(#"{"name":"Burst","email":"\#(tag)@example.com","password":"correct horse battery"}"#.utf8)
                let connection = try await RawHTTPClient.open(
                    port: port,
                    head: [
                        "POST /v1/auth/register HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Type: application/json",
                        "Content-Length: \(body.count)", "Connection: close",
                    ])
                do {
                    try await connection.send(body)
                    let status = HTTPResponse.Status(code: try await connection.response().status)
                    await connection.close()
                    return status
                } catch {
                    await connection.close()
                    throw error
                }
            }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<8 { group.addTask { try await registerAlone("burst\(i)") } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .created || $0 == .tooManyRequests })
            // However the burst went, one at a time afterwards the address reaches
            // exactly its limit: a refusal caused by reservations that were then
            // withdrawn is not remembered against it.
            var created = statuses.filter { $0 == .created }.count
            #expect(created <= 4)
            var n = 0
            while created < 4 {
                n += 1
                try #require(n <= 4)
                let status = try await register("after\(n)")
                try #require(status == .created, "registration \(created + 1) of 4 was refused")
                created += 1
            }
            #expect(try await register("one-too-many") == .tooManyRequests)
            // Refused from memory now, until the oldest registration leaves the hour.
            let refused = try await api.post(
                "/v1/auth/register", json: ["name": "Again", "email": "again@example.com", "password": "correct horse battery"])
            #expect(refused.status == .tooManyRequests)
            let retryAfter = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            clock.advance(by: TimeInterval(retryAfter))
            #expect(try await register("next-hour") == .created)
        }
    }

    @Test("an attempt refused for a full hashing queue does not count against the account", arguments: engines)
    func busyIsNotAGuess(engine: DatabaseEngine) async throws {
        try await withApp(
            engine,
            configure: {
                $0.loginMaxFailures = 2
                $0.hashQueueLimit = 1
            }
        ) { api, services in
            try await api.register("Busy", email: "busy@example.com", password: "right horse battery")
            // The only place in the queue is taken, and held until the login below is answered.
            let answered = Seen()
            defer { answered.set() }
            let holding = Task {
                try await services.hasher.holdingPlace { while !answered.value { try await Task.sleep(for: .milliseconds(10)) } }
            }
            try await eventually("someone to take the queue's place") { services.hasher.inFlight == 1 }
            let busy = try await api.post("/v1/auth/login", json: ["email": "busy@example.com", "password": "a wrong guess"])
            answered.set()
            #expect(busy.status == .serviceUnavailable)
            #expect(try busy.errorCode == "busy")
            #expect(busy.headers[.retryAfter] != nil)
            try await holding.value
            // That attempt was not a guess: the account still has both of its own.
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "busy@example.com", "password": "wrong guess one"]).status
                    == .unauthorized)
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "busy@example.com", "password": "wrong guess two"]).status
                    == .unauthorized)
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "busy@example.com", "password": "wrong guess three"]).status
                    == .tooManyRequests)
        }
    }

    @Test("two password changes at once: one wins, the other is refused", arguments: engines)
    func concurrentPasswordChanges(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let (token, _) = try await api.register("Twice", email: "twice@example.com", password: "correct horse battery")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for new in ["first new password", "second new password"] {
                    group.addTask {
                        try await api.post(
                            "/v1/me/password", token: token, json: ["current_password": "correct horse battery", "new_password": new]
                        ).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .noContent }.count == 1)
            #expect(statuses.allSatisfy { $0 == .noContent || $0 == .conflict || $0 == .forbidden })
            var working = 0
            for password in ["first new password", "second new password", "correct horse battery"] {
                if try await api.post("/v1/auth/login", json: ["email": "twice@example.com", "password": password]).status == .ok {
                    working += 1
                }
            }
            #expect(working == 1)
        }
    }

    @Test("a full hashing queue refuses at once")
    func hashingQueue() async throws {
        let hasher = PasswordHasher(cost: 10, threads: 1, queueLimit: 2)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask { (try? await hasher.hash("correct horse battery")) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.contains(true))
        #expect(outcomes.filter { !$0 }.count >= 1)
        #expect(outcomes.filter { $0 }.count < 12)
        await hasher.shutdown()
    }

    #if os(Linux)

        @Test("a hashing thread gives way to requests: it alone moves to the idle scheduling class")
        func hashingThreadsYield() async throws {
            /// The scheduling policy of the calling thread (0 normal, 5 idle), from /proc.
            @Sendable func policy() -> Int? {
                guard let handle = FileHandle(forReadingAtPath: "/proc/thread-self/sched") else { return nil }
                defer { try? handle.close() }
                let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                let line = text.split(separator: "\n").first { $0.hasPrefix("policy") }
                return line.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            }
            let (before, after) = await withCheckedContinuation { continuation in
                Thread {
                    let before = policy()
                    PasswordHasher.yieldingToRequests()
                    continuation.resume(returning: (before, policy()))
                }.start()
            }
            #expect(before == 0)
            #expect(after == 5)
            #expect(policy() == 0, "a thread that did not hash keeps the normal class")
        }
    #endif
}

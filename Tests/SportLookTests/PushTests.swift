import Crypto
import Foundation
import HTTPTypes
import NIOSSL
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("Pushes to phones and browsers", .serialized)
struct PushTests {
    /// A registration as the API answers it.
    struct Device: Decodable, Sendable {
        var id: String
        var platform: String
        var token: String?
        var endpoint: String?
        var environment: String?
        var keys: [String: String]?
        var created_at: String
    }

    struct VapidKey: Decodable, Sendable { var public_key: String }

    // MARK: Units

    @Test("RFC 8291's worked example (Appendix A) encrypts to exactly the RFC's body")
    func rfc8291Example() throws {
        func b(_ text: String) -> [UInt8] { Array(Data(base64URLEncoded: text)!) }
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: b("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        #expect(
            Array(sender.publicKey.x963Representation).base64URLEncodedString()
                == "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        let body = try WebPushCrypto.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8),
            receiverKey: b("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            authSecret: b("BTBZMqHH6r4Tts7J_aSIgg"), senderKey: sender, salt: b("DGv6ra1nlYgDCS1FRnbzlw")
        )
        #expect(
            body.base64URLEncodedString()
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
        // Fresh keys and salt otherwise: the same message never encrypts the same way twice.
        let receiver = P256.KeyAgreement.PrivateKey()
        let one = try WebPushCrypto.encrypt(
            [1, 2, 3], receiverKey: Array(receiver.publicKey.x963Representation), authSecret: Array(repeating: 7, count: 16))
        let two = try WebPushCrypto.encrypt(
            [1, 2, 3], receiverKey: Array(receiver.publicKey.x963Representation), authSecret: Array(repeating: 7, count: 16))
        #expect(one != two)
        #expect(throws: WebPushCrypto.Problem.self) {
            try WebPushCrypto.encrypt(
                Array(repeating: 0, count: WebPushCrypto.maxPlaintext + 1), receiverKey: Array(receiver.publicKey.x963Representation),
                authSecret: Array(repeating: 7, count: 16))
        }
    }

    @Test("endpoints: https on 443 to a public address; loopback only when allowed")
    func endpointPolicy() {
        let strict = PushEndpointPolicy()
        for bad in [
            "http://push.example.com/x", "https://10.0.0.1/x", "https://[::1]/x", "https://127.0.0.1/x", "https://169.254.169.254/latest",
            "https://192.168.1.1/x", "https://[fe80::1]/x", "https://[fc00::1]/x", "https://0.0.0.0/x", "https://224.0.0.1/x",
            "https://[::ffff:10.0.0.1]/x", "https://[64:ff9b::a00:1]/x", "https://push.example.com:8443/x",
            "https://user:pw@push.example.com/x",
        ] {
            #expect(strict.problem(with: URL(string: bad)!) != nil, "\(bad)")
        }
        for good in [
            "https://fcm.googleapis.com/fcm/send/abc", "https://updates.push.services.mozilla.com/wpush/v2/x", "https://8.8.8.8/x",
            "https://localhost/x",
        ] {
            #expect(strict.problem(with: URL(string: good)!) == nil, "\(good)")
        }
        // A name passes registration; its address is judged when sending.
        #expect(strict.refuses(address: "127.0.0.1", port: 443))
        #expect(strict.refuses(address: "fe80::1%eth0", port: 443))
        #expect(strict.refuses(address: "not an address", port: 443))
        #expect(!strict.refuses(address: "2a00:1450:4001::200a", port: 443))
        let tests = PushEndpointPolicy(allowsLoopback: true)
        #expect(tests.problem(with: URL(string: "https://127.0.0.1:8443/x")!) == nil)
        #expect(tests.problem(with: URL(string: "https://10.0.0.1/x")!) != nil)
        #expect(!tests.refuses(address: "::1", port: 9999))
        #expect(tests.refuses(address: "10.1.2.3", port: 443))
    }

    @Test("a push's body is shortened to fit, the JSON never cut")
    func fitting() throws {
        let long = String(repeating: "é🏀", count: 2_000)
        let message = NotificationMessage(
            to: UUID(), .chatMessage, title: "Ana in Padel", body: long, data: ["event_id": .string(UUID().uuidString)],
            collapseKey: "chat:\(UUID()):\(UUID())")
        let content = PushContent(jobID: UUID(), notificationID: UUID(), message: message, badge: 3)
        for bytes in [APNsChannel.payload(content), WebPushChannel.payload(content), FCMChannel.body(content, token: "t")] {
            #expect(bytes.count <= 4_096)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(!object.isEmpty)
        }
        #expect(content.collapseKey(limit: 32)!.count == 32)
    }

    @Test("a name that resolves to loopback is refused when sending, before any connection")
    func refusedAtSendTime() async throws {
        let channel = WebPushChannel(
            vapid: VAPID(key: .init(), subject: "mailto:ops@sportlook.test"),
            clients: PinnedClients(policy: PushEndpointPolicy(), tls: .makeClientConfiguration(), timeout: 5), timeout: 5
        )
        let subscription = WebSubscription.make(endpoint: "https://localhost/push/x")
        let device = PushDevice(
            id: UUID(), platform: .web, token: subscription.endpoint,
            p256dh: Array(subscription.key.publicKey.x963Representation).base64URLEncodedString(),
            auth: subscription.auth.base64URLEncodedString(), createdAt: Date())
        let message = NotificationMessage(to: UUID(), .invitation, title: "t", body: "b", data: [:])
        let outcomes = await channel.send(PushContent(jobID: UUID(), notificationID: UUID(), message: message), to: [device])
        guard case .failed(let reason, _)? = outcomes[device.id] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(reason == "refused_address")
        await channel.close()
    }

    @Test(
        "a name lookup that fails or hangs is tried again later, not a final refusal; one lookup at a time per name; a name that does not exist is refused"
    )
    func lookups() async throws {
        final class Resolver: Sendable {
            /// What each call does, in turn; the last one again after.
            enum Answer: Sendable { case fail, hang, noSuchName, loopback }
            let script: [Answer]
            let calls = Mutex(0)
            init(_ script: [Answer]) { self.script = script }
            func resolve(_ host: String, _ port: Int) async throws -> [String] {
                let n = calls.withLock { n in
                    defer { n += 1 }
                    return n
                }
                // Each lookup takes a moment, so that pushes at once meet it under way.
                try await Task.sleep(for: .milliseconds(100))
                switch script[min(n, script.count - 1)] {
                case .fail: throw PinnedClients.LookupFailed(description: "EAI_AGAIN")
                case .hang:
                    try await Task.sleep(for: .seconds(3_600))
                    return []
                case .noSuchName: throw PinnedClients.NoSuchName()
                case .loopback: return ["127.0.0.1"]
                }
            }
        }
        func outcome(_ resolver: Resolver, pushes: Int = 1) async -> [DeviceOutcome] {
            let channel = WebPushChannel(
                vapid: VAPID(key: .init(), subject: "mailto:ops@sportlook.test"),
                clients: PinnedClients(
                    policy: PushEndpointPolicy(), tls: .makeClientConfiguration(), timeout: 5, resolve: resolver.resolve,
                    lookupLimit: .milliseconds(500), failureMemory: .zero), timeout: 5
            )
            let devices = (0..<pushes).map { _ in
                let subscription = WebSubscription.make(endpoint: "https://push.sportlook.test/push/x")
                return PushDevice(
                    id: UUID(), platform: .web, token: subscription.endpoint,
                    p256dh: Array(subscription.key.publicKey.x963Representation).base64URLEncodedString(),
                    auth: subscription.auth.base64URLEncodedString(), createdAt: Date())
            }
            let message = NotificationMessage(to: UUID(), .invitation, title: "t", body: "b", data: [:])
            let outcomes = await channel.send(PushContent(jobID: UUID(), notificationID: UUID(), message: message), to: devices)
            await channel.close()
            return devices.compactMap { outcomes[$0.id] }
        }
        func isRetry(_ outcome: DeviceOutcome) -> Bool { if case .retry(_, "unreachable", _) = outcome { true } else { false } }

        // The resolver failing now, or not answering: tried again later (it was final before).
        for answer in [Resolver.Answer.fail, .hang] {
            let outcomes = await outcome(Resolver([answer]))
            #expect(outcomes.count == 1 && outcomes.allSatisfy(isRetry), "\(answer): \(outcomes)")
        }
        // Eight pushes to one name at once: one lookup, its answer shared.
        let shared = Resolver([.loopback])
        let clients = PinnedClients(
            policy: PushEndpointPolicy(allowsLoopback: true), tls: .makeClientConfiguration(), timeout: 5, resolve: shared.resolve)
        let url = try #require(URL(string: "https://push.sportlook.test/push/x"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await clients.client(for: url) } }
            try await group.waitForAll()
        }
        await clients.close()
        #expect(shared.calls.withLock { $0 } == 1)
        // The same answer under the policy of a real server: loopback is refused, final.
        let refused = await outcome(Resolver([.loopback]))
        #expect(
            refused.count == 1 && refused.allSatisfy { if case .failed("refused_address", _) = $0 { true } else { false } }, "\(refused)")
        // A name that does not exist: final.
        let missing = await outcome(Resolver([.noSuchName]))
        #expect(
            missing.count == 1 && missing.allSatisfy { if case .failed("refused_address", _) = $0 { true } else { false } }, "\(missing)")
    }

    /// What a push to `host` meets: sent, tried again later, or refused for good.
    private static func attempt(_ clients: PinnedClients, _ host: String) async -> String {
        do {
            _ = try await clients.client(for: URL(string: "https://\(host)/push/x")!)
            return "sent"
        } catch is PinnedClients.LookupFailed {
            return "later"
        } catch is PinnedClients.Refused {
            return "refused"
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "a name's last good answer is used while its lookups fail or hang, until the name is gone; names without one hold at most two lookups at once"
    )
    func lookupMemory() async throws {
        final class Resolver: Sendable {
            enum Answer: Sendable { case loopback, fail, noSuchName, stuck }
            private let answers = Mutex<[String: Answer]>([:])
            let calls = Mutex<[String]>([])
            private let stuck = Mutex<[CheckedContinuation<Void, Never>]>([])
            func set(_ host: String, _ answer: Answer) { answers.withLock { $0[host] = answer } }
            var stuckCount: Int { stuck.withLock { $0.count } }
            func resolve(_ host: String, _ port: Int) async throws -> [String] {
                calls.withLock { $0.append(host) }
                switch answers.withLock({ $0[host] }) ?? .fail {
                case .loopback: return ["127.0.0.1"]
                case .fail: throw PinnedClients.LookupFailed(description: "EAI_AGAIN")
                case .noSuchName: throw PinnedClients.NoSuchName()
                case .stuck:
                    // Deaf to being given up on, as getaddrinfo is: it holds its thread until released.
                    await withCheckedContinuation { continuation in stuck.withLock { $0.append(continuation) } }
                    throw PinnedClients.LookupFailed(description: "EAI_AGAIN")
                }
            }
            func release() {
                for continuation in stuck.withLock({ held in
                    defer { held = [] }
                    return held
                }) { continuation.resume() }
            }
        }
        let resolver = Resolver()
        @Sendable func calls(_ host: String) -> Int { resolver.calls.withLock { $0.filter { $0 == host }.count } }
        // Every answer is looked up again at once (no memory); a lookup is waited for 30 s.
        let clients = PinnedClients(
            policy: PushEndpointPolicy(allowsLoopback: true), tls: .makeClientConfiguration(), timeout: 5, resolve: resolver.resolve,
            lookupLimit: .seconds(30), answerMemory: .zero, failureMemory: .zero)
        let known = "push.sportlook.test"
        resolver.set(known, .loopback)
        #expect(await Self.attempt(clients, known) == "sent")
        // The resolver fails, or never answers: the address found before is used at
        // once, while a lookup refreshes it behind.
        resolver.set(known, .fail)
        #expect(await Self.attempt(clients, known) == "sent")
        try await eventually("looked up again, not taken from memory") { calls(known) == 2 }
        resolver.set(known, .stuck)
        // (Until the failed refresh has been kept, a push finds it still under way and starts none.)
        try await eventually("a refresh under way, its push sent meanwhile") {
            await Self.attempt(clients, known) == "sent" && resolver.stuckCount == 1
        }
        #expect(await Self.attempt(clients, known) == "sent", "not waiting for its refresh")
        // Refreshes hold at most two threads: a second known name's refresh gets stuck as
        // well; a third known name is then not refreshed, its push going to the address held.
        let (second, third) = ("known-2.sportlook.test", "known-3.sportlook.test")
        for name in [second, third] {
            resolver.set(name, .loopback)
            #expect(await Self.attempt(clients, name) == "sent")
            resolver.set(name, .stuck)
        }
        try await eventually("a second refresh under way") { await Self.attempt(clients, second) == "sent" && resolver.stuckCount == 2 }
        #expect(await Self.attempt(clients, third) == "sent")
        #expect(calls(third) == 1, "not refreshed while two refreshes hold their threads")
        // Two names without an address whose lookups never return hold two threads; a
        // third is not looked up (tried again later), while the known name still goes.
        resolver.set("stuck-1.sportlook.test", .stuck)
        resolver.set("stuck-2.sportlook.test", .stuck)
        resolver.set("new.sportlook.test", .loopback)
        let stuck = [
            Task { await Self.attempt(clients, "stuck-1.sportlook.test") }, Task { await Self.attempt(clients, "stuck-2.sportlook.test") },
        ]
        try await eventually("both new names' lookups under way") { resolver.stuckCount == 4 }
        #expect(await Self.attempt(clients, "new.sportlook.test") == "later")
        #expect(calls("new.sportlook.test") == 0)
        #expect(await Self.attempt(clients, known) == "sent")
        // Once the stuck lookups return (failed), new names are looked up again.
        resolver.set(known, .loopback)
        resolver.release()
        for task in stuck { #expect(await task.value == "later") }
        try await eventually("the new name looked up") { await Self.attempt(clients, "new.sportlook.test") == "sent" }
        // A name that is gone is refused once a lookup says so; its old address no longer stands in.
        resolver.set(known, .noSuchName)
        try await eventually("the name's end learnt") { await Self.attempt(clients, known) == "refused" }
        resolver.set(known, .fail)
        #expect(await Self.attempt(clients, known) == "later")
        await clients.close()

        // A last good answer stands in for a while only.
        let brief = PinnedClients(
            policy: PushEndpointPolicy(allowsLoopback: true), tls: .makeClientConfiguration(), timeout: 5, resolve: resolver.resolve,
            lookupLimit: .seconds(30), answerMemory: .zero, failureMemory: .zero, staleLimit: .zero)
        resolver.set(known, .loopback)
        #expect(await Self.attempt(brief, known) == "sent")
        resolver.set(known, .fail)
        #expect(await Self.attempt(brief, known) == "later")
        await brief.close()
    }

    @Test("bad credentials stop the service at start, naming the setting")
    func loudConfiguration() throws {
        let folder = NSTemporaryDirectory() + "push-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "not a key".write(toFile: folder + "/bad.p8", atomically: true, encoding: .utf8)
        try #"{"project_id": "p", "client_email": "e@x"}"#.write(toFile: folder + "/partial.json", atomically: true, encoding: .utf8)
        func setting(_ environment: [String: String]) -> String? {
            do {
                _ = try PushSettings(SettingReader(environment))
                return nil
            } catch let error as ConfigurationError { return error.setting } catch { return "?" }
        }
        #expect(
            setting(["APNS_KEY_FILE": folder + "/bad.p8", "APNS_KEY_ID": "ABC", "APNS_TEAM_ID": "T", "APNS_TOPIC": "com.x"])
                == "APNS_KEY_FILE")
        #expect(
            setting(["APNS_KEY_FILE": folder + "/missing.p8", "APNS_KEY_ID": "ABC", "APNS_TEAM_ID": "T", "APNS_TOPIC": "com.x"])
                == "APNS_KEY_FILE")
        #expect(setting(["APNS_KEY_ID": "ABC"]) == "APNS_KEY_FILE")
        #expect(setting(["FCM_SERVICE_ACCOUNT_FILE": folder + "/partial.json"]) == "FCM_SERVICE_ACCOUNT_FILE")
        #expect(setting(["VAPID_SUBJECT": "ops@example.com"]) == "VAPID_SUBJECT")
        #expect(
            setting(["VAPID_SUBJECT": "mailto:ops@example.com", "VAPID_PRIVATE_KEY_FILE": folder + "/bad.p8"]) == "VAPID_PRIVATE_KEY_FILE")
        #expect(setting(["PUSH_CA_FILE": folder + "/bad.p8"]) == "PUSH_CA_FILE")
        #expect(setting(["PUSH_ALLOW_LOOPBACK": "yes"]) == "PUSH_ALLOW_LOOPBACK")
        #expect(setting([:]) == nil)
    }

    // MARK: Through the service

}

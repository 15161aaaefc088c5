import Crypto
import Foundation
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A browser's push subscription made in a test: its endpoint and keys as
/// `PushSubscription.toJSON()` gives them, and the private key to read pushes with.
struct WebSubscription {
    var endpoint: String
    var key: P256.KeyAgreement.PrivateKey
    var auth: [UInt8]

    static func make(endpoint: String) -> WebSubscription {
        WebSubscription(endpoint: endpoint, key: .init(), auth: (0..<16).map { _ in UInt8.random(in: 0...255) })
    }

    var json: [String: Any] {
        [
            "endpoint": endpoint, "expirationTime": NSNull(),
            "keys": ["p256dh": Array(key.publicKey.x963Representation).base64URLEncodedString(), "auth": auth.base64URLEncodedString()],
        ]
    }
}

/// Apple's, Google's and a browser's push services on one loopback port, over TLS
/// from a test authority: `Tests/fakes/push_server.py` (hypercorn, HTTP/2). It
/// checks what it receives (JWT signatures, headers, the encrypted body) and
/// answers as the test scripts. Each run makes a test authority and an RSA key: the
/// suite runs its tests one at a time, so that a full run on 2 cores is not starved.
final class PushServer: Sendable {
    let port: Int
    let folder: String
    private let pid: Mutex<pid_t?>

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/push_server.py").path

    init() async throws {
        port = try freePort()
        folder = NSTemporaryDirectory() + "push-\(UUID().uuidString)"
        pid = Mutex(nil)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let started = try await startFake(
            script: Self.script, arguments: [String(port), folder], port: port, readyFile: folder + "/ca.pem",
            log: folder + ".log", what: "the push server (pip install hypercorn trustme pyjwt http_ece)")
        pid.withLock { $0 = started }
    }

    deinit { stopFake(pid.withLock { $0 }, folder: folder) }

    var origin: String { "https://localhost:\(port)" }

    /// The settings a server reads to push here (through the same reader `serve` uses).
    func environment(allowLoopback: Bool = true) throws -> [String: String] {
        struct Apple: Decodable {
            var key_id: String
            var team_id: String
            var topic: String
        }
        let apple = try JSONDecoder().decode(Apple.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/apns.json")))
        return [
            "PUSH_CA_FILE": folder + "/ca.pem", "PUSH_ALLOW_LOOPBACK": allowLoopback ? "true" : "false", "PUSH_TIMEOUT": "20",
            "APNS_KEY_FILE": folder + "/apns_key.p8", "APNS_KEY_ID": apple.key_id, "APNS_TEAM_ID": apple.team_id, "APNS_TOPIC": apple.topic,
            "APNS_URL": origin, "APNS_SANDBOX_URL": origin,
            "FCM_SERVICE_ACCOUNT_FILE": folder + "/fcm_account.json", "FCM_URL": origin,
            "VAPID_SUBJECT": "mailto:ops@sportlook.test",
        ]
    }

    func configure(_ configuration: inout AppConfiguration, allowLoopback: Bool = true) throws {
        configuration.push = try PushSettings(SettingReader(environment(allowLoopback: allowLoopback)))
    }

    /// A subscription whose pushes arrive here, and whose private key the server reads them with.
    func subscription(_ id: String) throws -> WebSubscription {
        let subscription = WebSubscription.make(endpoint: "\(origin)/push/\(id)")
        try subscription.key.pemRepresentation.write(toFile: "\(folder)/subscriptions/\(id).pem", atomically: true, encoding: .utf8)
        try Data(subscription.auth).write(to: URL(fileURLWithPath: "\(folder)/subscriptions/\(id).auth"))
        return subscription
    }

    /// The answers to give next, per channel (`apns`, `fcm`, `webpush`, `token`):
    /// "ok", "gone", "expired", "bad" or a status number.
    func script(_ answers: [String: [Any]]) throws {
        let data = try JSONSerialization.data(withJSONObject: answers)
        try data.write(to: URL(fileURLWithPath: folder + "/script.json.tmp"))
        guard rename(folder + "/script.json.tmp", folder + "/script.json") == 0 else {
            throw ClusterError("cannot write the push server's script")
        }
    }

    /// One request as the server saw it.
    struct Received: @unchecked Sendable {
        var channel: String
        var path: String
        var status: Int
        var problems: [String]
        var entry: [String: Any]
    }

    var requests: [Received] {
        guard let text = try? String(contentsOfFile: folder + "/requests.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Received(
                channel: entry["channel"] as? String ?? "", path: entry["path"] as? String ?? "", status: entry["status"] as? Int ?? 0,
                problems: entry["problems"] as? [String] ?? [], entry: entry)
        }
    }

    func requests(_ channel: String) -> [Received] { requests.filter { $0.channel == channel } }
}

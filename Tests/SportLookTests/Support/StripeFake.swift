import Crypto
import Foundation
import SportLookTestSupport
import Synchronization

@testable import SportLook

/// `Tests/fakes/stripe_server.py` on a loopback port: the parts of Stripe's API card
/// payments use, checked as Stripe documents them. Its webhook events wait in an outbox
/// (``events()``) for the test to deliver — in order, twice, reordered or forged.
final class StripeFake: Sendable {
    static let secretKey = "sk_test_sportlook"
    static let webhookSecret = "whsec_test_sportlook"

    let port: Int
    let folder: String
    private let pid: Mutex<pid_t?>

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/stripe_server.py").path

    init() async throws {
        port = try freePort()
        folder = NSTemporaryDirectory() + "stripe-\(UUID().uuidString)"
        pid = Mutex(nil)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let started = try await startFake(
            script: Self.script, arguments: [String(port), Self.secretKey, Self.webhookSecret, folder + "/ready"], port: port,
            readyFile: folder + "/ready", log: folder + ".log", what: "the Stripe fake")
        pid.withLock { $0 = started }
    }

    deinit { stopFake(pid.withLock { $0 }, folder: folder) }

    var base: String { "http://127.0.0.1:\(port)" }

    /// The server's settings for this fake.
    var settings: StripeClient.Settings {
        StripeClient.Settings(
            secretKey: Self.secretKey, webhookSecret: Self.webhookSecret, apiURL: URL(string: base)!,
            returnURL: URL(string: "http://127.0.0.1:8080/")!)
    }

    /// One webhook event as Stripe would send it.
    struct Delivery: Decodable, Sendable {
        var payload: String
        var signature: String
        var type: String
    }

    /// Every event so far, in the order made.
    func events() async throws -> [Delivery] {
        try JSONDecoder().decode([Delivery].self, from: try await LiveHTTP.request(base + "/_test/events").body)
    }

    /// The events of `type` (waiting for the ones made on other threads, up to a few seconds).
    func events(_ type: String, count: Int = 1) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let found = try await events().filter { $0.type == type }
            if found.count >= count || ContinuousClock.now > deadline { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func post(_ path: String) async throws -> LiveHTTP.Reply {
        try await LiveHTTP.request(base + path, method: "POST", json: [String: String]())
    }

    /// `t=…,v1=…` for `payload` signed at `time` with `secret`, as Stripe signs.
    static func sign(_ payload: String, at time: Date, secret: String = webhookSecret) -> String {
        let stamp = Int(time.timeIntervalSince1970)
        let code = HMAC<SHA256>.authenticationCode(for: Array("\(stamp).\(payload)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(stamp),v1=\(Array(code).hexString)"
    }
}

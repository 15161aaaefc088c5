import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Apple's push service (APNs) over HTTP/2, with token authentication: an ES256
/// JWT signed with the team's `.p8` key, shared by every send and renewed after
/// 40 minutes (Apple refuses tokens older than an hour and renewals more often
/// than every 20 minutes). All sends share the client's HTTP/2 connection per host.
///
/// Answers: 200 delivered; 410, `BadDeviceToken` and `Unregistered` remove the
/// registration; `ExpiredProviderToken` renews the JWT and tries once more; 429
/// and 5xx retried; any other answer final for that device, its reason logged.
final class APNsChannel: PushChannel {
    struct Settings: Sendable {
        var key: P256.Signing.PrivateKey
        var keyID: String
        var teamID: String
        /// The app's bundle id (`apns-topic`).
        var topic: String
        var productionURL: URL
        var sandboxURL: URL
        var timeout: TimeInterval
    }

    let settings: Settings
    let client: HTTPClient
    private let token: Mutex<(jwt: String, issued: Date)?> = Mutex(nil)
    var name: String { "apns" }

    /// Seconds a token is used before a new one is made.
    static let renewal: TimeInterval = 40 * 60
    /// The largest payload APNs takes for an alert.
    static let maxPayload = 4_096

    init(settings: Settings, client: HTTPClient) {
        self.settings = settings
        self.client = client
    }

    func close() async {}

    /// The provider token, made anew after ``renewal``, or when the service said `stale` has expired.
    func providerToken(now: Date = Date(), replacing stale: String? = nil) throws -> String {
        try token.withLock { current in
            if let current {
                // Renewing a token another send already renewed: take the new one.
                if let stale, current.jwt != stale { return current.jwt }
                if stale == nil, now.timeIntervalSince(current.issued) < Self.renewal { return current.jwt }
            }
            let jwt = try CompactJWT.es256(
                header: [("kid", .string(settings.keyID))],
                claims: [("iss", .string(settings.teamID)), ("iat", .number(now.timeIntervalSince1970.rounded(.down)))],
                key: settings.key
            )
            current = (jwt, now)
            return jwt
        }
    }

    /// `{"aps": {alert, badge, sound, thread-id}, "id", "kind", "data"}`, at most 4 KB (the body shortened).
    static func payload(_ content: PushContent) -> [UInt8] {
        PushText.fitting(limit: maxPayload, body: content.message.body) { body in
            var json = JSONWriter()
            json.objectStart()
            json.key("aps")
            json.objectStart()
            json.key("alert")
            json.objectStart()
            json.field("title", content.message.title)
            json.field("body", body)
            json.objectEnd()
            if let badge = content.badge { json.field("badge", badge) }
            json.field("sound", "default")
            if let thread = content.thread { json.field("thread-id", thread) }
            json.objectEnd()
            json.field("id", content.notificationID)
            json.field("kind", content.message.kind)
            json.key("data")
            JSONValue.object(content.message.data).write(to: &json)
            json.objectEnd()
            return json.bytes
        }
    }

    func send(_ content: PushContent, to devices: [PushDevice]) async -> [UUID: DeviceOutcome] {
        let payload = Self.payload(content)
        return await sendEach(devices) { device in await self.send(payload, content: content, to: device) }
    }

    private func send(_ payload: [UInt8], content: PushContent, to device: PushDevice, renewed: Bool = false) async -> DeviceOutcome {
        let base = device.environment == "sandbox" ? settings.sandboxURL : settings.productionURL
        let jwt: String
        do { jwt = try providerToken() } catch { return .retry(after: nil, reason: "signing", detail: "\(error)") }
        var request = HTTPClientRequest(url: base.appendingPathComponent("3/device/\(device.token)").absoluteString)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(jwt)")
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-expiration", value: String(Int(Date().timeIntervalSince1970) + 86_400))
        request.headers.add(name: "apns-id", value: content.notificationID.uuidString)
        if let collapse = content.collapseKey(limit: 64) { request.headers.add(name: "apns-collapse-id", value: collapse) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: payload))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.timeout * 1000)))
            let answer = try? await response.body.collect(upTo: 8 * 1024)
            struct Problem: Decodable { var reason: String? }
            let reason = answer.flatMap { try? JSONDecoder().decode(Problem.self, from: Data($0.readableBytesView)) }?.reason ?? ""
            let status = Int(response.status.code)
            switch (status, reason) {
            case (200, _): return .delivered
            case (410, _), (400, "BadDeviceToken"), (_, "Unregistered"): return .gone
            case (403, "ExpiredProviderToken") where !renewed:
                _ = try? providerToken(replacing: jwt)
                return await send(payload, content: content, to: device, renewed: true)
            case (429, _), (500..<600, _):
                return .retry(after: PushGateway.retryAfter(response.headers), reason: reason.isEmpty ? String(status) : Self.label(reason))
            default:
                return .failed(
                    reason: reason.isEmpty ? String(status) : Self.label(reason), detail: "APNs answered \(status) \(reason.prefix(100))")
            }
        } catch {
            return .retry(after: nil, reason: "unreachable", detail: String(describing: error).prefix(200).description)
        }
    }

    /// A reason as a metric label: Apple's reasons are short words; anything else is "other".
    private static func label(_ reason: String) -> String {
        reason.utf8.count <= 40 && reason.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? reason : "other"
    }
}

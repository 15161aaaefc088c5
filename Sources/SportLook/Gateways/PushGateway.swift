import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Sends notifications to an HTTP push gateway someone else runs: the channel for
/// devices whose platform has no channel of its own configured here.
///
/// The contract, for whoever runs the gateway:
/// - `POST PUSH_GATEWAY_URL` with a JSON body
///   `{"id", "user_id", "devices": [{"platform", "token"}], "notification": {"id", "kind", "title", "body", "data"}}`;
/// - `Idempotency-Key`: the job's id, the same on every retry of one delivery;
/// - `X-SportLook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>`
///   with `PUSH_GATEWAY_SECRET` (at least 32 bytes): the gateway checks the MAC and
///   refuses a `t` more than ``replayWindow`` from its clock, so a captured request
///   cannot be replayed later (within the window, `Idempotency-Key` dedups);
/// - answers: 2xx delivered; 410 some tokens are gone (`{"gone_tokens": [...]}`, or
///   all of them without a body), which are removed — only tokens that were in the
///   request; 429 and 5xx (and timeouts) are retried, after `Retry-After` when
///   given; any other 4xx is final.
struct PushGateway: PushChannel {
    var name: String { "webhook" }
    let url: URL
    let secret: [UInt8]
    let timeout: TimeAmount
    let client: HTTPClient

    init(url: URL, secret: String, timeout: TimeInterval, client: HTTPClient) {
        self.url = url
        self.secret = Array(secret.utf8)
        self.timeout = .milliseconds(Int64(timeout * 1000))
        self.client = client
    }

    /// How far from the gateway's clock a signature's timestamp may be (documented for gateways).
    static let replayWindow: TimeInterval = 300

    /// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>`.
    static func signature(of body: [UInt8], at time: Date, secret: [UInt8]) -> String {
        let t = String(Int(time.timeIntervalSince1970))
        let mac = HMAC<SHA256>.authenticationCode(for: Array((t + ".").utf8) + body, using: SymmetricKey(data: secret))
        return "t=\(t),v1=\(mac.hexString)"
    }

    static func body(jobID: UUID, notificationID: UUID, message: NotificationMessage, devices: [PushDevice]) -> [UInt8] {
        var json = JSONWriter()
        json.objectStart()
        json.field("id", jobID)
        json.field("user_id", message.userID)
        json.key("devices")
        json.arrayStart()
        for device in devices {
            json.objectStart()
            json.field("platform", device.platform.rawValue)
            json.field("token", device.token)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("notification")
        json.objectStart()
        json.field("id", notificationID)
        json.field("kind", message.kind)
        json.field("title", message.title)
        json.field("body", message.body)
        json.key("data")
        JSONValue.object(message.data).write(to: &json)
        json.objectEnd()
        json.objectEnd()
        return json.bytes
    }

    func send(_ content: PushContent, to devices: [PushDevice]) async -> [UUID: DeviceOutcome] {
        let body = Self.body(jobID: content.jobID, notificationID: content.notificationID, message: content.message, devices: devices)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: content.jobID.lowercased)
        request.headers.add(name: "X-SportLook-Signature", value: Self.signature(of: body, at: Date(), secret: secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        func all(_ outcome: DeviceOutcome) -> [UUID: DeviceOutcome] {
            Dictionary(uniqueKeysWithValues: devices.map { ($0.id, outcome) })
        }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let payload = try? await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            switch status {
            case 200..<300:
                return all(.delivered)
            case 410:
                struct Gone: Decodable { var goneTokens: [String]? }
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                // Only what was sent: a gateway cannot remove anyone else's registrations.
                guard let listed = payload.flatMap({ try? decoder.decode(Gone.self, from: Data($0.readableBytesView)) })?.goneTokens else {
                    return all(.gone)
                }
                let gone = Set(listed)
                return Dictionary(uniqueKeysWithValues: devices.map { ($0.id, gone.contains($0.token) ? .gone : .delivered) })
            case 429, 500..<600:
                return all(.retry(after: Self.retryAfter(response.headers), reason: String(status)))
            default:
                return all(.failed(reason: String(status)))
            }
        } catch {
            return all(.retry(after: nil, reason: "unreachable", detail: String(describing: error).prefix(200).description))
        }
    }

    func close() async {}

    /// `Retry-After` in seconds or as an HTTP date.
    static func retryAfter(_ headers: HTTPHeaders) -> TimeInterval? {
        guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return min(seconds, 3_600) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { min(max(0, $0.timeIntervalSinceNow), 3_600) }
    }
}

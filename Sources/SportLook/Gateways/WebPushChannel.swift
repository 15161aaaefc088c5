import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Web Push (RFC 8030): each browser's subscription gets the notification
/// encrypted for it (RFC 8291) and signed for its push service (VAPID, RFC 8292).
///
/// Headers: `TTL` (a day), `Urgency` (high for chat and invitations), `Topic`
/// (the collapse key, so a newer push replaces an undelivered one). Answers:
/// 2xx delivered; 404 and 410 the subscription is gone; 429 and 5xx retried
/// (after `Retry-After`); any other status final for that browser.
struct WebPushChannel: PushChannel {
    let vapid: VAPID
    let clients: PinnedClients
    let timeout: TimeInterval
    var name: String { "webpush" }

    /// Seconds a push service keeps an undelivered message.
    static let ttl = 86_400

    func send(_ content: PushContent, to devices: [PushDevice]) async -> [UUID: DeviceOutcome] {
        await sendEach(devices) { device in await send(content, to: device) }
    }

    func close() async { await clients.close() }

    /// The JSON the service worker reads: `{id, kind, title, body, data}`, the body
    /// shortened (never the JSON cut) to fit one record.
    static func payload(_ content: PushContent) -> [UInt8] {
        PushText.fitting(limit: WebPushCrypto.maxPlaintext, body: content.message.body) { body in
            var json = JSONWriter()
            json.objectStart()
            json.field("id", content.notificationID)
            json.field("kind", content.message.kind)
            json.field("title", content.message.title)
            json.field("body", body)
            json.key("data")
            JSONValue.object(content.message.data).write(to: &json)
            json.objectEnd()
            return json.bytes
        }
    }

    private func send(_ content: PushContent, to device: PushDevice) async -> DeviceOutcome {
        guard let url = URL(string: device.token), let origin = VAPID.origin(of: url),
            let key = device.p256dh.flatMap({ Data(base64URLEncoded: $0) }),
            let secret = device.auth.flatMap({ Data(base64URLEncoded: $0) })
        else { return .failed(reason: "bad_subscription") }
        let body: [UInt8]
        let authorization: String
        let client: HTTPClient
        do {
            body = try WebPushCrypto.encrypt(Self.payload(content), receiverKey: Array(key), authSecret: Array(secret))
            authorization = try vapid.authorization(origin: origin)
        } catch {
            return .failed(reason: "bad_subscription", detail: "\(error)")
        }
        do {
            client = try await clients.client(for: url)
        } catch let refused as PinnedClients.Refused {
            return .failed(reason: "refused_address", detail: refused.description)
        } catch {
            return .retry(after: nil, reason: "unreachable", detail: "\(error)")
        }
        var request = HTTPClientRequest(url: device.token)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "TTL", value: String(Self.ttl))
        request.headers.add(name: "Urgency", value: ["chat_message", "invitation"].contains(content.message.kind) ? "high" : "normal")
        if let topic = content.collapseKey(limit: 32) { request.headers.add(name: "Topic", value: topic) }
        request.headers.add(name: "Authorization", value: authorization)
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            let answer = try? await response.body.collect(upTo: 8 * 1024)
            let status = Int(response.status.code)
            let detail = answer.map { String(buffer: $0).prefix(300) }.map(String.init) ?? ""
            switch status {
            case 200..<300: return .delivered
            case 404, 410: return .gone
            case 429, 500..<600: return .retry(after: PushGateway.retryAfter(response.headers), reason: String(status), detail: detail)
            default: return .failed(reason: String(status), detail: detail)
            }
        } catch {
            return .retry(after: nil, reason: "unreachable", detail: String(describing: error).prefix(200).description)
        }
    }
}

/// A push's text shortened to fit a service's limit.
enum PushText {
    /// `encode(body)` with the body cut (by characters, with an ellipsis) until the
    /// whole fits in `limit` bytes. A body that never fits is sent empty.
    static func fitting(limit: Int, body: String, encode: (String) -> [UInt8]) -> [UInt8] {
        let whole = encode(body)
        guard whole.count > limit else { return whole }
        var characters = Array(body)
        // Each step removes at least what overflows (a character is at least one byte).
        while !characters.isEmpty {
            let over = encode(String(characters) + "…").count - limit
            if over <= 0 { break }
            characters.removeLast(min(characters.count, max(1, over / 2)))
        }
        return encode(characters.isEmpty ? "" : String(characters) + "…")
    }
}

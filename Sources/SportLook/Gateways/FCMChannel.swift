import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import _CryptoExtras

/// Google's Firebase Cloud Messaging, HTTP v1 API. A service account's RS256 JWT
/// assertion is exchanged at its `token_uri` for an OAuth access token, kept until
/// five minutes before it expires and shared by every send (one refresh at a time).
///
/// Answers: 200 delivered; 404 (`UNREGISTERED`) removes the registration; 401
/// refreshes the access token and tries once more; 429 and 5xx retried after
/// `Retry-After`; any other answer final for that device.
struct FCMChannel: PushChannel {
    /// The fields of the service account file Google issues that are used here.
    struct ServiceAccount: Sendable, Decodable {
        var projectID: String
        var clientEmail: String
        var privateKey: String
        var tokenURI: String

        enum CodingKeys: String, CodingKey {
            case projectID = "project_id", clientEmail = "client_email", privateKey = "private_key", tokenURI = "token_uri"
        }
    }

    struct Settings: Sendable {
        var account: ServiceAccount
        var key: _RSA.Signing.PrivateKey
        var tokenURL: URL
        var baseURL: URL
        var timeout: TimeInterval
    }

    let settings: Settings
    let client: HTTPClient
    let tokens: AccessTokens
    var name: String { "fcm" }

    init(settings: Settings, client: HTTPClient) {
        self.settings = settings
        self.client = client
        self.tokens = AccessTokens(settings: settings, client: client)
    }

    func close() async {}

    /// The OAuth access token, fetched by one caller at a time and shared.
    actor AccessTokens {
        let settings: Settings
        let client: HTTPClient
        private var current: (token: String, expires: Date)?
        private var refreshing: Task<String, any Error>?

        init(settings: Settings, client: HTTPClient) {
            self.settings = settings
            self.client = client
        }

        /// A valid token; a new one when `stale` (refused by FCM) is the current one.
        func token(replacing stale: String? = nil) async throws -> String {
            while true {
                if let current, current.expires.timeIntervalSinceNow > 300, current.token != stale { return current.token }
                if let refreshing {
                    // Someone else's refresh: take its token unless it is the one refused.
                    let token = try await refreshing.value
                    if token != stale { return token }
                    continue
                }
                let task = Task { try await fetch() }
                refreshing = task
                defer { refreshing = nil }
                return try await task.value
            }
        }

        private func fetch() async throws -> String {
            let now = Date()
            let assertion = try CompactJWT.make(
                header: [("alg", .string("RS256")), ("typ", .string("JWT"))],
                claims: [
                    ("iss", .string(settings.account.clientEmail)),
                    ("scope", .string("https://www.googleapis.com/auth/firebase.messaging")),
                    ("aud", .string(settings.account.tokenURI)), ("iat", .number(now.timeIntervalSince1970.rounded(.down))),
                    ("exp", .number(now.timeIntervalSince1970.rounded(.down) + 3_600)),
                ]
            ) { input in Array(try settings.key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation) }
            var request = HTTPClientRequest(url: settings.tokenURL.absoluteString)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(
                ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.timeout * 1000)))
            let body = try await response.body.collect(upTo: 64 * 1024)
            struct Grant: Decodable {
                var access_token: String
                var expires_in: Double?
            }
            guard response.status == .ok, let grant = try? JSONDecoder().decode(Grant.self, from: Data(body.readableBytesView)) else {
                throw Failure(description: "the token endpoint answered \(response.status.code): \(String(buffer: body).prefix(200))")
            }
            current = (grant.access_token, now.addingTimeInterval(grant.expires_in ?? 3_600))
            return grant.access_token
        }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `{"message": {token, notification, data (strings), android {collapse_key, priority, ttl}}}`.
    static func body(_ content: PushContent, token: String) -> [UInt8] {
        PushText.fitting(limit: 4_096, body: content.message.body) { body in
            var json = JSONWriter()
            json.objectStart()
            json.key("message")
            json.objectStart()
            json.field("token", token)
            json.key("notification")
            json.objectStart()
            json.field("title", content.message.title)
            json.field("body", body)
            json.objectEnd()
            json.key("data")
            json.objectStart()
            json.field("id", content.notificationID.lowercased)
            json.field("kind", content.message.kind)
            for (key, value) in content.message.data.sorted(by: { $0.key < $1.key }) where key != "id" && key != "kind" {
                if case .string(let text) = value {
                    json.field(key, text)
                } else {
                    var inner = JSONWriter()
                    value.write(to: &inner)
                    json.field(key, String(decoding: inner.bytes, as: UTF8.self))
                }
            }
            json.objectEnd()
            json.key("android")
            json.objectStart()
            if let collapse = content.collapseKey(limit: 64) { json.field("collapse_key", collapse) }
            json.field("priority", "high")
            json.field("ttl", "86400s")
            json.objectEnd()
            json.objectEnd()
            json.objectEnd()
            return json.bytes
        }
    }

    func send(_ content: PushContent, to devices: [PushDevice]) async -> [UUID: DeviceOutcome] {
        await sendEach(devices) { device in await send(content, to: device) }
    }

    private func send(_ content: PushContent, to device: PushDevice, refreshed: Bool = false, stale: String? = nil) async -> DeviceOutcome {
        let accessToken: String
        do { accessToken = try await tokens.token(replacing: stale) } catch {
            return .retry(after: nil, reason: "oauth", detail: String(describing: error).prefix(300).description)
        }
        let url = settings.baseURL.appendingPathComponent("v1/projects/\(settings.account.projectID)/messages:send")
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.body(content, token: device.token)))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.timeout * 1000)))
            let answer = try? await response.body.collect(upTo: 16 * 1024)
            let text = answer.map { String(buffer: $0) } ?? ""
            let status = Int(response.status.code)
            switch status {
            case 200: return .delivered
            case 404 where text.contains("UNREGISTERED") || text.contains("NOT_FOUND"): return .gone
            case 401 where !refreshed: return await send(content, to: device, refreshed: true, stale: accessToken)
            case 429, 500..<600:
                return .retry(after: PushGateway.retryAfter(response.headers), reason: String(status), detail: String(text.prefix(300)))
            default: return .failed(reason: String(status), detail: String(text.prefix(300)))
            }
        } catch {
            return .retry(after: nil, reason: "unreachable", detail: String(describing: error).prefix(200).description)
        }
    }
}

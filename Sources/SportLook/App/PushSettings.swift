import AsyncHTTPClient
import Crypto
import Foundation
import NIOSSL
import _CryptoExtras

/// The push channels' credentials and rules, read and checked at start: an
/// unreadable key, a key of the wrong type, or a service account file without the
/// fields used stops the service with a message naming the setting.
public struct PushSettings: Sendable {
    /// APNs (`APNS_KEY_FILE`, `APNS_KEY_ID`, `APNS_TEAM_ID`, `APNS_TOPIC`; `APNS_URL`, `APNS_SANDBOX_URL`).
    var apns: APNsChannel.Settings?
    /// FCM (`FCM_SERVICE_ACCOUNT_FILE`; `FCM_URL`).
    var fcm: FCMChannel.Settings?
    /// Web Push is on when `VAPID_SUBJECT` is set (a `mailto:` or `https:` URL).
    var vapidSubject: String?
    /// `VAPID_PRIVATE_KEY_FILE` (PEM, P-256); unset: made on first start and kept in the database.
    var vapidKey: P256.Signing.PrivateKey?
    /// `PUSH_CA_FILE`: a PEM authority outgoing push connections trust besides the system's.
    var caFile: String?
    /// `PUSH_ALLOW_LOOPBACK=true` (tests): Web Push endpoints on loopback addresses, any port.
    var allowsLoopback = false
    /// `PUSH_TIMEOUT`: longest one push request may take (default 10 s).
    var timeout: TimeInterval = 10

    /// The longest one device's push may take (FCM: a token request and a send, twice; Web Push: a lookup first).
    var worstCase: TimeInterval { 4 * timeout + 5 }

    static let appleProduction = URL(string: "https://api.push.apple.com")!
    static let appleSandbox = URL(string: "https://api.sandbox.push.apple.com")!
    static let google = URL(string: "https://fcm.googleapis.com")!

    public init() {}

    init(_ reader: SettingReader) throws {
        timeout = try reader.duration("PUSH_TIMEOUT", in: 1...120) ?? timeout
        if let flag = try reader.string("PUSH_ALLOW_LOOPBACK")?.lowercased() {
            guard flag == "true" || flag == "false" else {
                throw ConfigurationError(setting: "PUSH_ALLOW_LOOPBACK", message: "must be true or false")
            }
            allowsLoopback = flag == "true"
        }
        if let file = try reader.string("PUSH_CA_FILE") {
            guard (try? NIOSSLCertificate.fromPEMFile(file))?.isEmpty == false else {
                throw ConfigurationError(setting: "PUSH_CA_FILE", message: "cannot read a PEM certificate from \(file)")
            }
            caFile = file
        }
        apns = try Self.readAPNs(reader, timeout: timeout)
        fcm = try Self.readFCM(reader, timeout: timeout)
        if let subject = try reader.string("VAPID_SUBJECT") {
            guard subject.utf8.count <= 512, let url = URL(string: subject),
                (url.scheme == "mailto" && subject.count > 7) || (url.scheme == "https" && url.host != nil)
            else {
                throw ConfigurationError(
                    setting: "VAPID_SUBJECT", message: "must be a mailto: or https: URL where push services can reach you")
            }
            vapidSubject = subject
        }
        if let file = try reader.string("VAPID_PRIVATE_KEY_FILE") {
            guard vapidSubject != nil else {
                throw ConfigurationError(setting: "VAPID_SUBJECT", message: "is required with VAPID_PRIVATE_KEY_FILE")
            }
            vapidKey = try Self.p256Key(file, setting: "VAPID_PRIVATE_KEY_FILE")
        }
    }

    private static func p256Key(_ file: String, setting: String) throws -> P256.Signing.PrivateKey {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigurationError(setting: setting, message: "cannot read \(file)")
        }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: text) else {
            throw ConfigurationError(setting: setting, message: "\(file) is not a P-256 (ES256) private key in PEM")
        }
        return key
    }

    private static func readAPNs(_ reader: SettingReader, timeout: TimeInterval) throws -> APNsChannel.Settings? {
        let names = ["APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC"]
        let values = try names.map { try reader.string($0) }
        guard values.contains(where: { $0 != nil }) else { return nil }
        if let missing = zip(names, values).first(where: { $0.1 == nil }) {
            throw ConfigurationError(
                setting: missing.0, message: "is required with \(names.filter { $0 != missing.0 }.joined(separator: ", "))")
        }
        let key = try p256Key(values[0]!, setting: "APNS_KEY_FILE")
        for (name, value) in [("APNS_KEY_ID", values[1]!), ("APNS_TEAM_ID", values[2]!)] {
            guard (1...64).contains(value.count), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw ConfigurationError(setting: name, message: "must be the 10-character id Apple shows (letters and digits)")
            }
        }
        guard let topic = values[3], topic.utf8.count <= 255,
            topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) })
        else {
            throw ConfigurationError(setting: "APNS_TOPIC", message: "must be the app's bundle id, e.g. com.example.sportlook")
        }
        return .init(
            key: key, keyID: values[1]!, teamID: values[2]!, topic: topic,
            productionURL: try reader.url("APNS_URL") ?? appleProduction, sandboxURL: try reader.url("APNS_SANDBOX_URL") ?? appleSandbox,
            timeout: timeout
        )
    }

    private static func readFCM(_ reader: SettingReader, timeout: TimeInterval) throws -> FCMChannel.Settings? {
        guard let file = try reader.string("FCM_SERVICE_ACCOUNT_FILE") else { return nil }
        let setting = "FCM_SERVICE_ACCOUNT_FILE"
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(setting: setting, message: "cannot read \(file)")
        }
        let account: FCMChannel.ServiceAccount
        do {
            account = try JSONDecoder().decode(FCMChannel.ServiceAccount.self, from: data)
        } catch {
            throw ConfigurationError(
                setting: setting, message: "\(file) is not a service account file with project_id, client_email, private_key and token_uri")
        }
        guard !account.projectID.isEmpty, account.projectID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw ConfigurationError(setting: setting, message: "its project_id must be letters, digits and hyphens")
        }
        guard let key = try? _RSA.Signing.PrivateKey(pemRepresentation: account.privateKey) else {
            throw ConfigurationError(setting: setting, message: "its private_key is not an RSA private key in PEM")
        }
        guard let tokenURL = URL(string: account.tokenURI), let host = tokenURL.host,
            tokenURL.scheme == "https" || (tokenURL.scheme == "http" && AddressRange.isLoopback(host: host))
        else {
            throw ConfigurationError(setting: setting, message: "its token_uri must be an https URL")
        }
        return .init(account: account, key: key, tokenURL: tokenURL, baseURL: try reader.url("FCM_URL") ?? google, timeout: timeout)
    }

    /// The channels these settings configure, the webhook gateway among them, and the
    /// VAPID identity when Web Push is on.
    func channels(_ configuration: AppConfiguration, database: Database, webhookClient: HTTPClient, pushClient: HTTPClient) async throws
        -> (PushChannels, VAPID?)
    {
        var channels = PushChannels()
        channels.webhook = configuration.pushGatewayURL.map {
            PushGateway(url: $0, secret: configuration.pushGatewaySecret, timeout: configuration.pushGatewayTimeout, client: webhookClient)
        }
        channels.apns = apns.map { APNsChannel(settings: $0, client: pushClient) }
        channels.fcm = fcm.map { FCMChannel(settings: $0, client: pushClient) }
        guard let vapidSubject else { return (channels, nil) }
        var key = vapidKey
        if key == nil { key = try await Self.storedVAPIDKey(database) }
        let vapid = VAPID(key: key!, subject: vapidSubject)
        channels.webPush = WebPushChannel(
            vapid: vapid, clients: PinnedClients(policy: PushEndpointPolicy(allowsLoopback: allowsLoopback), tls: tls, timeout: timeout),
            timeout: timeout)
        return (channels, vapid)
    }

    /// The VAPID key every instance signs Web Push with: made by the first to start, kept in the database.
    static func storedVAPIDKey(_ database: Database) async throws -> P256.Signing.PrivateKey {
        let secret = try await SecretStore(database: database).secret("vapid_private_key")
        guard let bytes = Hex.bytes(secret), let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes) else {
            throw ConfigurationError(
                setting: "VAPID_PRIVATE_KEY_FILE",
                message: "the VAPID key kept in the database is not a P-256 key; set one with VAPID_PRIVATE_KEY_FILE")
        }
        return key
    }

    /// The TLS outgoing push connections use: the system's authorities, and `PUSH_CA_FILE`'s.
    var tls: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        return tls
    }
}

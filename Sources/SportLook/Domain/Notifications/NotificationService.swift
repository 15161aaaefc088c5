import Crypto
import Foundation

/// The notification inbox and the devices pushes go to.
struct NotificationService: Sendable {
    let store: InboxStore
    /// Who may see which event (a members-only game's notifications are its group's members').
    let access: EventAccess
    let clock: any AppClock
    /// Which Web Push endpoints a registration may name.
    var endpoints = PushEndpointPolicy()
    /// The VAPID public key browsers subscribe with (base64url), when Web Push is on.
    var webPushKey: String?

    /// The user's notifications, newest first (only unread ones if asked); `more` when a next page exists.
    /// Notifications about a members-only game of a group the user has left are not
    /// shown (they were sent while the user was a member), by the rule delivery uses
    /// (``EventAccess/gatingEvent(kind:eventID:)``).
    func list(user: UUID, unreadOnly: Bool, cursor: TimeCursor?, limit: Int) async throws -> (items: [InboxItem], more: Bool) {
        let (items, more) = try await store.list(user: user, unreadOnly: unreadOnly, cursor: cursor, limit: limit)
        let about = items.map { ($0, EventAccess.gatingEvent(kind: $0.kind, eventID: Self.eventID(of: $0))) }
        let hidden = try await access.hidden(Set(about.compactMap(\.1)), from: user)
        guard !hidden.isEmpty else { return (items, more) }
        return (about.filter { $0.1.map { !hidden.contains($0) } ?? true }.map(\.0), more)
    }

    /// The `event_id` a notification names, if any.
    static func eventID(of item: InboxItem) -> String? {
        struct About: Decodable { var event_id: String? }
        return (try? JSONDecoder().decode(About.self, from: Data(item.data.utf8)))?.event_id
    }

    /// One entry, by id.
    func item(_ id: UUID) async throws -> InboxItem? {
        try await store.item(id)
    }

    /// Marks the listed notifications read, or all of them when `ids` is nil.
    func markRead(user: UUID, ids: [UUID]?) async throws {
        try await store.markRead(user: user, ids: ids, at: clock.now())
    }

    /// A registration as a client sends it: `ios` with a hex `token` and an
    /// `environment`, `android` with a `token`, `web` with the browser's
    /// subscription (`endpoint`, `p256dh`, `auth`).
    struct DeviceRequest: Sendable {
        var platform: String?
        var token: String?
        var environment: String?
        var endpoint: String?
        var p256dh: String?
        var auth: String?
    }

    /// Registers a device of the caller's session for pushes; 422 naming the field
    /// when a format does not hold.
    func registerDevice(user: UUID, session: UUID, _ request: DeviceRequest) async throws -> PushDevice {
        let device = try Self.validated(request, endpoints: endpoints, at: clock.now())
        return try await store.register(device, user: user, session: session)
    }

    static func validated(_ request: DeviceRequest, endpoints: PushEndpointPolicy, at now: Date) throws -> PushDevice {
        var v = Validator()
        guard let name = request.platform else {
            v.fail("platform", Sentence("is required"))
            throw DomainError.validation(v.fields)
        }
        guard let platform = PushPlatform(rawValue: name) else {
            v.fail("platform", Sentence("must be one of ios, android, web"))
            throw DomainError.validation(v.fields)
        }
        var device = PushDevice(id: UUID(), platform: platform, token: "", createdAt: now)
        switch platform {
        case .ios:
            // 32 bytes today; Apple says tokens may grow, so up to 100 bytes.
            let token = request.token?.lowercased() ?? ""
            if request.token == nil {
                v.fail("token", Sentence("is required"))
            } else if !(64...200).contains(token.utf8.count) || token.utf8.count % 2 != 0 || Hex.bytes(token) == nil {
                v.fail("token", Sentence("must be the APNs device token in hex (64 to 200 digits)"))
            }
            let environment = request.environment ?? "production"
            v.check(PushDevice.environments.contains(environment), "environment", Sentence("must be production or sandbox"))
            device.token = token
            device.environment = environment
        case .android:
            let token = request.token ?? ""
            if request.token == nil {
                v.fail("token", Sentence("is required"))
            } else if !(16...4_096).contains(token.utf8.count) || !token.utf8.allSatisfy(Self.isTokenByte) {
                v.fail("token", Sentence("must be an FCM registration token (16 to 4096 letters, digits and - _ : .)"))
            }
            device.token = token
        case .web:
            if request.endpoint == nil {
                v.fail("subscription.endpoint", Sentence("is required"))
            } else if let text = request.endpoint {
                if text.utf8.count > 2_048 || text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value > 0x7E }) {
                    v.fail("subscription.endpoint", Sentence("must be an https URL of at most 2048 bytes"))
                } else if let url = URL(string: text), let problem = endpoints.problem(with: url) {
                    v.fail("subscription.endpoint", problem)
                } else if URL(string: text) == nil {
                    v.fail("subscription.endpoint", Sentence("must be an https URL"))
                }
                device.token = text
            }
            let key = request.p256dh.flatMap { Data(base64URLEncoded: $0) }
            if request.p256dh == nil {
                v.fail("subscription.keys.p256dh", Sentence("is required"))
            } else if !request.p256dh!.utf8.allSatisfy(Self.isBase64URLByte) || key?.count != 65 || key?.first != 4
                || (try? P256.KeyAgreement.PublicKey(x963Representation: key!)) == nil
            {
                v.fail("subscription.keys.p256dh", Sentence("must be an uncompressed P-256 public key (65 bytes, base64url)"))
            }
            let secret = request.auth.flatMap { Data(base64URLEncoded: $0) }
            if request.auth == nil {
                v.fail("subscription.keys.auth", Sentence("is required"))
            } else if !request.auth!.utf8.allSatisfy(Self.isBase64URLByte) || secret?.count != 16 {
                v.fail("subscription.keys.auth", Sentence("must be 16 bytes, base64url"))
            }
            device.p256dh = key.map { $0.base64URLEncodedString() }
            device.auth = secret.map { $0.base64URLEncodedString() }
        }
        try v.throwIfInvalid()
        return device
    }

    /// base64url's alphabet, and `=` (some browsers pad).
    private static func isBase64URLByte(_ b: UInt8) -> Bool {
        b.isBase64URL || b == 61
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        b.isBase64URL || b == 58 || b == 46
    }

    /// The caller's registrations that receive pushes, newest first.
    func devices(user: UUID) async throws -> [PushDevice] {
        try await store.devices(of: user, at: clock.now())
    }

    /// Removes one of the user's registrations, by id or token; 404 when the user has no such device.
    func removeDevice(user: UUID, name: String) async throws {
        guard !name.isEmpty, try await store.removeDevice(user: user, named: name) else { throw DomainError.notFound(.device) }
    }
}

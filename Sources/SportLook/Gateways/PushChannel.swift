import Crypto
import Foundation

/// How one device's push went.
enum DeviceOutcome: Sendable, Equatable {
    case delivered
    /// The service says the registration is gone: it is removed.
    case gone
    /// Worth another attempt, not before `after` seconds when given. `reason` is
    /// short and from a small set (a metric label); `detail` is for the log.
    case retry(after: TimeInterval?, reason: String, detail: String = "")
    /// Final for this device: trying again cannot help.
    case failed(reason: String, detail: String = "")
}

/// What one notification says, as every channel receives it.
struct PushContent: Sendable {
    var jobID: UUID
    var notificationID: UUID
    var message: NotificationMessage
    /// The recipient's unread notifications (the badge on an iPhone's icon).
    var badge: Int?

    /// The room or event the notification is about (a thread on the phone).
    var thread: String? {
        for key in ["event_id", "room_id", "conversation_id"] { if case .string(let id)? = message.data[key] { return id } }
        return nil
    }

    /// The collapse key shortened to `limit` URL-safe characters (a digest when longer).
    func collapseKey(limit: Int) -> String? {
        guard let key = message.collapseKey else { return nil }
        let safe = key.utf8.allSatisfy(\.isBase64URL)
        if safe && key.utf8.count <= limit { return key }
        return String(Array(SHA256.hash(data: Data(key.utf8))).base64URLEncodedString().prefix(limit))
    }
}

/// A platform's push service: delivers one notification to some devices of one user.
protocol PushChannel: Sendable {
    /// `apns`, `fcm`, `webpush` or `webhook` (logs and metrics).
    var name: String { get }
    func send(_ content: PushContent, to devices: [PushDevice]) async -> [UUID: DeviceOutcome]
    /// Closes what the channel holds open.
    func close() async
}

extension PushChannel {
    /// Sends to every device at once (each its own request), collecting how each went.
    func sendEach(_ devices: [PushDevice], _ send: @escaping @Sendable (PushDevice) async -> DeviceOutcome) async -> [UUID: DeviceOutcome] {
        await withTaskGroup(of: (UUID, DeviceOutcome).self) { group in
            for device in devices {
                group.addTask { (device.id, await send(device)) }
            }
            var out: [UUID: DeviceOutcome] = [:]
            for await (id, outcome) in group { out[id] = outcome }
            return out
        }
    }
}

/// The configured channels, and which one serves a device: its platform's own
/// when configured, else the webhook gateway when there is one (which also takes
/// web registrations made before browsers' keys were kept).
struct PushChannels: Sendable {
    var apns: (any PushChannel)?
    var fcm: (any PushChannel)?
    var webPush: (any PushChannel)?
    var webhook: (any PushChannel)?

    var isEmpty: Bool { apns == nil && fcm == nil && webPush == nil && webhook == nil }

    func channel(for device: PushDevice) -> (any PushChannel)? {
        switch device.platform {
        case .ios: apns ?? webhook
        case .android: fcm ?? webhook
        case .web: device.p256dh != nil && device.auth != nil ? (webPush ?? webhook) : webhook
        }
    }

    var all: [any PushChannel] { [apns, fcm, webPush, webhook].compactMap { $0 } }
}

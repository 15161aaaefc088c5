import Foundation

/// Where a device's pushes go: Apple's service, Google's, or a browser's push service.
public enum PushPlatform: String, Sendable, CaseIterable, Codable {
    case ios, android, web
}

/// A device registered for pushes.
struct PushDevice: Sendable, Hashable {
    var id: UUID
    var platform: PushPlatform
    /// The APNs device token (lowercase hex), the FCM registration token, or the
    /// Web Push endpoint (an https URL).
    var token: String
    /// APNs only: `production` or `sandbox`.
    var environment: String?
    /// Web Push only: the browser's P-256 public key and authentication secret (base64url).
    var p256dh: String?
    var auth: String?
    var createdAt: Date

    /// APNs environments a registration may name.
    static let environments = ["production", "sandbox"]
    /// Registrations kept per user; registering one more drops the oldest.
    static let perUser = 20
}

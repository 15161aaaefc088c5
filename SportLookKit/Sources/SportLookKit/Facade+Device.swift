import Foundation
import SportLookAPI

/// What can be reported.
public enum ReportTarget: Sendable, Hashable {
    case person(Person.ID)
    case event(Event.ID)
    case group(Group.ID)
    /// A chat message, by its id.
    case message(String)
    /// A photo, by its media id.
    case photo(String)
}

/// Why.
public enum ReportReason: String, Sendable, Hashable, CaseIterable {
    case spam, harassment, inappropriate, impersonation, safety, other
}

extension SportLookClient.Me {
    /// Registers this device for pushes: an APNs device token (hex), in `sandbox` for
    /// development builds. Returns the registration's id (to remove it on sign-out).
    @discardableResult
    public func registerForPushes(apnsToken: String, sandbox: Bool = false) async throws -> String {
        try await client.call {
            try await $0.registerDevice(
                body: .json(.init(platform: .ios, token: apnsToken, environment: sandbox ? .sandbox : .production))
            ).created.body.json.id
        }
    }

    /// Stops pushes to a registered device.
    public func removeDevice(_ id: String) async throws {
        _ = try await client.call { try await $0.removeDevice(path: .init(device: id)).noContent }
    }

    /// The devices registered for pushes: their ids and platforms.
    public func devices() async throws -> [(id: String, platform: String)] {
        try await client.call { try await $0.listDevices().ok.body.json }.items.map { ($0.id, $0.platform.rawValue) }
    }

    /// Opens (or renews) the personal calendar feed: its path under the server, for a calendar app to subscribe to.
    public func openCalendarFeed() async throws -> String {
        try await client.call { try await $0.openCalendarFeed().created.body.json.path }
    }

    /// Closes the calendar feed: its address stops working.
    public func closeCalendarFeed() async throws {
        _ = try await client.call { try await $0.closeCalendarFeed().noContent }
    }

    /// The person's levels by sport slug (0–7).
    public func levels() async throws -> [String: Double] {
        try await client.call { try await $0.getPlayer().ok.body.json.levels.additionalProperties }
    }

    /// Sets levels by sport slug (nil forgets one); the others stay.
    @discardableResult
    public func setLevels(_ levels: [String: Double?]) async throws -> [String: Double] {
        try await client.call {
            try await $0.updatePlayer(body: .json(.init(levels: .init(additionalProperties: levels)))).ok.body.json.levels
                .additionalProperties
        }
    }

    /// Asks for a copy of everything the account holds; the inbox says when it is ready.
    public func requestDataExport() async throws {
        _ = try await client.call { try await $0.requestExport().accepted }
    }

    /// Reports something to the moderators.
    public func report(_ target: ReportTarget, because reason: ReportReason, details: String? = nil) async throws {
        let (type, id): (Operations.Report.Input.Body.JsonPayload.TargetTypePayload, String) =
            switch target {
            case .person(let id): (.user, id.description)
            case .event(let id): (.event, id.description)
            case .group(let id): (.group, id.description)
            case .message(let id): (.message, id)
            case .photo(let id): (.photo, id)
            }
        _ = try await client.call {
            try await $0.report(
                body: .json(.init(targetType: type, targetId: id, reason: .init(rawValue: reason.rawValue) ?? .other, details: details)))
        }
    }
}

extension SportLookClient {
    /// The sports the server knows, in its order.
    public func sports() async throws -> [Sport] {
        try await api.listSports().ok.body.json.items.map { Sport(slug: $0.slug, name: $0.name) }
    }
}

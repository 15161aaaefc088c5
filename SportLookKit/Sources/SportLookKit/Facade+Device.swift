import Foundation
internal import SportLookAPI

/// What can be reported.
public enum ReportTarget: Sendable, Hashable, Codable {
    /// A person.
    case person(Person.ID)
    /// A game.
    case event(Event.ID)
    /// A group.
    case group(Group.ID)
    /// A chat message, by its id.
    case message(String)
    /// A photo, by its media id.
    case photo(String)
}

extension ReportTarget {
    /// Its type as the contract names it (`user`, `event`…).
    var type: String {
        switch self {
        case .person: "user"
        case .event: "event"
        case .group: "group"
        case .message: "message"
        case .photo: "photo"
        }
    }

    /// Its id as the contract writes it.
    var id: String {
        switch self {
        case .person(let id): id.description
        case .event(let id): id.description
        case .group(let id): id.description
        case .message(let id), .photo(let id): id
        }
    }
}

/// Why something is reported.
public enum ReportReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Advertising, scams, the same thing over and over.
    case spam
    /// Insults, threats, unwanted contact.
    case harassment
    /// Content that does not belong here.
    case inappropriate
    /// Pretending to be someone else.
    case impersonation
    /// Someone may get hurt.
    case safety
    /// Something else (say what in the details).
    case other
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
    public func devices() async throws -> [RegisteredDevice] {
        try await client.call { try await $0.listDevices().ok.body.json }.items.map {
            RegisteredDevice(id: $0.id, platform: $0.platform.rawValue)
        }
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

    /// Asks for a copy of everything the account holds; the inbox says when it is ready
    /// (then ``dataExports()`` has its ``DataExport/downloadPath``).
    @discardableResult
    public func requestDataExport() async throws -> DataExport {
        try DataExport(try await client.call { try await $0.requestExport().accepted.body.json })
    }

    /// Reports something to the moderators.
    public func report(_ target: ReportTarget, because reason: ReportReason, details: String? = nil) async throws {
        let type = try SportLookClient.wire(target.type, as: Operations.Report.Input.Body.JsonPayload.TargetTypePayload.self)
        _ = try await client.call {
            try await $0.report(
                body: .json(
                    .init(targetType: type, targetId: target.id, reason: .init(rawValue: reason.rawValue) ?? .other, details: details)))
        }
    }
}

extension SportLookClient {
    /// The sports the server knows, in its order.
    public func sports() async throws -> [Sport] {
        try await call { try await $0.listSports().ok.body.json }.items.map { Sport(slug: $0.slug, name: $0.name) }
    }
}

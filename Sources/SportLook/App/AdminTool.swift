import AsyncHTTPClient
import Foundation
import Logging

/// The database-side work of the `sportlook` commands other than `serve`.
public struct AdminTool: Sendable {
    let database: Database
    let resources: Resources
    let logger: Logger
    let configuration: AppConfiguration

    /// Opens the configured database.
    public static func open(_ configuration: AppConfiguration, logger: Logger) async throws -> AdminTool {
        let resources = try Resources.locate()
        let database = try await Database.open(
            configuration.database, poolSize: 4, timeout: max(configuration.databaseTimeout, 30), logger: logger)
        return AdminTool(database: database, resources: resources, logger: logger, configuration: configuration)
    }

    /// Applies pending migrations; returns their versions.
    public func migrate() async throws -> [Int] {
        try await Migrator(database: database, resources: resources, logger: logger).migrate()
    }

    /// Loads `Seeds/sports.json`; returns the number of sports.
    public func seedSports() async throws -> Int {
        try await SportStore.seed(database, from: resources.seed("sports.json"))
    }

    /// Writes a deterministic demo data set (see `DemoSeeder`).
    public func seedDemo(
        users: Int, events: Int, cities: Int = WorldCities.all.count, groups: Int = 0, membersOnly: Double = 0, seed: UInt64,
        progress: @escaping @Sendable (Int, Int, String) -> Void
    ) async throws -> DemoReport {
        let sports = try await SportStore.load(database)
        return try await DemoSeeder(database: database, sports: sports).run(
            users: users, events: events, cities: cities, groups: groups, membersOnly: membersOnly,
            seed: seed, progress: progress)
    }

    /// Staff roles and the audit log from the command line: what it changes is told to
    /// the running servers (on PostgreSQL at once; a SQLite server's cached sessions
    /// within a minute).
    var staff: StaffService {
        StaffService(
            store: StaffStore(database: database), sessions: SessionStore(database: database),
            write: Writer(database: database, feed: ChangeFeed(database: database, logger: logger)), clock: SystemClock())
    }

    /// Gives a staff role; returns the audit log's line for it.
    public func grantStaff(_ role: String, to email: String, reason: String) async throws -> String {
        guard let role = StaffRole(rawValue: role) else {
            throw DomainError.invalidParameter(
                "role", Sentence("must be one of \(StaffRole.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        return Self.line(try await staff.grant(role, to: email, by: .commandLine, reason: reason))
    }

    /// Takes a staff role away (the person's sessions end); returns the audit log's line for it.
    public func revokeStaff(from email: String, reason: String) async throws -> String {
        Self.line(try await staff.revoke(from: email, by: .commandLine, reason: reason))
    }

    /// Every member of staff, one line each.
    public func staffList() async throws -> [String] {
        try await staff.staff().map { "\($0.role.rawValue)  \($0.email)  \($0.name)  \($0.id.lowercased)" }
    }

    /// The audit log, newest first, one line each.
    public func auditLog(action: String?, target: String?, limit: Int) async throws -> [String] {
        try await staff.log(action: action, targetID: target?.lowercased(), limit: limit).map(Self.line)
    }

    static func line(_ entry: AuditEntry) -> String {
        "\(RFC3339.format(entry.at))  \(entry.actor)  \(entry.action)  \(entry.targetType) \(entry.targetID)  \(entry.details)  — \(entry.reason)"
    }

    /// The job queue: counts by state and kind, and the oldest queued job's age.
    public func jobSummary() async throws -> String {
        try await JobStore(database: database).summary().rendered
    }

    /// Queues dead jobs again (all, or one kind); returns how many.
    public func retryDeadJobs(kind: String?) async throws -> Int {
        try await JobStore(database: database).retryDead(kind: kind)
    }

    /// Open reports, oldest first, one line each.
    public func openReports(limit: Int) async throws -> [String] {
        try await SafetyStore(database: database).openReports(limit: limit).map { r in
            "\(RFC3339.format(r.createdAt))  \(r.id.lowercased)  \(r.targetType) \(r.targetID.lowercased)  \(r.reason)  by \(r.reporterID.lowercased)"
                + (r.details.map { "  — \($0.prefix(200))" } ?? "")
                + (r.content.map { "\n    as reported: \($0)" } ?? "")
        }
    }

    /// Names that mix look-alike scripts inside a word, oldest flag first.
    public func flaggedNames(limit: Int) async throws -> [String] {
        try await AccountStore(database: database).flaggedNames(limit: limit).map { f in
            "\(RFC3339.format(f.flaggedAt))  user \(f.userID.lowercased)  \(f.scripts)  \(f.name)"
        }
    }

    /// Deletes every upload not put to use within a day; returns how many uploads and
    /// stored files went.
    public func collectUnattachedMedia() async throws -> (media: Int, files: Int) {
        let store = MediaStore(database: database)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let blobs = try makeBlobStore(configuration, client: client)
            var total = (media: 0, files: 0)
            while true {
                let removed = try await MediaService.collectUnattached(
                    store: store, blobs: blobs, before: Date().addingTimeInterval(-MediaService.Settings().unattachedLifetime), limit: 500)
                total.media += removed.media
                total.files += removed.blobs
                if removed.media < 500 { break }
            }
            try await client.shutdown()
            return total
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Sends a test notification to each of the user's devices through its channel
    /// and says, per device, how the service answered (a registration the service says
    /// is gone is removed, as a real push would).
    public func pushTest(user: UUID) async throws -> [String] {
        let inbox = InboxStore(database: database)
        let devices = try await inbox.devices(of: user, at: Date())
        guard !devices.isEmpty else { return ["user \(user.lowercased) has no device registered by a live session"] }
        let webhookClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let pushClient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: configuration.push.tls, redirectConfiguration: .disallow))
        let channels: PushChannels
        do {
            channels = try await configuration.push.channels(
                configuration, database: database, webhookClient: webhookClient, pushClient: pushClient
            ).0
        } catch {
            try? await webhookClient.shutdown()
            try? await pushClient.shutdown()
            throw error
        }
        let language = try await database.read { sql in
            try await AccountStore(database: database).languages(of: [user], on: sql)[user] ?? .en
        }
        var message = NotificationMessage(
            to: user, .invitation, title: "SportLook", body: Catalogue.text(.pushTestBody, in: language), data: [:])
        message.kind = "push_test"
        let content = PushContent(
            jobID: UUID(), notificationID: UUID(), message: message, badge: try await inbox.unreadCounts(users: [user])[user] ?? 0)
        var lines: [String] = []
        for device in devices {
            let name = "\(device.platform.rawValue) \(device.id.lowercased)"
            guard let channel = channels.channel(for: device) else {
                lines.append("\(name): no channel is configured for \(device.platform.rawValue)")
                continue
            }
            let outcome = await channel.send(content, to: [device])[device.id] ?? .failed(reason: "no answer")
            switch outcome {
            case .delivered: lines.append("\(name) via \(channel.name): delivered")
            case .gone:
                try await inbox.removeDevices(ids: [device.id])
                lines.append("\(name) via \(channel.name): gone (the service no longer knows it; the registration is removed)")
            case .retry(_, let reason, let detail): lines.append("\(name) via \(channel.name): try again later (\(reason)) \(detail)")
            case .failed(let reason, let detail): lines.append("\(name) via \(channel.name): refused (\(reason)) \(detail)")
            }
        }
        for channel in channels.all { await channel.close() }
        try? await webhookClient.shutdown()
        try? await pushClient.shutdown()
        return lines
    }

    /// Closes the database.
    public func close() async { await database.close() }
}

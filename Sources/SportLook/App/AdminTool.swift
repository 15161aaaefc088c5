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
        let database = try await Database.open(configuration.database, poolSize: 4, timeout: max(configuration.databaseTimeout, 30), logger: logger)
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
    public func seedDemo(users: Int, events: Int, seed: UInt64, progress: @escaping @Sendable (Int, Int, String) -> Void) async throws -> DemoReport {
        let sports = try await SportStore.load(database)
        return try await DemoSeeder(database: database, sports: sports).run(users: users, events: events, seed: seed, progress: progress)
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
                let removed = try await MediaService.collectUnattached(store: store, blobs: blobs, before: Date().addingTimeInterval(-MediaService.Settings().unattachedLifetime), limit: 500)
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

    /// Closes the database.
    public func close() async { await database.close() }
}

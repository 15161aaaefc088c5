import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The services' life: what runs in the background, warming up, and closing.
extension AppServices {
    /// The long-running parts, in start order (they stop in reverse order).
    var backgroundServices: [any Service] {
        [
            Shutdown(services: self), schedulerLag, bus, changes, TokenUseFlusher(tokens: tokens),
            IndexMaintenance(sync: sync, cachesCards: !configuration.nearbyCardsFromDatabase),
            ChatHubService(hub: hub, instanceID: changes.instanceID), MediaCollector(media: media),
        ] + workers
    }

    /// Whether every in-memory index is warm.
    public var isWarm: Bool { sync.isWarm }

    /// Returns once every in-memory index is warm (or throws after a minute).
    public func waitUntilWarm() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !isWarm {
            guard ContinuousClock.now < deadline else { throw DatabaseUnavailable(reason: "indexes did not warm within a minute") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Closes what the services hold open.
    func close() async {
        try? await httpClient.shutdown()
        for channel in channels.all { await channel.close() }
        try? await pushClient.shutdown()
        try? await mediaWorkers.shutdownGracefully()
        await hasher.shutdown()
        await database.close()
    }

    /// Stopped last: closes the database once everything else has stopped.
    struct Shutdown: Service {
        let services: AppServices
        func run() async throws {
            try? await gracefulShutdown()
            await services.close()
        }
    }
}

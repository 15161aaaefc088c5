import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Deletes uploads nobody put to use within a day, every ten minutes. Instances doing
/// it at once is harmless: a deletion is one transaction, and a row already gone
/// yields no blob to remove.
struct MediaCollector: Service {
    let media: MediaService

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(600))
                do {
                    _ = try await media.collectUnattached()
                } catch is CancellationError {
                    return
                } catch {
                    media.logger.warning("cannot remove unattached uploads; will try again", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}

/// Warms the indexes at start, caches the event cards, then takes finished events out every half minute.
struct IndexMaintenance: Service {
    let sync: CacheSync
    /// Whether every card is cached (`NEARBY_CARDS=database` turns it off).
    let cachesCards: Bool

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await sync.warmUntilDone()
            if cachesCards {
                do {
                    try await sync.fillCards(sync.eventIndex)
                } catch is CancellationError {
                    return
                } catch {
                    // Not fatal: pages read the cards they lack from the database and keep them.
                    sync.logger.warning("cannot cache every event card; pages will read them as needed", metadata: ["error": "\(error)"])
                }
            }
            while true {
                try await Task.sleep(for: .seconds(30))
                sync.eventIndex.sweep(now: sync.clock.now())
            }
        }
    }
}

import Foundation
import GeoGrid
import Logging
import Synchronization

/// The listed groups of the world in memory: a ``GeoGrid`` of their (snapped) home
/// areas, tagged with their sports' bits and, as the entry's `time`, their member
/// count, so "groups of padel with at least 10 members near here" is one walk of the
/// grid. Unlisted and deleted groups are not in it.
///
/// Every write on this instance applies the group's row after commit; other
/// instances' writes arrive through the change feed and are re-read. The row's
/// version (bumped by every membership change) makes late or repeated updates
/// harmless.
final class GroupIndex: Sendable {
    private struct State {
        var versions: [UUID: Int64] = [:]
        var removed = Tombstones(capacity: 100_000)
        var backlog = WarmBacklog<(Group, Date)>()
    }

    let grid: GeoGrid
    private let state = Mutex(State())
    private let sports: SportCatalog
    private let warm = Atomic<Bool>(false)

    init(cellSize: Double, sports: SportCatalog) {
        self.grid = GeoGrid(cellSize: cellSize)
        self.sports = sports
    }

    var isWarm: Bool { warm.load(ordering: .acquiring) }

    private func entry(_ group: Group) -> GeoEntry {
        GeoEntry(
            key: group.id.geoKey, point: group.location.geoPoint,
            tags: GeoTags(mask: sports.mask(of: group.sports), time: Int64(group.memberCount)))
    }

    /// Whether the group belongs in the index.
    static func isFindable(_ group: Group) -> Bool { !group.isDeleted && group.visibility == .listed }

    /// Loads every listed group (at start-up) from `pages`, which hands each page to the closure it is given.
    func warm(logger: Logger, from pages: (_ each: ([Group]) -> Void) async throws -> Void) async throws {
        var entries: [GeoEntry] = []
        var versions: [UUID: Int64] = [:]
        try await pages { page in
            for group in page where Self.isFindable(group) {
                entries.append(entry(group))
                versions[group.id] = group.version
            }
        }
        grid.replaceAll(with: entries)
        let backlog = state.withLock { s in
            s.versions = versions
            return s.backlog.finish()
        }
        for (group, at) in backlog { apply(group, now: at) }
        warm.store(true, ordering: .releasing)
        logger.info("group index warm", metadata: ["groups": "\(entries.count)"])
    }

    /// Applies a group's current row: in the index when listed and live, out otherwise.
    func apply(_ group: Group, now: Date) {
        state.withLock { s in
            if s.backlog.hold((group, now)) { return }
            if let version = s.versions[group.id], version >= group.version { return }
            if s.removed.hides(group.id, version: group.version) { return }
            if Self.isFindable(group) {
                s.versions[group.id] = group.version
                s.removed.lift(group.id)
                grid.upsert(entry(group))
            } else {
                s.versions[group.id] = nil
                s.removed.bury(group.id, version: group.version, at: now)
                grid.remove(group.id.geoKey)
            }
        }
    }
}

import Foundation
import GeoGrid
import Logging
import SQLKit
import Synchronization

/// The live events of the world in memory: a ``GeoGrid`` of their positions
/// (tagged with the sport's bit and the start time) and a card per event, the
/// event's JSON encoded once, so a nearby page is answered without the
/// database and without encoding anything but the caller's part.
///
/// Only active, unfinished events are kept. Every write on this instance
/// applies its new row after commit; other instances' writes arrive through
/// the bus and are re-read. A version number per event makes late or repeated
/// updates harmless.
final class EventIndex: Sendable {
    struct Card: Sendable {
        var version: Int64
        var endsAt: Date
        var organiserID: UUID
        /// The event's JSON without its closing brace (see ``EventJSON``).
        var json: [UInt8]
    }

    private struct State {
        var cards: [UUID: Card] = [:]
        /// Versions of events taken out, so that an older update cannot bring them back.
        var removed: [UUID: (version: Int64, at: Date)] = [:]
        /// The newest `updated_at` applied: where a resync starts.
        var newestUpdate = Date.distantPast
        /// Updates that arrive while warming, applied once the warm data is in.
        var backlog: [(Event, Date)]? = []
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

    private func entry(_ event: Event) -> GeoEntry {
        GeoEntry(key: event.id.geoKey, point: event.location.geoPoint,
                 tags: GeoTags(mask: sports.mask(of: [event.sport]), time: event.startsAt.millisecondsSince1970))
    }

    /// Loads every live event from the database (at start-up).
    func warm(from database: Database, now: Date, logger: Logger) async throws {
        let started = ContinuousClock.now
        var entries: [GeoEntry] = []
        var cards: [UUID: Card] = [:]
        var newest = Date.distantPast
        var after: (endsAt: Date, id: UUID)?
        while true {
            // Keyset pages in the order of the events_live index (status, ends_at, id):
            // each page is a range read, never a sort of every live event.
            let page: [Event] = try await database.read { [after] sql in
                let from: SQLQueryString = after.map { "AND (e.ends_at, e.id) > (\(bind: $0.endsAt), \(bind: $0.id))" } ?? ""
                return try await sql.raw("""
                    SELECT \(unsafeRaw: EventStore.columns) FROM \(unsafeRaw: EventStore.from)
                    WHERE e.status = 'active' AND e.ends_at > \(bind: now) \(from)
                    ORDER BY e.ends_at, e.id LIMIT 5000
                    """).all().map(EventStore.decode)
            }
            for event in page {
                entries.append(entry(event))
                cards[event.id] = Card(version: event.version, endsAt: event.endsAt, organiserID: event.organiserID, json: EventJSON.body(event, sports: sports))
                newest = max(newest, event.updatedAt)
            }
            guard page.count == 5000, let last = page.last else { break }
            after = (last.endsAt, last.id)
        }
        grid.replaceAll(with: entries)
        let backlog = state.withLock { s in
            s.cards = cards
            s.newestUpdate = max(s.newestUpdate, newest)
            defer { s.backlog = nil }
            return s.backlog ?? []
        }
        for (event, at) in backlog { apply(event, now: at) }
        warm.store(true, ordering: .releasing)
        logger.info("event index warm", metadata: [
            "events": "\(cards.count)", "seconds": "\(ContinuousClock.now - started)", "grid": "\(grid.statistics)",
        ])
    }

    /// Applies an event's current row (after a commit, or after re-reading it).
    func apply(_ event: Event, now: Date) {
        state.withLock { s in
            if s.backlog != nil {
                s.backlog?.append((event, now))
                return
            }
            if let card = s.cards[event.id], card.version >= event.version { return }
            if let removed = s.removed[event.id], removed.version >= event.version { return }
            s.newestUpdate = max(s.newestUpdate, event.updatedAt)
            if event.isOpen(at: now) {
                s.cards[event.id] = Card(version: event.version, endsAt: event.endsAt, organiserID: event.organiserID, json: EventJSON.body(event, sports: sports))
                s.removed[event.id] = nil
                grid.upsert(entry(event))
            } else {
                s.cards[event.id] = nil
                s.removed[event.id] = (event.version, now)
                grid.remove(event.id.geoKey)
            }
        }
    }

    /// The newest update applied, to re-read what may have been missed.
    var newestUpdate: Date { state.withLock { $0.newestUpdate } }

    /// The JSON of each id's card, in the order asked; nil for an event no longer live at `now`.
    func cards(_ ids: [UUID], now: Date) -> [[UInt8]?] {
        state.withLock { s in
            ids.map { id in
                guard let card = s.cards[id], card.endsAt > now else { return nil }
                return card.json
            }
        }
    }

    /// Takes out events that have finished, and forgets old removal marks.
    @discardableResult
    func sweep(now: Date) -> Int {
        let finished: [UUID] = state.withLock { s in
            let finished = s.cards.filter { $0.value.endsAt <= now }
            for (id, card) in finished {
                s.cards[id] = nil
                s.removed[id] = (card.version, now)
            }
            s.removed = s.removed.filter { now.timeIntervalSince($0.value.at) < 600 }
            return Array(finished.keys)
        }
        if !finished.isEmpty { grid.apply(finished.map { .remove($0.geoKey) }) }
        return finished.count
    }

    var count: Int { state.withLock { $0.cards.count } }
}

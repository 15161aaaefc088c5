import Foundation
import GeoGrid
import Logging
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
///
/// Start-up is in two steps, so that `/ready` does not wait for a million
/// JSON cards: ``warm(from:now:logger:)`` reads only what the grid needs (id,
/// sport, position, times, version) and makes the index ready; then
/// ``fillCards(now:logger:from:)`` encodes every card in the background. Until a
/// card is there, a page reads the few it lacks from the database in one query
/// and keeps them (``remember(_:now:)``).
final class EventIndex: Sendable {
    /// Three words, so that a ``CardTable`` slot holds an id and its card in 40 bytes.
    struct Card: Sendable, BitwiseCopyable {
        var version: Int64
        private var endsAtSeconds: Double
        /// A ``CardArena/Ref``'s bits with ``hasJSON`` set, or 0.
        private var jsonBits: UInt64
        private static let hasJSON: UInt64 = 1 << 63

        init(version: Int64, endsAt: Date, json: CardArena.Ref?) {
            self.version = version
            endsAtSeconds = endsAt.timeIntervalSinceReferenceDate
            jsonBits = 0
            self.json = json
        }

        var endsAt: Date { Date(timeIntervalSinceReferenceDate: endsAtSeconds) }

        /// Where the event's JSON without its closing brace (see ``EventJSON``) is
        /// in the arena, once encoded.
        var json: CardArena.Ref? {
            get { jsonBits & Self.hasJSON == 0 ? nil : CardArena.Ref(bits: jsonBits & ~Self.hasJSON) }
            set { jsonBits = newValue.map { Self.hasJSON | $0.bits } ?? 0 }
        }
    }

    /// What the index holds of the events a page wants to show, in the order asked: no
    /// range for an event not live (cancelled, finished or unknown), or live but not
    /// cached yet (then its index is in `unloaded`).
    typealias Cards = CardPage

    private struct State {
        var cards = CardTable<Card>()
        let arena = CardArena()
        /// Versions of events taken out, so that an older update cannot bring them back.
        var removed = Tombstones()
        /// When the warm-up began (in the app's clock): a first resync starts there.
        var warmStartedAt: Date?
        /// Updates that arrive while warming, applied once the warm data is in.
        var backlog = WarmBacklog<(Event, Date)>()

        /// Gives the card of `id` these bytes (compacted: ``CardCompaction``).
        mutating func setJSON(_ kept: [UInt8], of id: UUID) {
            let old = cards[id]?.json
            cards[id]?.json = arena.store(kept, for: id)
            release(old)
        }

        /// Copies a card's bytes to the arena's end (``layOutCardsByCell(batch:)``). Its
        /// old chunk is not compacted when mostly left behind, which would copy its
        /// last cards to the end before their turn, out of order: it is freed once empty.
        mutating func moveToEnd(_ id: UUID) {
            guard let old = cards[id]?.json else { return }
            cards[id]?.json = arena.store(arena.bytes(old), for: id)
            _ = arena.release(old)
            if arena.isEmpty(old.chunk) { compact(old.chunk) }
        }

        /// Leaves a card's old bytes behind, and compacts their chunk once it is
        /// mostly left behind.
        mutating func release(_ ref: CardArena.Ref?) {
            guard let ref, let chunk = arena.release(ref) else { return }
            compact(chunk)
        }

        /// Moves chunk `c`'s live cards to the end, and frees it.
        private mutating func compact(_ c: Int) {
            arena.moveLive(from: c, isLive: { cards[$0]?.json }, moved: { cards[$0]?.json = $1 })
        }
    }

    let grid: GeoGrid
    private let state = Mutex(State())
    /// The grid's scope number of each group with members-only events here.
    private let scopeNumbers = ScopeNumbers()
    private let sports: SportCatalog
    /// An event's card: the bytes a page copies for it (the HTTP layer's encoding;
    /// opaque here).
    let encodeCard: @Sendable (Event) -> [UInt8]
    private let warm = Atomic<Bool>(false)
    private let cardsComplete = Atomic<Bool>(false)

    init(cellSize: Double, sports: SportCatalog, encodeCard: @escaping @Sendable (Event) -> [UInt8]) {
        self.grid = GeoGrid(cellSize: cellSize)
        self.sports = sports
        self.encodeCard = encodeCard
    }

    var isWarm: Bool { warm.load(ordering: .acquiring) }

    /// Whether every live event's card has been encoded once (after ``fillCards(now:logger:from:)``).
    var hasAllCards: Bool { cardsComplete.load(ordering: .acquiring) }

    private func entry(id: UUID, sport: String, location: Coordinate, startsAt: Date, traits: UInt64, restriction: EventRestriction)
        -> GeoEntry
    {
        GeoEntry(
            key: id.geoKey, point: location.geoPoint,
            tags: GeoTags(
                mask: sports.mask(of: [sport]), time: startsAt.millisecondsSince1970, traits: traits,
                scope: scopeNumbers.scope(of: restriction)
            ))
    }

    /// Who may see a live event (nil: not a live event here).
    func restriction(of id: UUID) -> EventRestriction? {
        guard let entry = grid[id.geoKey] else { return nil }
        let scope = entry.tags.scope
        guard scope != 0 else { return .open }
        // The shared last number names no one group: the caller reads the row.
        return scopeNumbers.group(of: scope).map { .members($0) }
    }

    /// The scopes of the members-only events someone in these groups may find.
    /// Derived once per memberships while no group is numbered anew (a group's first
    /// members-only event numbers it: then it is derived again).
    func scopes(for memberships: Memberships) -> GeoScopes {
        guard !memberships.groups.isEmpty else { return .none }
        return memberships.memo.value(tag: scopeNumbers.count) { GeoScopes(scopeNumbers.numbers(of: memberships.groups)) }
    }

    /// Loads where every live event is (at start-up), from `load` (the live events'
    /// positions at `now`, in parts); the cards follow in ``fillCards(now:logger:from:)``.
    func warm(now: Date, logger: Logger, load: @Sendable (Date) async throws -> [[EventPosition]]) async throws {
        let started = ContinuousClock.now
        state.withLock { $0.warmStartedAt = now }
        let parts = try await load(now)
        let total = parts.reduce(0) { $0 + $1.count }
        var entries: [GeoEntry] = []
        entries.reserveCapacity(total)
        var cards = CardTable<Card>(minimumCapacity: total)
        for event in parts.joined() {
            let traits = GameTraits.of(levels: event.levelRange, audience: event.audience, hasFreePlaces: event.hasFreePlaces)
            entries.append(
                entry(
                    id: event.id, sport: event.sport, location: event.location, startsAt: event.startsAt, traits: traits,
                    restriction: event.restriction))
            cards[event.id] = Card(version: event.version, endsAt: event.endsAt, json: nil)
        }
        grid.replaceAll(with: entries)
        let backlog = state.withLock { s in
            var old: [CardArena.Ref] = []
            s.cards.forEach { _, card in if let ref = card.json { old.append(ref) } }
            for ref in old { s.release(ref) }
            s.cards = cards
            // The index's table its only owner, so that the next change does not copy it.
            cards = CardTable()
            return s.backlog.finish()
        }
        for (event, at) in backlog { apply(event, now: at) }
        warm.store(true, ordering: .releasing)
        logger.info(
            "event index warm",
            metadata: [
                "events": "\(total)", "seconds": "\(ContinuousClock.now - started)", "grid": "\(grid.statistics)",
            ])
    }

    /// Encodes the card of every live event that has none yet (after ``warm(now:logger:load:)``,
    /// in the background), from `pages`, which hands each page of live events to the
    /// closure it is given.
    func fillCards(now: Date, logger: Logger, from pages: (_ each: ([Event]) -> Void) async throws -> Void) async throws {
        let started = ContinuousClock.now
        let encodeCard = self.encodeCard
        try await pages { events in remember(events.map { ($0, $0.isOpen(at: now) ? encodeCard($0) : nil) }, now: now) }
        layOutCardsByCell()
        cardsComplete.store(true, ordering: .releasing)
        let (live, held) = cardBytes
        logger.info(
            "event cards cached",
            metadata: [
                "events": "\(count)", "seconds": "\(ContinuousClock.now - started)", "card bytes": "\(live)", "arena bytes": "\(held)",
            ])
    }

    /// Where each card's bytes are in the arena (for tests and diagnostics).
    func places(of ids: [UUID]) -> [CardArena.Ref?] { state.withLock { s in ids.map { s.cards[$0]?.json } } }

    /// The bytes of the live cards, and those the arena holds for them.
    var cardBytes: (live: Int, held: Int) { state.withLock { s in (s.arena.liveBytes, s.arena.capacity) } }

    /// Copies every card's bytes to the arena's end in the grid's cell order
    /// (``GeoGrid/keysByCell``), so that the cards of a page's nearby events sit
    /// together: filled in the order the database gave them, a page's 50 cards were in
    /// 50 places of hundreds of megabytes, each a wait on memory. In batches, so that
    /// pages wait for the lock no longer than a batch. A chunk left behind is freed
    /// once its last card is copied, so the arena briefly holds up to twice its
    /// bytes. Cards written later go to the end, as before.
    func layOutCardsByCell(batch: Int = 2_048) {
        let keys = grid.keysByCell
        var start = 0
        while start < keys.count {
            let end = min(start + batch, keys.count)
            state.withLock { s in
                for key in keys[start..<end] { s.moveToEnd(UUID(geoKey: key)) }
                // A chunk freed while a page was copying from it goes now, if it can.
                s.arena.freeRetired()
            }
            start = end
        }
    }

    /// Applies an event's current row (after a commit, or after re-reading it).
    func apply(_ event: Event, now: Date) {
        // Most re-reads bring nothing new: encode only a newer row.
        guard state.withLock({ s in s.backlog.isWarming || isNewer(event, than: s) }) else { return }
        // Compacted before the lock, which pages wait for.
        let json = event.isOpen(at: now) ? CardCompaction.compact(encodeCard(event)) : nil
        state.withLock { s in
            if s.backlog.hold((event, now)) { return }
            apply(event, json: json, now: now, to: &s)
        }
    }

    /// Keeps cards read from the database: fills in a card not yet encoded, and
    /// applies a row newer than the index's (an update whose news is still on its way).
    /// Each row comes with its card, nil when the event is not open at `now`.
    func remember(_ rows: [(Event, [UInt8]?)], now: Date) {
        let rows = rows.map { ($0.0, $0.1.map(CardCompaction.compact)) }
        state.withLock { s in
            guard !s.backlog.isWarming else { return }
            for (event, json) in rows {
                if let card = s.cards[event.id], card.version == event.version {
                    if card.json == nil, let json { s.setJSON(json, of: event.id) }
                } else {
                    apply(event, json: json, now: now, to: &s)
                }
            }
        }
    }

    /// Whether `event` is a newer row than the index holds (or held, before taking it out).
    private func isNewer(_ event: Event, than s: State) -> Bool {
        if let card = s.cards[event.id], card.version >= event.version { return false }
        if s.removed.hides(event.id, version: event.version) { return false }
        return true
    }

    /// `json` is the event's card (compacted) when it is open at `now`, nil otherwise.
    private func apply(_ event: Event, json: [UInt8]?, now: Date, to s: inout State) {
        guard isNewer(event, than: s) else { return }
        if let json {
            let card = Card(version: event.version, endsAt: event.endsAt, json: s.arena.store(json, for: event.id))
            s.release(s.cards.updateValue(card, forKey: event.id)?.json)
            s.removed.lift(event.id)
            let traits = GameTraits.of(levels: event.levelRange, audience: event.audience, hasFreePlaces: event.hasFreePlaces)
            grid.upsert(
                entry(
                    id: event.id, sport: event.sport, location: event.location, startsAt: event.startsAt, traits: traits,
                    restriction: EventRestriction(event)))
        } else {
            s.release(s.cards.removeValue(forKey: event.id)?.json)
            s.removed.bury(event.id, version: event.version, at: now)
            grid.remove(event.id.geoKey)
        }
    }

    /// When the warm-up began, once it has.
    var warmStartedAt: Date? { state.withLock { $0.warmStartedAt } }

    /// What the index holds of each id, in the order asked. Under the lock, only
    /// where each card's bytes are; they are copied after it (see ``CardArena``).
    func cards(_ ids: [UUID], now: Date) -> Cards {
        var cards = Cards()
        cards.ranges.reserveCapacity(ids.count)
        var found: [(index: Int, bytes: UnsafeRawBufferPointer)] = []
        found.reserveCapacity(ids.count)
        let arena = state.withLock { s in
            MemoryTouch.keep(s.cards.touch(ids))
            for (i, id) in ids.enumerated() {
                cards.ranges.append(nil)
                guard let card = s.cards[id], card.endsAt > now else { continue }
                if let ref = card.json { found.append((i, s.arena.bytes(ref))) } else { cards.unloaded.append(i) }
            }
            s.arena.beginRead()
            return s.arena
        }
        // Cards are kept compacted (under half their JSON): each is written out
        // once, straight into the page's bytes, whose size is known before (and the
        // slack the writer may write over after the last). Sizing them reads their
        // lines ahead (their first, read for the length, aside).
        var ranges = cards.ranges
        cards.ranges = []  // (so that `ranges` is the array's only holder, and is written in place)
        cards.bytes = [UInt8](
            unsafeUninitializedCapacity: MemoryTouch.sizes(of: found.lazy.map(\.bytes), from: 64, CardCompaction.expandedCount)
                + CardCompaction.slack
        ) { buffer, count in
            count = 0
            guard let start = buffer.baseAddress else { return }
            for (i, bytes) in found {
                let written = CardCompaction.expand(bytes, to: start + count)
                ranges[i] = count..<(count + written)
                count += written
            }
        }
        cards.ranges = ranges
        arena.endRead()
        return cards
    }

    /// Takes out events that have finished, and forgets old removal marks.
    @discardableResult
    func sweep(now: Date) -> Int {
        let finished: [UUID] = state.withLock { s in
            var finished: [(UUID, Card)] = []
            s.cards.forEach { id, card in if card.endsAt <= now { finished.append((id, card)) } }
            for (id, card) in finished {
                s.cards[id] = nil
                s.removed.bury(id, version: card.version, at: now)
                s.release(card.json)
            }
            s.removed.expire(now: now)
            return finished.map(\.0)
        }
        if !finished.isEmpty { grid.apply(finished.map { .remove($0.geoKey) }) }
        return finished.count
    }

    var count: Int { state.withLock { $0.cards.count } }
}

import Foundation
import GeoGrid
import Logging
import Synchronization

/// Discoverable people in memory: a ``GeoGrid`` of their (snapped) positions
/// tagged with their favourite sports' bits, and a public card per person
/// (encoded once, its bytes in a ``CardArena``: a page finds where its people's
/// cards are under the lock and copies them after it, as event pages do). Nobody's
/// exact position is held: locations are snapped to a ~500 m cell when they are written.
///
/// Beside it, per sport, a grid of the people with a level in that sport, each
/// tagged with their level's bit (``GameTraits/level(_:)``): people nearby by level
/// search that grid, with the level range as a filter of its walk.
final class UserIndex: Sendable {
    struct Card: Sendable, BitwiseCopyable {
        var version: Int64
        var mask: UInt64
        /// The sports (bits) whose level grid holds this person.
        var levelSports: UInt64 = 0
        /// Where the card's bytes are: `{"id","name","image_url","image_urls","bio","sports":[…]`
        /// — unterminated.
        var json: CardArena.Ref
    }

    /// A page's cards, in the order asked (no range for someone no longer in the index).
    typealias Cards = CardPage

    private struct State {
        var cards = CardTable<Card>()
        var arena = CardArena()
        /// Versions of people taken out, so that an older update cannot bring them back.
        var removed = Tombstones(capacity: 100_000)
        /// Updates that arrive while warming, applied once the warm data is in.
        var backlog = WarmBacklog<(User, Date)>()

        /// Lets a card's bytes go, compacting their chunk when most of it is left behind.
        mutating func release(_ ref: CardArena.Ref) {
            guard let chunk = arena.release(ref) else { return }
            arena.moveLive(from: chunk, isLive: { cards[$0]?.json }, moved: { cards[$0]?.json = $1 })
        }
    }

    let grid: GeoGrid
    /// The level grids by sport bit, made when a first person rates that sport.
    private let levelGrids = Mutex<[Int: GeoGrid]>([:])
    private let state = Mutex(State())
    private let sports: SportCatalog
    /// A person's card: the bytes a page copies for them (the HTTP layer's
    /// encoding; opaque here).
    let encodeCard: @Sendable (User) -> [UInt8]
    private let warm = Atomic<Bool>(false)

    init(cellSize: Double, sports: SportCatalog, encodeCard: @escaping @Sendable (User) -> [UInt8]) {
        self.grid = GeoGrid(cellSize: cellSize)
        self.sports = sports
        self.encodeCard = encodeCard
    }

    var isWarm: Bool { warm.load(ordering: .acquiring) }

    private func card(_ user: User, mask: UInt64, in arena: CardArena) -> Card {
        Card(
            version: user.version, mask: mask, levelSports: sports.mask(of: user.levels.keys),
            json: arena.store(encodeCard(user), for: user.id))
    }

    /// The grid of the people with a level in the sport of this bit, if anyone has one.
    func levelGrid(sportBit bit: Int) -> GeoGrid? { levelGrids.withLock { $0[bit] } }

    private func levelGrid(making bit: Int) -> GeoGrid {
        levelGrids.withLock { grids in
            if let grid = grids[bit] { return grid }
            let grid = GeoGrid(cellSize: self.grid.cellSize)
            grids[bit] = grid
            return grid
        }
    }

    /// A person's entries in the level grids, by sport bit.
    private func levelEntries(_ user: User, at point: GeoPoint, mask: UInt64) -> [(bit: Int, entry: GeoEntry)] {
        user.levels.compactMap { slug, level in
            sports[slug].map {
                ($0.bit, GeoEntry(key: user.id.geoKey, point: point, tags: GeoTags(mask: mask, traits: GameTraits.level(level))))
            }
        }
    }

    /// Loads every discoverable person with a location (at start-up), from `pages`,
    /// which hands each page of such people to the closure it is given.
    func warm(logger: Logger, from pages: (_ each: ([User]) -> Void) async throws -> Void) async throws {
        let started = ContinuousClock.now
        var entries: [GeoEntry] = []
        var byLevel: [Int: [GeoEntry]] = [:]
        var cards = CardTable<Card>()
        let arena = CardArena()
        try await pages { page in
            for user in page {
                guard let location = user.location else { continue }
                let mask = sports.mask(of: user.sports)
                entries.append(GeoEntry(key: user.id.geoKey, point: location.geoPoint, tags: GeoTags(mask: mask)))
                for (bit, entry) in levelEntries(user, at: location.geoPoint, mask: mask) { byLevel[bit, default: []].append(entry) }
                if let old = cards.updateValue(card(user, mask: mask, in: arena), forKey: user.id) { _ = arena.release(old.json) }
            }
        }
        grid.replaceAll(with: entries)
        for bit in Set(byLevel.keys).union(levelGrids.withLock { Array($0.keys) }) {
            levelGrid(making: bit).replaceAll(with: byLevel[bit] ?? [])
        }
        let laidOut = Self.layOutByCell(grid.keysByCell, cards: &cards, from: arena)
        let backlog = state.withLock { s in
            s.cards = cards
            // The index's table its only owner, so that the next change does not copy it.
            cards = CardTable()
            // Pages reading the arena replaced keep it alive until they are done.
            s.arena = laidOut
            return s.backlog.finish()
        }
        for (user, at) in backlog { apply(user, now: at) }
        warm.store(true, ordering: .releasing)
        logger.info(
            "people index warm",
            metadata: ["people": "\(entries.count)", "seconds": "\(ContinuousClock.now - started)", "grid": "\(grid.statistics)"])
    }

    /// The cards' bytes copied into a new arena in the grid's cell order
    /// (``GeoGrid/keysByCell``), so that a page's people nearby have theirs close
    /// together (as ``EventIndex/layOutCardsByCell(batch:)`` does for events); `cards`
    /// is pointed at the copies. Loaded in the database's order, they were scattered.
    private static func layOutByCell(_ keys: [GeoKey], cards: inout CardTable<Card>, from arena: CardArena) -> CardArena {
        let laidOut = CardArena()
        var moved = 0
        for key in keys {
            let id = UUID(geoKey: key)
            guard var card = cards[id] else { continue }
            card.json = laidOut.store(arena.bytes(card.json), for: id)
            cards[id] = card
            moved += 1
        }
        // The grid holds exactly the people with a card: none points into the old arena.
        precondition(moved == cards.count, "a person's card without a place in the grid")
        return laidOut
    }

    /// Applies a person's current row: in the index if discoverable with a location, out otherwise.
    func apply(_ user: User, now: Date) {
        state.withLock { s in
            if s.backlog.hold((user, now)) { return }
            if let card = s.cards[user.id], card.version >= user.version { return }
            if s.removed.hides(user.id, version: user.version) { return }
            let old = s.cards[user.id]
            let before = old?.levelSports ?? 0
            var after: UInt64 = 0
            if user.findable, let location = user.location {
                let mask = sports.mask(of: user.sports)
                let fresh = card(user, mask: mask, in: s.arena)
                s.cards[user.id] = fresh
                if let old { s.release(old.json) }
                s.removed.lift(user.id)
                grid.upsert(GeoEntry(key: user.id.geoKey, point: location.geoPoint, tags: GeoTags(mask: mask)))
                for (bit, entry) in levelEntries(user, at: location.geoPoint, mask: mask) { levelGrid(making: bit).upsert(entry) }
                after = fresh.levelSports
            } else {
                s.cards[user.id] = nil
                if let old { s.release(old.json) }
                s.removed.bury(user.id, version: user.version, at: now)
                grid.remove(user.id.geoKey)
            }
            var gone = before & ~after
            while gone != 0 {
                let bit = gone.trailingZeroBitCount
                levelGrid(sportBit: bit)?.remove(user.id.geoKey)
                gone &= gone - 1
            }
        }
    }

    /// The cards of `ids`, in that order. Under the lock, only where each card's bytes
    /// are; they are copied after it (see ``CardArena``).
    func cards(_ ids: [UUID]) -> Cards {
        var found: [(index: Int, bytes: UnsafeRawBufferPointer)] = []
        found.reserveCapacity(ids.count)
        let arena = state.withLock { s in
            MemoryTouch.keep(s.cards.touch(ids))
            for (i, id) in ids.enumerated() {
                if let card = s.cards[id] { found.append((i, s.arena.bytes(card.json))) }
            }
            s.arena.beginRead()
            return s.arena
        }
        defer { arena.endRead() }
        var cards = Cards(ranges: Array(repeating: nil, count: ids.count))
        cards.bytes.reserveCapacity(MemoryTouch.sizes(of: found.lazy.map(\.bytes)) { $0.count })
        for (i, bytes) in found { cards.fill(i, with: bytes) }
        return cards
    }
}

import Foundation
import GeoGrid
import Logging
import Testing

@testable import SportLook

@Suite("Card arena")
struct CardArenaTests {
    /// A model of how ``EventIndex`` uses the arena: a map from id to the card's place.
    final class Model {
        let arena = CardArena()
        var refs: [UUID: CardArena.Ref] = [:]
        var truth: [UUID: [UInt8]] = [:]
        var compactions = 0

        func release(_ ref: CardArena.Ref?) {
            guard let ref, let chunk = arena.release(ref) else { return }
            compactions += 1
            arena.moveLive(from: chunk, isLive: { refs[$0] }, moved: { refs[$0] = $1 })
        }

        func write(_ id: UUID, _ bytes: [UInt8]) {
            let old = refs[id]
            refs[id] = arena.store(bytes, for: id)
            truth[id] = bytes
            release(old)
        }

        func remove(_ id: UUID) {
            truth[id] = nil
            release(refs.removeValue(forKey: id))
        }

        func read(_ id: UUID) -> [UInt8]? { refs[id].map { Array(arena.bytes($0)) } }
    }

    @Test("every live card keeps its bytes through rewrites, removals and compactions, and what is left behind is freed")
    func rewritesAndCompaction() {
        var rng = TestRandom(seed: 21)
        let model = Model()
        let ids = (0..<800).map { _ in UUID() }
        for step in 0..<30_000 {
            let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
            if Int.random(in: 0..<10, using: &rng) == 0 {
                model.remove(id)
            } else {
                // Mostly card-sized, now and then one larger than a chunk.
                let count = step % 7_000 == 6_999 ? CardArena.chunkSize + 10 : Int.random(in: 200...3_000, using: &rng)
                let seed = UInt8.random(in: 0...255, using: &rng)
                model.write(id, (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed })
            }
        }
        #expect(model.compactions > 0)
        for id in ids { #expect(model.read(id) == model.truth[id]) }
        let live = model.truth.values.reduce(0) { $0 + $1.count }
        #expect(model.arena.liveBytes == live)
        // A chunk not being filled keeps at least a quarter of its bytes live.
        #expect(model.arena.capacity <= 4 * live + 3 * CardArena.chunkSize + 64)
        #expect(model.arena.retiredCount == 0)
    }

    @Test("a chunk moved out of while a page copies from it is freed only after the page is done")
    func readersKeepChunks() {
        let model = Model()
        let first = UUID()
        model.write(first, Array(repeating: 7, count: 1_000))
        // Fill the first chunk, so that later writes go to a second one.
        var filler: [UUID] = []
        while model.arena.capacity == CardArena.chunkSize {
            let id = UUID()
            filler.append(id)
            model.write(id, Array(repeating: 1, count: 4_000))
        }
        let bytes = model.arena.bytes(model.refs[first]!)
        model.arena.beginRead()
        // Leave most of the first chunk behind: it is compacted while the reader holds its bytes.
        for id in filler { model.remove(id) }
        #expect(model.compactions == 1)
        #expect(model.arena.retiredCount == 1)
        #expect(Array(bytes) == Array(repeating: 7, count: 1_000), "the reader's bytes are still there")
        #expect(model.read(first) == Array(repeating: 7, count: 1_000), "and the card was moved")
        model.arena.endRead()
        model.write(UUID(), [1, 2, 3])
        #expect(model.arena.retiredCount == 0)
    }
}

@Suite("Card table")
struct CardTableTests {
    /// What a slot gives back: the version, the end and the card's place, all three.
    private static func same(_ a: EventIndex.Card?, _ b: EventIndex.Card?) -> Bool {
        a?.version == b?.version && a?.endsAt == b?.endsAt && a?.json == b?.json
    }

    @Test("inserts, replacements and removals agree with a Dictionary, through growth and back-shifted deletions")
    func agreesWithDictionary() {
        var rng = TestRandom(seed: 3)
        var table = CardTable<EventIndex.Card>()
        var model: [UUID: EventIndex.Card] = [:]
        // Few ids, so that removals hit present ones and probe runs form (and wrap
        // around the end of a table whose size is no power of two); the all-zero id,
        // which marks an empty slot, among the first.
        let ids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))] + (1..<3_000).map { _ in UUID() }
        for step in 0..<60_000 {
            let id = ids[Int.random(in: 0..<(step < 20_000 ? 1_500 : ids.count), using: &rng)]
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                #expect(Self.same(table.removeValue(forKey: id), model.removeValue(forKey: id)))
            default:
                // Cards with and without their bytes, at places up to the packing's limits.
                let json =
                    step % 3 == 0
                    ? nil
                    : CardArena.Ref(
                        chunk: step % 2 == 0 ? (1 << 16) - 1 : step % 300, offset: step % 7 == 0 ? (1 << 23) - 1 : step * 13,
                        count: step % 5 == 0 ? (1 << 23) - 1 : step % 900)
                let card = EventIndex.Card(version: Int64(step) << 33, endsAt: Date(timeIntervalSince1970: Double(step) + 0.25), json: json)
                #expect(Self.same(table.updateValue(card, forKey: id), model.updateValue(card, forKey: id)))
            }
            if step % 5_000 == 0 {
                #expect(table.count == model.count)
                for id in ids { #expect(Self.same(table[id], model[id])) }
            }
        }
        var seen: [UUID: EventIndex.Card] = [:]
        table.forEach { id, card in seen[id] = card }
        #expect(seen.count == model.count)
        for (id, card) in model { #expect(Self.same(seen[id], card)) }
    }

    @Test("a copy of a table keeps its cards while the original changes, and the other way round")
    func copiesAreValues() {
        func card(_ version: Int64) -> EventIndex.Card {
            EventIndex.Card(version: version, endsAt: Date(timeIntervalSince1970: Double(version)), json: nil)
        }
        // Enough cards that the original grows (into new slots) after the copy.
        let ids = (0..<200).map { _ in UUID() }
        var original = CardTable<EventIndex.Card>()
        for (i, id) in ids.prefix(100).enumerated() { original[id] = card(Int64(i)) }
        let copy = original
        for (i, id) in ids.enumerated() { original[id] = card(Int64(1_000 + i)) }
        original[ids[0]] = nil
        #expect(copy.count == 100 && original.count == 199)
        for (i, id) in ids.enumerated() {
            #expect(copy[id]?.version == (i < 100 ? Int64(i) : nil))
            #expect(original[id]?.version == (i == 0 ? nil : Int64(1_000 + i)))
        }
        // A removal from a copy still sharing its slots leaves the original as it was.
        var second = original
        second.removeValue(forKey: ids[1])
        #expect(second[ids[1]] == nil && second.count == 198)
        #expect(original[ids[1]]?.version == 1_001 && original.count == 199)
    }

    @Test("a card's place survives packing at the limits of chunk, offset and count")
    func refPacking() {
        for (chunk, offset, count) in [(0, 0, 0), ((1 << 16) - 1, (1 << 23) - 1, (1 << 23) - 1), (73, 4_193_000, 311), (1, 0, 5_000_000)] {
            let ref = CardArena.Ref(chunk: chunk, offset: offset, count: count)
            #expect(ref.chunk == chunk && ref.offset == offset && ref.count == count)
            #expect(CardArena.Ref(bits: ref.bits) == ref)
        }
    }
}

@Suite("Cards laid out by cell")
struct CardLayoutTests {
    @Test("an event index's cards keep every byte when laid out in cell order, and the chunks left behind go back")
    func eventCards() async throws {
        let sports = CardCompactionTests.sports
        let links = CardCompactionTests.links
        let encode = EventJSON.cardEncoder(sports: sports, links: links)
        let index = EventIndex(cellSize: 1_250, sports: sports, encodeCard: encode)
        // Scattered over a region in an order unrelated to their cells, with long
        // descriptions: about 24 MB of cards, several chunks of the arena.
        var rng = TestRandom(seed: 11)
        let events = (0..<12_000).map { i in
            var event = CardCompactionTests.event(title: "Game \(i)", description: String(repeating: "d", count: 1_500 + i % 700))
            event.location = Coordinate(lat: 45 + Double.random(in: 0..<5, using: &rng), lon: Double.random(in: 0..<5, using: &rng))
            return event
        }
        let now = events[0].createdAt
        try await index.warm(now: now, logger: Logger(label: "test")) { _ in
            [
                events.map {
                    EventPosition(
                        id: $0.id, sport: $0.sport, location: $0.location, startsAt: $0.startsAt, endsAt: $0.endsAt, version: $0.version,
                        levelRange: $0.levelRange, audience: $0.audience, hasFreePlaces: $0.hasFreePlaces, restriction: EventRestriction($0)
                    )
                }
            ]
        }
        try await index.fillCards(now: now, logger: Logger(label: "test")) { each in
            for part in stride(from: 0, to: events.count, by: 1_000) { each(Array(events[part..<min(part + 1_000, events.count)])) }
        }
        let cards = index.cards(events.map(\.id), now: now).json
        for (event, card) in zip(events, cards) { #expect(card == encode(event)) }
        // In the grid's cell order, each card follows the one before, but where a chunk
        // ends: filled in the database's order, nearly every card was somewhere else.
        let places = index.places(of: index.grid.keysByCell.map { UUID(geoKey: $0) }).compactMap { $0 }
        #expect(places.count == events.count)
        let breaks = zip(places, places.dropFirst()).filter { $0.chunk != $1.chunk || $0.offset + $0.count != $1.offset }.count
        let (live, held) = index.cardBytes
        #expect(breaks <= held / CardArena.chunkSize, "\(breaks) breaks in the cell order")
        // What the cards left behind is given back (but for the chunk being filled
        // when the layout began), retired chunks counted.
        #expect(held <= live + 2 * CardArena.chunkSize, "\(held) bytes held for \(live) live")
        // Laid out again (as after more changes), still the same.
        index.layOutCardsByCell(batch: 700)
        #expect(index.cards(events.map(\.id), now: now).json == cards)
    }
}

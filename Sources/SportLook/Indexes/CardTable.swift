import Foundation
import Synchronization

/// Where values read only to bring memory into cache go (``CardTable/touch(_:)``, the
/// cards of a page), so that the reads are not optimised away: the value is compared
/// with a constant it can equal, so the compiler cannot drop the reads (a `UInt8` sum
/// compared with a wider constant let it drop them all).
enum MemoryTouch {
    @inline(__always) static func keep(_ touched: UInt64) {
        if touched == 0x5A5A_5A5A { sink.store(touched, ordering: .relaxed) }
    }

    /// The sum of `size` over a page's cards, reading one byte of every 64 of each card
    /// from `start` on the way (and keeping those reads, ``keep(_:)``): with a million
    /// cards a page's cards lie in as many places, and copying them one after another
    /// waited on each card's memory in turn; these reads do not depend on each other,
    /// so the lines of all of a page's cards come at once. Both indexes' pages size
    /// their bytes with it.
    @inline(__always) static func sizes(
        of cards: some Sequence<UnsafeRawBufferPointer>, from start: Int = 0,
        _ size: (UnsafeRawBufferPointer) -> Int
    ) -> Int {
        var total = 0
        var touched: UInt64 = 0
        for bytes in cards {
            total += size(bytes)
            var offset = start
            while offset < bytes.count {
                touched &+= UInt64(bytes[offset])
                offset += 64
            }
        }
        keep(touched)
        return total
    }

    private static let sink = Atomic<UInt64>(0)
}

/// Id → card, by open addressing with linear probing, for the 50 lookups of every
/// nearby page (events' in ``EventIndex``, people's in ``UserIndex``).
///
/// `Dictionary<UUID, Card>` costs a lookup three cache misses at a million cards
/// (its occupancy bitmap, its key, its value) and SipHash over 16 bytes; here the id
/// and its card share one slot (40 bytes for an event's, 48 for a person's), and the
/// hash is the id's own bits (random in a v4 or v7 UUID), mixed by one
/// multiplication and mapped onto the slots by a multiply-high, so the slot count
/// need not be a power of two. A slot whose id is all zeros is empty (the all-zero
/// id itself, never made here, is kept beside the slots). Load stays at or below 4/5
/// and the table grows by half, so a million event cards take about 56 MB, not the
/// 100 MB that a power of two at load ½ cost; deletion shifts the following entries
/// back, so there are no tombstones.
struct CardTable<Card: BitwiseCopyable & Sendable>: Sendable {
    private struct Slot: BitwiseCopyable, Sendable {
        var high: UInt64
        var low: UInt64
        var card: Card

        @inline(__always) var isUsed: Bool { high | low != 0 }

        /// All zeros (see ``Slots``).
        static var empty: Slot {
            withUnsafeTemporaryAllocation(byteCount: MemoryLayout<Slot>.size, alignment: MemoryLayout<Slot>.alignment) { raw in
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                return raw.load(as: Slot.self)
            }
        }
    }

    /// The slots, in ``LargePages`` memory: all zeros is an empty slot (the id no
    /// slot holds, and a card never read: a card type's fields are integers and
    /// floating-point numbers, for which zero bytes are a value; no pointer).
    /// Shared by copies of a table until one of them changes (copy on write).
    private final class Slots: @unchecked Sendable {
        let memory: UnsafeMutableRawBufferPointer
        let base: UnsafeMutablePointer<Slot>
        let count: Int

        init(count: Int) {
            self.count = count
            memory = LargePages.allocateZeroed(byteCount: count * MemoryLayout<Slot>.stride)
            base = memory.bindMemory(to: Slot.self).baseAddress!
        }

        func copy() -> Slots {
            let copy = Slots(count: count)
            copy.base.update(from: base, count: count)
            return copy
        }

        deinit { LargePages.free(memory) }
    }

    private var slots: Slots
    private let empty = Slot.empty
    /// The card of the all-zero id, which cannot sit in a slot.
    private var zero: Card?
    /// Most entries in the slots before growing: 4/5 of them.
    private var limit: Int
    private(set) var count = 0

    /// Room for `minimumCapacity` cards and an eighth more before it grows (a warm-up
    /// knows how many it loads; new ones follow).
    init(minimumCapacity: Int = 0) {
        let size = max(16, minimumCapacity + minimumCapacity / 8)
        self.init(slotCount: size * 5 / 4 + 1)
    }

    private init(slotCount: Int) {
        slots = Slots(count: slotCount)
        limit = slotCount * 4 / 5
    }

    @inline(__always) private static func halves(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always) private func home(_ high: UInt64, _ low: UInt64) -> Int {
        Int(truncatingIfNeeded: ((high ^ low) &* 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: UInt64(slots.count)).high)
    }

    @inline(__always) private func next(_ i: Int) -> Int { i + 1 == slots.count ? 0 : i + 1 }

    /// The slot holding the id (not all zeros), or the empty slot where it would go.
    @inline(__always) private func find(_ high: UInt64, _ low: UInt64) -> (index: Int, found: Bool) {
        let base = slots.base
        var i = home(high, low)
        while base[i].isUsed {
            if base[i].high == high && base[i].low == low { return (i, true) }
            i = next(i)
        }
        return (i, false)
    }

    /// Makes the slots this table's own before changing them.
    private mutating func own() {
        if !isKnownUniquelyReferenced(&slots) { slots = slots.copy() }
    }

    /// Reads the home slot of each id, and returns a word of them (for
    /// ``MemoryTouch/keep(_:)``). At a million cards each lookup of a page waits on
    /// memory; these reads do not depend on each other, so the processor has the slots
    /// of a whole page on their way at once, and the lookups after find them in cache.
    func touch(_ ids: some Sequence<UUID>) -> UInt64 {
        let base = slots.base
        var seen: UInt64 = 0
        for id in ids {
            let (high, low) = Self.halves(id)
            seen ^= base[home(high, low)].low
        }
        return seen
    }

    subscript(id: UUID) -> Card? {
        get {
            let (high, low) = Self.halves(id)
            if high | low == 0 { return zero }
            let (i, found) = find(high, low)
            return found ? slots.base[i].card : nil
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the card of `id`; returns the one it replaces.
    @discardableResult
    mutating func updateValue(_ card: Card, forKey id: UUID) -> Card? {
        let (high, low) = Self.halves(id)
        if high | low == 0 {
            defer { zero = card }
            if zero == nil { count += 1 }
            return zero
        }
        own()
        var (i, found) = find(high, low)
        if found {
            defer { slots.base[i].card = card }
            return slots.base[i].card
        }
        if count + 1 > limit {
            grow()
            i = find(high, low).index
        }
        slots.base[i] = Slot(high: high, low: low, card: card)
        count += 1
        return nil
    }

    /// Takes out the card of `id`; returns it.
    @discardableResult
    mutating func removeValue(forKey id: UUID) -> Card? {
        let (high, low) = Self.halves(id)
        if high | low == 0 {
            defer { zero = nil }
            if zero != nil { count -= 1 }
            return zero
        }
        var (hole, found) = find(high, low)
        guard found else { return nil }
        own()
        let base = slots.base
        let card = base[hole].card
        base[hole] = empty
        count -= 1
        // Shift back every following entry whose home is not between the hole and it.
        var j = next(hole)
        while base[j].isUsed {
            let h = home(base[j].high, base[j].low)
            let stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !stays {
                base[hole] = base[j]
                base[j] = empty
                hole = j
            }
            j = next(j)
        }
        return card
    }

    /// By half: a million cards must not cost twice their slots for the sake of a few more.
    private mutating func grow() {
        let old = slots
        slots = Slots(count: old.count + old.count / 2)
        limit = slots.count * 4 / 5
        for i in 0..<old.count where old.base[i].isUsed {
            slots.base[find(old.base[i].high, old.base[i].low).index] = old.base[i]
        }
    }

    /// Every id and its card, in no particular order.
    func forEach(_ body: (UUID, Card) -> Void) {
        if let zero { body(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), zero) }
        for i in 0..<slots.count where slots.base[i].isUsed {
            let slot = slots.base[i]
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) {
                $0.storeBytes(of: slot.high, as: UInt64.self)
                $0.storeBytes(of: slot.low, toByteOffset: 8, as: UInt64.self)
            }
            body(UUID(uuid: uuid), slot.card)
        }
    }

    /// Bytes held by the slots.
    var bytes: Int { slots.memory.count }
}

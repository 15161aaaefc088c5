import Foundation

/// Event id → card, by open addressing with linear probing, for the 50 lookups of
/// every nearby page.
///
/// `Dictionary<UUID, Card>` costs a lookup three cache misses at a million events
/// (its occupancy bitmap, its key, its value) and SipHash over 16 bytes; here the id
/// and its card share one 48-byte slot, and the hash is the id's own bits (random in
/// a v4 or v7 UUID), mixed by one multiplication. Load stays at or below ½;
/// deletion shifts the following entries back, so there are no tombstones.
struct CardTable {
    private struct Slot {
        var high: UInt64
        var low: UInt64
        var card: EventIndex.Card
        var used: Bool
    }

    private var slots: [Slot]
    private var mask: Int
    /// 64 − log₂ of the slot count: the hash is the top bits of the product.
    private var shift: UInt64
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        var size = 16
        while size < 2 * minimumCapacity { size <<= 1 }
        slots = Array(repeating: Slot(high: 0, low: 0, card: EventIndex.Card(version: 0, endsAt: .distantPast, json: nil), used: false), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always) private static func halves(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always) private func home(_ high: UInt64, _ low: UInt64) -> Int {
        Int(truncatingIfNeeded: ((high ^ low) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `id`, or the empty slot where it would go.
    @inline(__always) private func find(_ high: UInt64, _ low: UInt64) -> (index: Int, found: Bool) {
        var i = home(high, low)
        return slots.withUnsafeBufferPointer { slots in
            while slots[i].used {
                if slots[i].high == high && slots[i].low == low { return (i, true) }
                i = (i + 1) & mask
            }
            return (i, false)
        }
    }

    subscript(id: UUID) -> EventIndex.Card? {
        get {
            let (high, low) = Self.halves(id)
            let (i, found) = find(high, low)
            return found ? slots[i].card : nil
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the card of `id`; returns the one it replaces.
    @discardableResult
    mutating func updateValue(_ card: EventIndex.Card, forKey id: UUID) -> EventIndex.Card? {
        let (high, low) = Self.halves(id)
        var (i, found) = find(high, low)
        if found {
            defer { slots[i].card = card }
            return slots[i].card
        }
        if 2 * (count + 1) > slots.count {
            grow()
            i = find(high, low).index
        }
        slots[i] = Slot(high: high, low: low, card: card, used: true)
        count += 1
        return nil
    }

    /// Takes out the card of `id`; returns it.
    @discardableResult
    mutating func removeValue(forKey id: UUID) -> EventIndex.Card? {
        let (high, low) = Self.halves(id)
        var (hole, found) = find(high, low)
        guard found else { return nil }
        let card = slots[hole].card
        slots[hole].used = false
        count -= 1
        // Shift back every following entry whose home is not between the hole and it.
        var j = (hole + 1) & mask
        while slots[j].used {
            let h = home(slots[j].high, slots[j].low)
            let stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !stays {
                slots[hole] = slots[j]
                slots[j].used = false
                hole = j
            }
            j = (j + 1) & mask
        }
        return card
    }

    private mutating func grow() {
        let old = slots
        self = CardTable(minimumCapacity: old.count)
        for slot in old where slot.used {
            let i = find(slot.high, slot.low).index
            slots[i] = slot
            count += 1
        }
    }

    /// Every id and its card, in no particular order.
    func forEach(_ body: (UUID, EventIndex.Card) -> Void) {
        for slot in slots where slot.used {
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) {
                $0.storeBytes(of: slot.high, as: UInt64.self)
                $0.storeBytes(of: slot.low, toByteOffset: 8, as: UInt64.self)
            }
            body(UUID(uuid: uuid), slot.card)
        }
    }

    /// Bytes held by the slots.
    var bytes: Int { slots.capacity * MemoryLayout<Slot>.stride }
}

import Foundation
import Synchronization

/// The cards a page wants to show, copied out of an index, in the order asked.
struct CardPage: Sendable {
    /// The cards found, one after another.
    var bytes: [UInt8] = []
    /// Where each card is in `bytes`; nil for one the index does not hold (or, in the
    /// event index, holds but has not encoded yet: then its index is in `unloaded`).
    var ranges: [Range<Int>?] = []
    /// The events whose JSON must be read from the database.
    var unloaded: [Int] = []

    /// Each card, or nil.
    var json: [[UInt8]?] { ranges.map { $0.map { Array(bytes[$0]) } } }

    /// Sets card `i`'s bytes.
    mutating func fill(_ i: Int, with json: some Collection<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: json)
        ranges[i] = start..<bytes.count
    }
}

/// The bytes of the cards of an index (events', people's), appended into large
/// chunks and read by copying.
///
/// A nearby page reads 50 cards. When each card was its own `[UInt8]`, reading one
/// retained it — an atomic write to a cache line that the other cores' pages were
/// touching too — and that was a tenth of a page's CPU. Here a card is a plain
/// reference (chunk, offset, length): under the index's lock a page takes where its
/// cards' bytes are and counts itself a reader (``beginRead()``), then copies them
/// without the lock and leaves (``endRead()``).
///
/// A rewritten or removed card leaves its old bytes behind. When most of a chunk
/// other than the one being filled is left behind, its live cards are copied to the
/// end and the chunk is retired (``moveLive(from:isLive:moved:)``), so the arena stays
/// within about twice the live bytes. A retired chunk is freed once no reader is in
/// flight: readers only begin under the lock, and the arena is only changed under it.
///
/// `@unchecked Sendable`: every member but ``endRead()`` is used only with the owning
/// index's lock held (or before the arena is published, as a warm-up fills its own),
/// and ``endRead()`` touches only an atomic.
final class CardArena: @unchecked Sendable {
    /// Where a card's bytes are: chunk, offset and count packed in 62 bits, so that
    /// a ``CardTable`` slot holds it in one word beside its flags.
    struct Ref: Sendable, Hashable {
        static let countBits: UInt64 = 23
        static let offsetBits: UInt64 = 23
        static let chunkBits: UInt64 = 16

        /// `chunk << 46 | offset << 23 | count`.
        let bits: UInt64

        init(bits: UInt64) { self.bits = bits }

        /// A chunk is at most ``CardArena/chunkSize`` (or one card), and a card is an
        /// event's or a person's JSON, bounded far below 8 MB by the request sizes.
        init(chunk: Int, offset: Int, count: Int) {
            precondition(
                chunk >= 0 && chunk < 1 << Self.chunkBits && offset >= 0 && offset < 1 << Self.offsetBits
                    && count >= 0 && count < 1 << Self.countBits, "card out of the arena's range")
            bits = UInt64(chunk) << (Self.offsetBits + Self.countBits) | UInt64(offset) << Self.countBits | UInt64(count)
        }

        var chunk: Int { Int(bits >> (Self.offsetBits + Self.countBits)) }
        var offset: Int { Int((bits >> Self.countBits) & (1 << Self.offsetBits - 1)) }
        var count: Int { Int(bits & (1 << Self.countBits - 1)) }
    }

    /// Bytes per chunk (a larger card gets a chunk of its own size): two large pages.
    static let chunkSize = 2 * LargePages.size

    private struct Chunk {
        var memory: UnsafeMutableRawBufferPointer
        var used = 0
        var live = 0
        /// The ids whose cards were written here, for moving the live ones out.
        var owners: [UUID] = []
    }

    /// Unchecked for overlapping access: only ever used under the owning index's lock
    /// (see above), and the dynamic check cost a page 76 instructions a card.
    @exclusivity(unchecked) private var chunks: [Chunk?] = []
    private var freeSlots: [Int] = []
    private var current = -1
    /// Pages copying bytes out right now.
    private let readers = Atomic<Int>(0)
    /// Chunks moved out of while readers were in flight.
    private var retired: [UnsafeMutableRawBufferPointer] = []

    init() {}

    deinit {
        for case let chunk? in chunks { LargePages.free(chunk.memory) }
        for memory in retired { LargePages.free(memory) }
    }

    /// Bytes held by the arena's chunks, retired ones not freed yet included.
    var capacity: Int { chunks.reduce(0) { $0 + ($1?.memory.count ?? 0) } + retired.reduce(0) { $0 + $1.count } }

    /// Bytes of the cards that are live.
    var liveBytes: Int { chunks.reduce(0) { $0 + ($1?.live ?? 0) } }

    /// Stores `bytes` as the card of `id`.
    func store(_ bytes: some Collection<UInt8>, for id: UUID) -> Ref {
        let count = bytes.count
        if current < 0 || chunks[current]!.used + count > chunks[current]!.memory.count {
            current = newChunk(size: max(Self.chunkSize, count))
        }
        freeRetired()
        let offset = chunks[current]!.used
        let destination = UnsafeMutableRawBufferPointer(rebasing: chunks[current]!.memory[offset..<(offset + count)])
        destination.copyBytes(from: bytes)
        chunks[current]!.used += count
        chunks[current]!.live += count
        chunks[current]!.owners.append(id)
        return Ref(chunk: current, offset: offset, count: count)
    }

    private func newChunk(size: Int) -> Int {
        let chunk = Chunk(memory: LargePages.allocate(byteCount: size))
        if let slot = freeSlots.popLast() {
            chunks[slot] = chunk
            return slot
        }
        chunks.append(chunk)
        return chunks.count - 1
    }

    /// Marks a card's bytes as left behind. Returns the chunk to compact, if this
    /// left most of it behind.
    func release(_ ref: Ref) -> Int? {
        let c = ref.chunk
        chunks[c]!.live -= ref.count
        return compactable(c) ? c : nil
    }

    /// Whether chunk `c`, not the one being filled, holds no live card any more.
    func isEmpty(_ c: Int) -> Bool { c != current && chunks[c]?.live == 0 }

    /// Whether chunk `c` is not being filled and holds under a quarter of live bytes.
    func compactable(_ c: Int) -> Bool {
        guard c != current, let chunk = chunks[c] else { return false }
        return chunk.live * 4 < chunk.used
    }

    /// The card's bytes, valid until ``endRead()`` for a reader that called
    /// ``beginRead()`` under the same hold of the lock.
    @inline(__always) func bytes(_ ref: Ref) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: chunks[ref.chunk]!.memory[ref.offset..<(ref.offset + ref.count)])
    }

    /// Counts a reader in; call with the lock held.
    func beginRead() { readers.add(1, ordering: .acquiring) }

    /// Counts a reader out; needs no lock.
    func endRead() { readers.subtract(1, ordering: .releasing) }

    /// Frees chunk `c` after copying the cards that `isLive` says are still
    /// referenced there to the end; `moved` is told each card's new place.
    func moveLive(from c: Int, isLive: (UUID) -> Ref?, moved: (UUID, Ref) -> Void) {
        guard let chunk = chunks[c] else { return }
        for id in chunk.owners {
            guard let ref = isLive(id), ref.chunk == c else { continue }
            let bytes = UnsafeRawBufferPointer(rebasing: chunk.memory[ref.offset..<(ref.offset + ref.count)])
            moved(id, store(bytes, for: id))
        }
        retired.append(chunk.memory)
        chunks[c] = nil
        freeSlots.append(c)
        freeRetired()
    }

    /// Chunks moved out of and not freed yet (readers were in flight).
    var retiredCount: Int { retired.count }

    /// Frees retired chunks when no reader is in flight; call with the lock held.
    func freeRetired() {
        guard !retired.isEmpty, readers.load(ordering: .acquiring) == 0 else { return }
        for memory in retired { LargePages.free(memory) }
        retired.removeAll()
    }
}

/// Event cards kept in under half their bytes: each of the card encoder's fixed
/// fragments (a key with the punctuation around it, such as `","starts_at":"`, or a
/// run of keys with their usual values, such as an event in no series and no group)
/// is stored as one byte, and written out again when a page copies the card.
///
/// A kept card is `1`, the JSON's length (3 bytes, little-endian), then segments:
/// a run's length (one byte), the run's bytes as they are, and the fragment that
/// follows (its number, or 0 for none: a longer run goes on in the next segment, and
/// the last segment ends with 0). Nothing is searched for when a card is written
/// out: each run and each fragment is copied in 32-byte pieces, most in one (which
/// is why the writer needs ``slack`` bytes past the card's end). Whatever a card
/// says, it comes back byte for byte, since a run can hold any byte; a card of 16 MB
/// or more would be kept as it is, behind a 0 byte (the arena takes none over 8 MB,
/// and cards are far smaller).
///
/// At 1M events the cards take 352 MB (359 bytes a card, 43% of its JSON). When each
/// fragment was a byte inside the text, found again byte by byte, writing a card out
/// cost about 2,300 instructions and a few `memmove` calls; in 16-byte pieces about
/// 1,750; in 32-byte pieces about 950 (see BENCHMARKS.md).
enum CardCompaction {
    /// The fragments, for the numbers 1, 2, … (at most 255), longest matched first.
    /// Only how small cards get depends on them: a change to the encoder that leaves one
    /// unused costs bytes, never correctness.
    static let fragments: [String] = [
        #"{"id":""#, #"","title":""#, #"","sport":{"slug":""#, #"","name":""#, #""},"organiser":{"id":""#,
        #""},"starts_at":""#, #"","ends_at":""#, #"","time_zone":""#,
        #"","series_id":null,"group_id":null,"members_only":false,"occurrence_date":null,"answer_deadline":null,"min_players":null,"decide_minutes":"#,
        #"","series_id":"#, #","group_id":null,"members_only":false,"occurrence_date":""#, #","group_id":"#, #","members_only":"#,
        #","occurrence_date":"#, #","answer_deadline":null,"min_players":null,"decide_minutes":"#, #","answer_deadline":"#,
        #","min_players":"#, #","decide_minutes":"#,
        #","game_on":false,"level":null,"audience":"anyone","competitive":false,"price":null,"min_record":null,"reminders":["#,
        #","game_on":"#,
        #","level":"#,
        #"{"min":"#, #","max":"#, #","audience":""#, #"","competitive":false,"price":null,"min_record":"#,
        #"{"last_games":"#, #","max_no_shows":"#,
        #","reminders":["#,
        #"],"location":{"lat":"#, #","lon":"#, #"},"address":null,"description":""#, #"},"address":""#, #"","description":""#,
        #"","capacity":"#, #","capacity":"#, #","going_count":"#, #","waitlist_count":"#, #","spots_left":"#,
        #","status":"active","image_url":null,"image_urls":null,"created_at":""#, #","status":""#,
        #"","image_url":null,"image_urls":null,"created_at":""#, #"","image_url":""#, #"","image_urls":{"#, #"},"created_at":""#,
        #"","created_at":""#, #"","updated_at":""#,
    ]

    /// Bytes past a card's end that ``expand(_:to:)`` may write over (and that must be
    /// there to be written): the width of the pieces it copies in.
    static let slack = 32

    /// The fragments' bytes one after another (and ``slack`` bytes more, so that a
    /// fragment is read in whole pieces), and where each is (its offset shifted left
    /// by 8, or its length: one word to read); made once, never written again,
    /// never freed (so unchecked: only ever read).
    nonisolated(unsafe) private static let table: (bytes: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<UInt32>) = {
        let all = fragments.flatMap { Array($0.utf8) }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: all.count + slack, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.copyBytes(from: all)
        let spans = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: fragments.count)
        var start = 0
        for (i, fragment) in fragments.enumerated() {
            precondition(fragment.utf8.count < 256, "a fragment's length in a byte")
            spans[i] = UInt32(start) << 8 | UInt32(fragment.utf8.count)
            start += fragment.utf8.count
        }
        return (UnsafeRawBufferPointer(bytes), UnsafeBufferPointer(spans))
    }()

    /// For each byte value, the fragments starting with it, longest first.
    private static let byFirstByte: [[(token: UInt8, bytes: [UInt8])]] = {
        precondition(fragments.count <= 255, "one byte per fragment, 0 for none")
        var table = [[(token: UInt8, bytes: [UInt8])]](repeating: [], count: 256)
        for (i, fragment) in fragments.enumerated() {
            let bytes = Array(fragment.utf8)
            table[Int(bytes[0])].append((UInt8(i + 1), bytes))
        }
        return table.map { $0.sorted { $0.bytes.count > $1.bytes.count } }
    }()

    /// The card's bytes as kept (see ``CardCompaction``): `1`, the JSON's length,
    /// segments; or `0` and the JSON as it is.
    static func compact(_ json: [UInt8]) -> [UInt8] {
        if json.count >= 1 << 24 { return [0] + json }
        var out: [UInt8] = [1, UInt8(json.count & 0xFF), UInt8(json.count >> 8 & 0xFF), UInt8(json.count >> 16)]
        out.reserveCapacity(json.count / 2 + 16)
        let starts = byFirstByte
        json.withUnsafeBufferPointer { input in
            var i = 0
            var run = 0
            /// Ends the segment: the run from `run` to `i` (in pieces of at most 255), then `token`.
            func segment(_ token: UInt8) {
                while i - run > 255 {
                    out.append(255)
                    out.append(contentsOf: input[run..<(run + 255)])
                    out.append(0)
                    run += 255
                }
                out.append(UInt8(i - run))
                out.append(contentsOf: input[run..<i])
                out.append(token)
            }
            scan: while i < input.count {
                for (token, fragment) in starts[Int(input[i])] where input.count - i >= fragment.count {
                    var k = 1
                    while k < fragment.count, input[i + k] == fragment[k] { k += 1 }
                    if k == fragment.count {
                        segment(token)
                        i += fragment.count
                        run = i
                        continue scan
                    }
                }
                i += 1
            }
            segment(0)
        }
        return out
    }

    /// The length of the card's JSON, from its bytes as kept.
    @inline(__always)
    static func expandedCount(_ kept: UnsafeRawBufferPointer) -> Int {
        guard let first = kept.first else { return 0 }
        if first == 0 { return kept.count - 1 }
        return Int(kept[1]) | Int(kept[2]) << 8 | Int(kept[3]) << 16
    }

    /// Copies `count` bytes in 32-byte pieces, at least one: up to 32 bytes past them
    /// are read and written.
    @inline(__always)
    private static func copyInPieces(from source: UnsafeRawPointer, count: Int, to destination: UnsafeMutableRawPointer) {
        var k = 0
        repeat {
            let a = source.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
            let b = source.loadUnaligned(fromByteOffset: k &+ 16, as: SIMD16<UInt8>.self)
            destination.storeBytes(of: a, toByteOffset: k, as: SIMD16<UInt8>.self)
            destination.storeBytes(of: b, toByteOffset: k &+ 16, as: SIMD16<UInt8>.self)
            k &+= 32
        } while k < count
    }

    /// Writes the card's JSON (``expandedCount(_:)`` bytes) at `out`, from its bytes as
    /// kept, and may write over the ``slack`` bytes after them. Reads only the kept bytes.
    /// Most runs and fragments are shorter than 32 bytes, so each segment costs a few
    /// loads and stores and no loop (about 30 instructions; 70 with 16-byte pieces
    /// counted and checked for overflow).
    @inline(__always)
    static func expand(_ kept: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer) -> Int {
        guard let base = kept.baseAddress, kept.count > 0 else { return 0 }
        let n = kept.count
        if kept[0] == 0 {
            out.copyMemory(from: base + 1, byteCount: n - 1)
            return n - 1
        }
        let table = Self.table
        let fragments = table.bytes.baseAddress!
        let spans = table.spans.baseAddress!
        var i = 4
        var written = 0
        while i < n {
            let run = Int(base.load(fromByteOffset: i, as: UInt8.self))
            i &+= 1
            // A run near the card's end is copied exactly: reading past it could leave the arena.
            if i &+ run &+ slack <= n {
                copyInPieces(from: base + i, count: run, to: out + written)
            } else {
                (out + written).copyMemory(from: base + i, byteCount: run)
            }
            written &+= run
            i &+= run
            let token = Int(base.load(fromByteOffset: i, as: UInt8.self))
            i &+= 1
            if token != 0 {
                let span = Int(spans[token &- 1])
                let count = span & 0xFF
                copyInPieces(from: fragments + (span >> 8), count: count, to: out + written)
                written &+= count
            }
        }
        return written
    }

    /// Appends the card's JSON, from its bytes as kept.
    static func expand(_ kept: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let start = out.count
        let count = expandedCount(kept)
        out.append(contentsOf: repeatElement(0, count: count + slack))
        out.withUnsafeMutableBytes { _ = expand(kept, to: $0.baseAddress! + start) }
        out.removeLast(slack)
    }
}

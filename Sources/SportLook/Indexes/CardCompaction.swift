/// Event cards kept in about half their bytes: each of the card encoder's fixed
/// fragments (a key with the punctuation around it, such as `","starts_at":"`) is
/// stored as one byte below 0x20, which JSON text never holds raw (a control
/// character inside a string is escaped), and written out again when a page copies
/// the card. Whatever a card says, it comes back byte for byte: a fragment found
/// inside a value is restored the same way, and a card that holds a raw control byte
/// (never made by ``JSONWriter``) is kept as it is, behind a 0 byte.
///
/// At 1M events the cards took 571 MB as JSON and take 298 MB compacted; writing them
/// out is one pass over each card's bytes, eight at a time, copying runs.
enum CardCompaction {
    /// The fragments, for the bytes 1, 2, … (at most 31). Only how small cards get
    /// depends on them: a change to the encoder that leaves one unused costs bytes,
    /// never correctness.
    static let fragments: [String] = [
        #"{"id":""#, #"","title":""#, #"","sport":{"slug":""#, #"","name":""#, #""},"organiser":{"id":""#,
        #""},"starts_at":""#, #"","ends_at":""#, #"],"location":{"lat":"#, #","lon":"#, #"},"address":null"#,
        #"},"address":""#, #"","description":""#, #","description":""#, #","capacity":"#, #"","capacity":"#,
        #","going_count":"#, #","waitlist_count":"#, #","spots_left":"#, #","status":"active""#, #","status":"cancelled""#,
        #","image_url":null,"image_urls":null"#, #","image_url":""#, #"","image_urls":{"#, #"","created_at":""#,
        #"},"created_at":""#, #","created_at":""#, #"","updated_at":""#,
        #"","time_zone":""#, #"","series_id":null,"occurrence_date":null,"answer_deadline":null,"min_players":null,"decide_minutes":"#,
        #","game_on":false,"level":null,"audience":"anyone","min_record":null,"reminders":["#,
    ]

    /// The fragments' bytes one after another, and where each is; made once, never
    /// written again, never freed (so unchecked: only ever read).
    nonisolated(unsafe) private static let table: (bytes: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>) = {
        let all = fragments.flatMap { Array($0.utf8) }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: all.count, alignment: 1)
        bytes.copyBytes(from: all)
        let spans = UnsafeMutableBufferPointer<Range<Int>>.allocate(capacity: fragments.count)
        var start = 0
        for (i, fragment) in fragments.enumerated() {
            spans[i] = start..<(start + fragment.utf8.count)
            start += fragment.utf8.count
        }
        return (UnsafeRawBufferPointer(bytes), UnsafeBufferPointer(spans))
    }()

    /// For each byte value, the fragments starting with it, longest first.
    private static let byFirstByte: [[(token: UInt8, bytes: [UInt8])]] = {
        precondition(fragments.count < 0x20, "one byte below 0x20 per fragment, 0 marking a card kept as it is")
        var table = [[(token: UInt8, bytes: [UInt8])]](repeating: [], count: 256)
        for (i, fragment) in fragments.enumerated() {
            let bytes = Array(fragment.utf8)
            table[Int(bytes[0])].append((UInt8(i + 1), bytes))
        }
        return table.map { $0.sorted { $0.bytes.count > $1.bytes.count } }
    }()

    /// The card's bytes as kept: `1`, the JSON's length (3 bytes, little-endian), the
    /// compacted JSON; or `0` and the JSON as it is.
    static func compact(_ json: [UInt8]) -> [UInt8] {
        if json.count >= 1 << 24 || json.contains(where: { $0 < 0x20 }) { return [0] + json }
        var out: [UInt8] = [1, UInt8(json.count & 0xFF), UInt8(json.count >> 8 & 0xFF), UInt8(json.count >> 16)]
        out.reserveCapacity(json.count / 2 + 16)
        let starts = byFirstByte
        json.withUnsafeBufferPointer { input in
            var i = 0
            scan: while i < input.count {
                for (token, fragment) in starts[Int(input[i])] where input.count - i >= fragment.count {
                    var k = 1
                    while k < fragment.count, input[i + k] == fragment[k] { k += 1 }
                    if k == fragment.count {
                        out.append(token)
                        i += fragment.count
                        continue scan
                    }
                }
                out.append(input[i])
                i += 1
            }
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

    /// Writes the card's JSON (``expandedCount(_:)`` bytes) at `out`, from its bytes as
    /// kept: the plain bytes between fragments are found 8 at a time and copied in runs.
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
        var i = 4, run = 4, written = 0
        while i < n {
            // Eight bytes at a time while none is below 0x20 (a fragment's byte).
            while i + 8 <= n {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            while i < n, base.load(fromByteOffset: i, as: UInt8.self) >= 0x20 { i += 1 }
            if i > run {
                (out + written).copyMemory(from: base + run, byteCount: i - run)
                written += i - run
            }
            guard i < n else { break }
            let span = table.spans[Int(base.load(fromByteOffset: i, as: UInt8.self)) - 1]
            (out + written).copyMemory(from: fragments + span.lowerBound, byteCount: span.count)
            written += span.count
            i += 1
            run = i
        }
        return written
    }

    /// Appends the card's JSON, from its bytes as kept.
    static func expand(_ kept: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: expandedCount(kept)))
        out.withUnsafeMutableBytes { _ = expand(kept, to: $0.baseAddress! + start) }
    }
}

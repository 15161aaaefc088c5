/// Event cards kept in about half their bytes: each of the card encoder's fixed
/// fragments (a key with the punctuation around it, such as `","starts_at":"`) is
/// stored as one byte below 0x20, which JSON text never holds raw (a control
/// character inside a string is escaped), and written out again when a page copies
/// the card. Whatever a card says, it comes back byte for byte: a fragment found
/// inside a value is restored the same way, and a card that holds a raw control byte
/// (never made by ``JSONWriter``) is kept as it is, behind a 0 byte.
///
/// At 1M events the cards took 575 MB as JSON and take about half that compacted;
/// writing them out costs a pass over each card's bytes.
enum CardCompaction {
    /// The fragments, for the bytes 1, 2, … (at most 31). Only how small cards get
    /// depends on them: a change to the encoder that leaves one unused costs bytes,
    /// never correctness.
    static let fragments: [String] = [
        #"{"id":""#, #"","title":""#, #"","sport":{"slug":""#, #"","name":""#, #""},"organiser":{"id":""#,
        #""},"starts_at":""#, #"","ends_at":""#, #"","location":{"lat":"#, #","lon":"#, #"},"address":null"#,
        #"},"address":""#, #"","description":""#, #","description":""#, #","capacity":"#, #"","capacity":"#,
        #","going_count":"#, #","waitlist_count":"#, #","spots_left":"#, #","status":"active""#, #","status":"cancelled""#,
        #","image_url":null,"image_urls":null"#, #","image_url":""#, #"","image_urls":{"#, #"","created_at":""#,
        #"},"created_at":""#, #","created_at":""#, #"","updated_at":""#,
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

    /// The card's bytes as kept.
    static func compact(_ json: [UInt8]) -> [UInt8] {
        if json.contains(where: { $0 < 0x20 }) { return [0] + json }
        var out: [UInt8] = []
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

    /// Appends the card's JSON, from its bytes as kept.
    @inline(__always)
    static func expand(_ kept: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard let first = kept.first else { return }
        if first == 0 { return out.append(contentsOf: UnsafeRawBufferPointer(rebasing: kept[1...])) }
        let table = Self.table
        var run = 0
        for i in 0..<kept.count where kept[i] < 0x20 {
            if i > run { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: kept[run..<i])) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: table.bytes[table.spans[Int(kept[i]) - 1]]))
            run = i + 1
        }
        if run < kept.count { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: kept[run...])) }
    }
}

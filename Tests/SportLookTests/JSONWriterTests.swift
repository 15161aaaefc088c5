import Foundation
import NIOCore
import Testing

@testable import SportLook

/// JSONWriter writes the hot bodies by hand; what it writes must be the JSON a
/// general encoder reads back, byte for byte the same as before its fast paths.
@Suite("JSON writer")
struct JSONWriterTests {
    @Test("text with and without escapes reads back as written")
    func strings() throws {
        let texts = [
            "", "plain ascii", "Ça va? 🏐 ünïcödé", "quote \" backslash \\ slash /", "new\nline\rreturn\ttab", "\u{0}\u{1}\u{1f}\u{7f}",
            String(repeating: "long text without escapes ", count: 200), "mixed \u{8} then plain", "🏐\"🏐",
        ]
        for text in texts {
            var json = JSONWriter()
            json.objectStart()
            json.field(text, text)
            json.objectEnd()
            let read = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: String])
            #expect(read == [text: text])
            // Control characters are always escaped, never written raw.
            #expect(!json.bytes.contains { $0 < 0x20 })
        }
        // Byte for byte as the writer wrote text before it copied plain runs in one go.
        for text in texts + ["a\\b", "\\", "tab\there", "end\u{1f}"] {
            var json = JSONWriter()
            json.value(text)
            #expect(json.bytes == Self.escapedByteByByte(text), "\(text)")
        }
        var escaped = JSONWriter()
        escaped.value("a\"b\\c\nd\u{1}")
        #expect(String(decoding: escaped.bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001""#)
    }

    static func escapedByteByByte(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [34]
        for byte in string.utf8 {
            switch byte {
            case 34: bytes += [92, 34]
            case 92: bytes += [92, 92]
            case 0x0A: bytes += [92, UInt8(ascii: "n")]
            case 0x0D: bytes += [92, UInt8(ascii: "r")]
            case 0x09: bytes += [92, UInt8(ascii: "t")]
            case 0..<0x20: bytes += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: bytes.append(byte)
            }
        }
        return bytes + [34]
    }

    @Test("a distance in tenths is written as Double.description writes the rounded value")
    func tenths() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, 0.04, 0.05, 0.95, 0.96, 1, 9.99, 10, 99.95, 123.45, 4_999.96, 100_000, 999_999_999.9, 1e9, 2e12, -0.04, -3.2, -0.0, .nan,
            .infinity,
        ]
        for _ in 0..<20_000 { values.append(Double.random(in: 0..<200_000, using: &generator)) }
        for value in values {
            var fast = JSONWriter()
            fast.value(tenths: value)
            var plain = JSONWriter()
            plain.value((value * 10).rounded() / 10)
            #expect(fast.bytes == plain.bytes, "\(value)")
        }
    }

    @Test("whole numbers are written as String writes them; a key from a literal is written as the same key given as a string")
    func numbersAndKeys() {
        var generator = SystemRandomNumberGenerator()
        var values: [Int] = [0, 1, 9, 10, 99, 100, -1, -9, -10, 1_000_000, Int.max, Int.min, Int.max - 1, Int.min + 1]
        for _ in 0..<20_000 {
            values.append(Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0...63, using: &generator))
        }
        for value in values {
            var json = JSONWriter()
            json.value(value)
            #expect(json.bytes == Array(String(value).utf8), "\(value)")
        }
        let names: [StaticString] = ["distance_m", "", "with \"quotes\" and \\", "line\nbreak", "é 東京"]
        for name in names {
            var once = JSONWriter()
            var each = JSONWriter()
            once.objectStart()
            once.key(JSONWriter.Key(name))
            once.value(1)
            once.key(JSONWriter.Key(name))
            once.null()
            once.objectEnd()
            each.objectStart()
            each.key(name.description)
            each.value(1)
            each.key(name.description)
            each.null()
            each.objectEnd()
            #expect(once.bytes == each.bytes, "\(name)")
        }
        // The names that need escapes, as JSON writes them.
        var escaped = JSONWriter()
        escaped.key(JSONWriter.Key("with \"quotes\" and \\"))
        escaped.null()
        escaped.key(JSONWriter.Key("line\nbreak"))
        escaped.value(1)
        #expect(String(decoding: escaped.bytes, as: UTF8.self) == #""with \"quotes\" and \\":null,"line\nbreak":1"#)
        var json = JSONWriter()
        json.objectStart()
        json.field("a", 1)
        json.key(JSONWriter.Key("distance_m"))
        json.value(tenths: 12.25)
        json.objectEnd()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"a":1,"distance_m":12.3}"#)
    }

    @Test("a catalogue writes the slugs of a mask's bits as a JSON array, in catalogue order, skipping bits no sport has")
    func slugLists() throws {
        let sports = SportCatalog([
            Sport(slug: "tennis", name: "Tennis", bit: 5), Sport(slug: "football", name: "Football", bit: 0),
            Sport(slug: "beach \"volley\"", name: "Beach", bit: 63),
        ])
        for (mask, expected) in [
            (UInt64(0), "[]"), (1, #"["football"]"#), (1 << 5 | 1, #"["football","tennis"]"#),
            (1 << 5 | 1 << 7, #"["tennis"]"#), (UInt64.max, #"["football","tennis","beach \"volley\""]"#),
        ] {
            var json = JSONWriter()
            json.objectStart()
            json.key("shared_sports")
            sports.writeSlugs(in: mask, to: &json)
            json.field("level", 2)
            json.objectEnd()
            #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"shared_sports":"# + expected + #","level":2}"#)
        }
    }

    @Test("JSON written into reserved memory is byte for byte what JSONWriter writes")
    func reserved() {
        let instant = Date(timeIntervalSince1970: 1_800_000_000.25)
        let id = UUID()
        func write(_ json: inout some JSONOutput) {
            json.objectStart()
            json.field("text", "quote \" backslash \\ new\nline \u{1} 🏐")
            json.field(JSONWriter.Key("int"), -1_234_567)
            json.field("double", 0.1 + 0.2)
            json.field("infinite", Double.infinity)
            json.field("bool", false)
            json.field(JSONWriter.Key("at"), instant)
            json.field("id", id)
            json.field("none", String?.none)
            json.key("list")
            json.arrayStart()
            json.value(true)
            json.null()
            json.value(tenths: 1234.56)
            json.value(tenths: -0.5)
            json.arrayEnd()
            json.objectEnd()
        }
        var writer = JSONWriter()
        write(&writer)
        var memory = [UInt8](repeating: 0, count: writer.bytes.count)
        let count = memory.withUnsafeMutableBytes { raw in
            var reserved = ReservedJSON(raw)
            write(&reserved)
            return reserved.count
        }
        #expect(Array(memory.prefix(count)) == writer.bytes)
        #expect(count == writer.bytes.count)
    }

    @Test("JSON one byte longer than its reserved memory stops the process instead of writing past it")
    func reservedOverrun() async {
        // `"abcd"` is six bytes: five reserved.
        await #expect(processExitsWith: .failure) {
            var memory = [UInt8](repeating: 0, count: 5)
            memory.withUnsafeMutableBytes { raw in
                var json = ReservedJSON(raw)
                json.value("abcd")
            }
        }
        await #expect(processExitsWith: .failure) {
            var memory = [UInt8](repeating: 0, count: 5)
            memory.withUnsafeMutableBytes { raw in
                var json = ReservedJSON(raw)
                json.value("abc")
                json.append(UInt8(ascii: " "))
            }
        }
        // What fits exactly is written.
        var memory = [UInt8](repeating: 0, count: 5)
        let count = memory.withUnsafeMutableBytes { raw in
            var json = ReservedJSON(raw)
            json.value("abc")
            return json.count
        }
        #expect(count == 5 && memory == Array(#""abc""#.utf8))
    }

    @Test("a page item's tail that would write past its bound stops the process, rather than write into the next item's room")
    func pageTailOverrun() async {
        await #expect(processExitsWith: .failure) {
            let cards = Array(#"{"id":1{"id":2"#.utf8)
            _ = CardPageJSON.body(cards: cards, items: [0..<7, 7..<14], card: { $0 }, tailBound: { _ in 8 }, nextCursor: nil) { _, json in
                json.field("note", "longer than eight bytes")
                json.objectEnd()
            }
        }
    }

    @Test("the tails of nearby pages stay within their bounds, at their longest")
    func tailBounds() throws {
        let instant = Date(timeIntervalSince1970: 4_102_444_799.999)
        for status in [AttendanceStatus.going, .waitlisted, .maybe] {
            for distance in [nil, 0, 4_999.95, 999_999_999.9, 1e9, 123_456_789_012.345, -0.0, Double.greatestFiniteMagnitude, .pi * 1e-300]
                as [Double?]
            {
                var json = JSONWriter()
                json.needsComma = true
                EventJSON.writeTail(
                    MyAttendance(status: status, position: Int.max, isOrganiser: true, offerExpiresAt: instant), distance: distance,
                    to: &json)
                #expect(json.bytes.count <= EventJSON.maxTailBytes, "\(status) \(String(describing: distance)): \(json.bytes.count)")
            }
        }
        // Sixty-four sports with long slugs that need escapes, all shared; the longest level.
        let sports = SportCatalog((0..<64).map { Sport(slug: "sport \"\($0)\" with a long slug\\", name: "S\($0)", bit: $0) })
        for distance in [0, 499.9, 1e12 + 0.3, Double.greatestFiniteMagnitude] {
            for level in [nil, Level(halves: 13), Level(halves: 14)] as [Level?] {
                let person = PeopleService.NearbyPage.Item(card: 0..<0, distance: distance, sharedSports: .max, level: level)
                var json = JSONWriter()
                json.needsComma = true
                PeopleJSON.writeTail(person, sports: sports, to: &json)
                #expect(json.bytes.count <= PeopleJSON.tailBound(person, sports: sports), "\(distance) \(String(describing: level))")
                #expect(try JSONSerialization.jsonObject(with: Data(#"{"a":1"#.utf8 + json.bytes)) is [String: Any])
            }
        }
    }

    @Test("the tail of an item the caller holds no place in is byte for byte its fields written one by one")
    func tailWithoutPlace() {
        for distance in [nil, 0, 0.04, 0.05, 4_999.95, 999_999_999.9, 1e9, -0.0, 123.45] as [Double?] {
            var tail = JSONWriter()
            tail.needsComma = true
            EventJSON.writeTail(nil, distance: distance, to: &tail)
            var fields = JSONWriter()
            fields.needsComma = true
            fields.field("my_status", nil as String?)
            if let distance { fields.field("distance_m", tenths: distance) }
            fields.objectEnd()
            #expect(tail.bytes == fields.bytes, "\(String(describing: distance))")
            #expect(String(decoding: tail.bytes, as: UTF8.self).hasPrefix(#","my_status":null"#))
            // Written into reserved memory, as pages write it, to the same bytes.
            var memory = [UInt8](repeating: 0, count: EventJSON.maxTailBytes)
            let count = memory.withUnsafeMutableBytes { raw in
                var json = ReservedJSON(raw)
                json.needsComma = true
                EventJSON.writeTail(nil, distance: distance, to: &json)
                return json.count
            }
            #expect(Array(memory.prefix(count)) == fields.bytes)
        }
    }

    @Test("a page of cards written straight into its buffer is byte for byte the page written whole")
    func pages() {
        let cards: [[UInt8]] = [Array(#"{"id":1"#.utf8), Array(#"{"id":2,"name":"b""#.utf8), Array(#"{"id":3"#.utf8)]
        let all = cards.flatMap { $0 }
        var ranges: [Range<Int>] = []
        for card in cards { ranges.append((ranges.last?.upperBound ?? 0)..<((ranges.last?.upperBound ?? 0) + card.count)) }
        for cursor in [nil, "abc-_"] as [String?] {
            for count in 0...3 {
                let items = Array(ranges.enumerated().prefix(count))
                let body = CardPageJSON.body(cards: all, items: items, card: { $0.element }, tailBound: { _ in 64 }, nextCursor: cursor) {
                    item, json in
                    json.field("distance_m", tenths: Double(item.offset) * 12.34)
                    if item.offset == 1 { json.field("note", "a \"quoted\" word") }
                    json.objectEnd()
                }
                var whole = JSONWriter()
                whole.objectStart()
                whole.key("items")
                whole.arrayStart()
                for (i, range) in items {
                    whole.raw(all[range])
                    whole.field("distance_m", tenths: Double(i) * 12.34)
                    if i == 1 { whole.field("note", "a \"quoted\" word") }
                    whole.objectEnd()
                }
                whole.arrayEnd()
                whole.field("next_cursor", cursor)
                whole.objectEnd()
                #expect(Array(body.readableBytesView) == whole.bytes, "\(count) items")
            }
        }
        let page = CardPageJSON.body(
            cards: all, items: Array(ranges.enumerated()), card: { $0.element }, tailBound: { _ in 64 }, nextCursor: nil
        ) { item, json in
            json.field("distance_m", tenths: Double(item.offset) * 12.34)
            json.objectEnd()
        }
        #expect(
            String(buffer: page)
                == #"{"items":[{"id":1,"distance_m":0.0},{"id":2,"name":"b","distance_m":12.3},{"id":3,"distance_m":24.7}],"next_cursor":null}"#
        )
    }
}

import Foundation

/// Where JSON is written: bytes appended one way or another. Everything JSON is
/// written with (keys, values, commas, escapes) is written once, in the extension,
/// for the two outputs: ``JSONWriter`` (a growing array) and ``ReservedJSON``
/// (memory reserved beforehand, such as a page's room in a response's buffer).
protocol JSONOutput {
    /// Whether the next value in the current container needs a comma first.
    var needsComma: Bool { get set }
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// Writes JSON straight into bytes, for bodies on hot paths (event cards,
/// error bodies) where `JSONEncoder` costs more than everything else together.
struct JSONWriter: JSONOutput {
    private(set) var bytes: [UInt8] = []
    var needsComma = false

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes.append(contentsOf: bytes) }

    /// Splices already-encoded JSON in as the next value.
    mutating func raw(_ json: some Collection<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
    }

    /// A key written for every item of a page (the tails of nearby cards), from a
    /// literal: its bytes are the program's own, so writing it touches no reference
    /// count. (When it held its encoded bytes in an array, the pages of both cores
    /// retained and released that one array a hundred times a page: a contended
    /// atomic, 2.8% of a nearby page's samples.)
    struct Key: Sendable {
        fileprivate let name: StaticString
        /// Whether the name has a character JSON escapes (then it is written as any key).
        fileprivate let needsEscape: Bool

        init(_ name: StaticString) {
            self.name = name
            needsEscape = name.withUTF8Buffer { $0.contains(where: JSONEscape.needed) }
        }
    }
}

/// JSON written into memory reserved for it: no capacity to grow, one bound check a
/// write (a write past the reserved bytes stops the process rather than overrun
/// them). The page writer (``CardPageJSON``) reserves each item's card and a bound
/// of its tail in the response's buffer, and writes both there at once.
struct ReservedJSON: JSONOutput {
    private let start: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    var needsComma = false

    init(_ memory: UnsafeMutableRawBufferPointer) {
        start = memory.baseAddress!.assumingMemoryBound(to: UInt8.self)
        capacity = memory.count
    }

    mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "JSON past its reserved bytes")
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        precondition(bytes.count <= capacity - count, "JSON past its reserved bytes")
        (start + count).update(from: source, count: bytes.count)
        count += bytes.count
    }
}

/// Which bytes a JSON string escapes.
enum JSONEscape {
    static func needed(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}

extension JSONOutput {
    mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func objectStart() {
        separate()
        append(UInt8(ascii: "{"))
        needsComma = false
    }
    mutating func objectEnd() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }
    mutating func arrayStart() {
        separate()
        append(UInt8(ascii: "["))
        needsComma = false
    }
    mutating func arrayEnd() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`; the value written next needs no comma.
    mutating func key(_ name: String) {
        separate()
        appendString(name)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes the key; the value written next needs no comma.
    mutating func key(_ key: JSONWriter.Key) {
        guard !key.needsEscape else { return self.key(key.name.description) }
        separate()
        append(UInt8(ascii: "\""))
        key.name.withUTF8Buffer { append($0) }
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes JSON given whole — fields joined by commas, ending with a last key and
    /// its colon (`"a":null,"b":`) — as the next key: the value written next needs no
    /// comma. The text is written as it is, so it must be such JSON.
    mutating func keys(_ json: StaticString) {
        separate()
        appendASCII(json)
        needsComma = false
    }

    mutating func value(_ string: String) {
        separate()
        appendString(string)
    }
    mutating func value(_ int: Int) {
        separate()
        if int < 0 { append(UInt8(ascii: "-")) }
        appendDigits(int.magnitude)
    }
    mutating func value(_ bool: Bool) {
        separate()
        appendASCII(bool ? "true" : "false")
    }
    mutating func value(_ double: Double) {
        separate()
        guard double.isFinite else { return appendASCII("null") }
        var text = double.description
        text.withUTF8 { append($0) }
    }
    mutating func value(_ date: Date) {
        separate()
        appendString(RFC3339.format(date))
    }
    mutating func value(_ uuid: UUID) {
        separate()
        appendString(uuid.lowercased)
    }
    mutating func null() {
        separate()
        appendASCII("null")
    }

    /// Splices already-encoded JSON in as the next value.
    mutating func raw(_ json: UnsafeBufferPointer<UInt8>) {
        separate()
        append(json)
    }

    mutating func field(_ name: String, _ v: String) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: Int) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: Bool) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: Double) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: Date) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: UUID) {
        key(name)
        value(v)
    }
    mutating func field(_ name: String, _ v: String?) {
        key(name)
        if let v { value(v) } else { null() }
    }
    mutating func field(_ name: String, _ v: Int?) {
        key(name)
        if let v { value(v) } else { null() }
    }
    mutating func field(_ name: String, _ v: Date?) {
        key(name)
        if let v { value(v) } else { null() }
    }
    mutating func field(_ name: String, _ v: UUID?) {
        key(name)
        if let v { value(v) } else { null() }
    }
    mutating func field(_ name: JSONWriter.Key, _ v: Int) {
        key(name)
        value(v)
    }
    mutating func field(_ name: JSONWriter.Key, _ v: Bool) {
        key(name)
        value(v)
    }
    mutating func field(_ name: JSONWriter.Key, _ v: Double) {
        key(name)
        value(v)
    }
    mutating func field(_ name: JSONWriter.Key, _ v: Date) {
        key(name)
        value(v)
    }

    /// Writes `value` with one decimal, as `Double.description` writes it after
    /// rounding to tenths (`1234.5`, `0.0`), without making a `String` first.
    mutating func value(tenths value: Double) {
        guard value.sign == .plus, value < 1e9 else { return self.value((value * 10).rounded() / 10) }
        separate()
        let tenths = UInt((value * 10).rounded())
        appendDigits(tenths / 10)
        append(UInt8(ascii: "."))
        append(UInt8(ascii: "0") + UInt8(tenths % 10))
    }

    mutating func field(_ name: String, tenths v: Double) {
        key(name)
        value(tenths: v)
    }
    mutating func field(_ name: JSONWriter.Key, tenths v: Double) {
        key(name)
        value(tenths: v)
    }

    private mutating func appendASCII(_ text: StaticString) { text.withUTF8Buffer { append($0) } }

    /// The decimal digits of `number`, as `String(number)` has them, without making one.
    private mutating func appendDigits(_ number: UInt) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = number
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    private mutating func appendString(_ string: String) {
        append(UInt8(ascii: "\""))
        // Most text needs no escape: copied in one go.
        let plain = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: JSONEscape.needed) else { return false }
            append(utf8)
            return true
        }
        if plain != true {
            for byte in string.utf8 { appendEscaped(byte) }
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): appendASCII("\\\"")
        case UInt8(ascii: "\\"): appendASCII("\\\\")
        case 0x0A: appendASCII("\\n")
        case 0x0D: appendASCII("\\r")
        case 0x09: appendASCII("\\t")
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            appendASCII("\\u00")
            hex.withUTF8Buffer { hex in
                append(hex[Int(byte >> 4)])
                append(hex[Int(byte & 15)])
            }
        default: append(byte)
        }
    }
}

import Foundation

/// Writes JSON straight into bytes, for bodies on hot paths (event cards,
/// error bodies) where `JSONEncoder` costs more than everything else together.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current container needs a comma first.
    private var needsComma = false

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func objectStart() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func objectEnd() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func arrayStart() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func arrayEnd() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"name":`; the value written next needs no comma.
    mutating func key(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key written for every item of a page (the tails of nearby cards): its
    /// `"name":` encoded once.
    struct Key: Sendable {
        fileprivate let encoded: [UInt8]

        init(_ name: String) {
            var writer = JSONWriter(capacity: name.utf8.count + 8)
            writer.key(name)
            encoded = writer.bytes
        }
    }

    /// Writes the key; the value written next needs no comma.
    mutating func key(_ key: Key) {
        separate()
        bytes.append(contentsOf: key.encoded)
        needsComma = false
    }

    mutating func value(_ string: String) { separate(); appendString(string) }
    mutating func value(_ int: Int) {
        separate()
        if int < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(int.magnitude)
    }
    mutating func value(_ bool: Bool) { separate(); bytes.append(contentsOf: (bool ? "true" : "false").utf8) }
    mutating func value(_ double: Double) {
        separate()
        bytes.append(contentsOf: (double.isFinite ? double.description : "null").utf8)
    }
    mutating func value(_ date: Date) { separate(); appendString(RFC3339.format(date)) }
    mutating func value(_ uuid: UUID) { separate(); appendString(uuid.lowercased) }
    mutating func null() { separate(); bytes.append(contentsOf: "null".utf8) }

    /// Splices already-encoded JSON in as the next value.
    mutating func raw(_ json: some Collection<UInt8>) { separate(); bytes.append(contentsOf: json) }

    /// For an answer written out in pieces (``drain(_:)``): the next value is the
    /// caller's, written after the bytes drained next; here only the comma before it.
    mutating func valueFollows() { separate() }

    /// Hands the bytes written so far to `sink` and forgets them; what the writer
    /// knows of its containers (whether a comma is due) stays.
    mutating func drain(_ sink: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer(sink)
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func field(_ name: String, _ v: String) { key(name); value(v) }
    mutating func field(_ name: String, _ v: Int) { key(name); value(v) }
    mutating func field(_ name: String, _ v: Bool) { key(name); value(v) }
    mutating func field(_ name: String, _ v: Double) { key(name); value(v) }
    mutating func field(_ name: String, _ v: Date) { key(name); value(v) }
    mutating func field(_ name: String, _ v: UUID) { key(name); value(v) }
    mutating func field(_ name: String, _ v: String?) { key(name); if let v { value(v) } else { null() } }
    mutating func field(_ name: String, _ v: Int?) { key(name); if let v { value(v) } else { null() } }
    mutating func field(_ name: String, _ v: Date?) { key(name); if let v { value(v) } else { null() } }
    mutating func field(_ name: String, _ v: UUID?) { key(name); if let v { value(v) } else { null() } }

    /// Writes `value` with one decimal, as `Double.description` writes it after
    /// rounding to tenths (`1234.5`, `0.0`), without making a `String` first.
    mutating func value(tenths value: Double) {
        guard value.sign == .plus, value < 1e9 else { return self.value((value * 10).rounded() / 10) }
        separate()
        let tenths = UInt((value * 10).rounded())
        appendDigits(tenths / 10)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(tenths % 10))
    }

    mutating func field(_ name: String, tenths v: Double) { key(name); value(tenths: v) }
    mutating func field(_ name: Key, tenths v: Double) { key(name); value(tenths: v) }

    /// The decimal digits of `number`, as `String(number)` has them, without making one.
    private mutating func appendDigits(_ number: UInt) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = number, start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escape: copied in one go.
        let plain = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain != true {
            for byte in string.utf8 { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
        case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
        default: bytes.append(byte)
        }
    }
}

import Foundation

/// A request's query string, split once into its `name=value` pairs.
///
/// It reads the same values as Hummingbird's `URI.queryParameters`: pairs split at
/// `&`, a name taken as it is written (not decoded; compared as strings compare), a
/// value percent-decoded (kept as written when its escapes are not valid), `+` left
/// alone, the first pair of a name winning, a pair without `=` holding an empty value.
/// What it does not do is hash every name looked up (a nearby request asks for ten,
/// and each hash cost as much as the rest of the lookup): the pairs are kept as byte
/// offsets into the query, and an ASCII name is compared byte for byte with the few
/// the query holds.
struct QueryParameters: Sendable {
    private var query: String
    private var pairs: [Pair] = []

    /// Where a pair's name and value lie in the query's UTF-8 bytes.
    private struct Pair: Sendable {
        var nameStart: Int32
        var nameEnd: Int32
        var valueEnd: Int32
        /// The value holds a `%`, so it must be decoded.
        var escaped: Bool
        /// The name is ASCII, so byte equality is string equality.
        var asciiName: Bool
        var valueStart: Int32 { nameEnd == valueEnd ? valueEnd : nameEnd + 1 }
    }

    /// - Parameter query: The query as it came, without the `?` (nil for none).
    init(_ query: String?) {
        var query = query ?? ""
        query.makeContiguousUTF8()
        self.query = query
        // A request target is bounded by the header limits, far below Int32's range.
        pairs =
            query.utf8.withContiguousStorageIfAvailable { bytes in
                var pairs: [Pair] = []
                pairs.reserveCapacity(1 + bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "&") ? 1 : 0) })
                var start = 0
                while start < bytes.count {
                    var end = start
                    var equals = -1
                    var escaped = false
                    var asciiName = true
                    while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                        if bytes[end] == UInt8(ascii: "="), equals < 0 { equals = end }
                        if bytes[end] == UInt8(ascii: "%"), equals >= 0 { escaped = true }
                        if bytes[end] >= 0x80, equals < 0 { asciiName = false }
                        end += 1
                    }
                    let nameEnd = equals < 0 ? end : equals
                    pairs.append(
                        Pair(nameStart: Int32(start), nameEnd: Int32(nameEnd), valueEnd: Int32(end), escaped: escaped, asciiName: asciiName)
                    )
                    start = end + 1
                }
                return pairs
            } ?? []
    }

    /// The value of the first pair named `name`, decoded; nil when there is none.
    func get(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { name in
            query.utf8.withContiguousStorageIfAvailable { bytes -> String? in
                let asciiName = name.allSatisfy { $0 < 0x80 }
                for pair in pairs {
                    let start = Int(pair.nameStart)
                    let count = Int(pair.nameEnd - pair.nameStart)
                    if asciiName && pair.asciiName {
                        guard count == name.count, count == 0 || memcmp(bytes.baseAddress! + start, name.baseAddress!, count) == 0 else {
                            continue
                        }
                    } else {
                        // Outside ASCII, names compare as strings do (canonical equivalence: a Kelvin sign is a K), as Hummingbird's lookup compares them.
                        guard
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]), as: UTF8.self)
                                == String(decoding: name, as: UTF8.self)
                        else { continue }
                    }
                    let value = UnsafeBufferPointer(rebasing: bytes[Int(pair.valueStart)..<Int(pair.valueEnd)])
                    if pair.escaped, let decoded = Self.percentDecoded(value) { return decoded }
                    return String(decoding: value, as: UTF8.self)
                }
                return nil
            } ?? nil
        }
    }

    /// `%XX` escapes replaced by their bytes; nil when one is cut short or not hex.
    private static func percentDecoded(_ value: UnsafeBufferPointer<UInt8>) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: value.count) { out -> String? in
            var i = 0
            var n = 0
            while i < value.count {
                if value[i] == UInt8(ascii: "%") {
                    guard i + 2 < value.count, let high = Hex.value(value[i + 1]), let low = Hex.value(value[i + 2]) else { return nil }
                    out[n] = high << 4 | low
                    i += 3
                } else {
                    out[n] = value[i]
                    i += 1
                }
                n += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self)
        }
    }
}

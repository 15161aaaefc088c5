import Foundation

/// A page of a list and where the next one starts (`nil`: this was the last).
struct Page<Item: Sendable>: Sendable {
    var items: [Item]
    var nextCursor: String?

    func map<T: Sendable>(_ transform: (Item) throws -> T) rethrows -> Page<T> {
        Page<T>(items: try items.map(transform), nextCursor: nextCursor)
    }
}

/// A keyset position serialised as an opaque string (base64url of a few fields).
protocol CursorCodable {
    init?(cursor: String)
    var cursor: String { get }
}

enum OpaqueCursor {
    /// base64url's alphabet (a literal: reading it touches no reference count).
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The fields joined by U+001F, as base64url without padding. Encoded here
    /// rather than through `Data`'s base64 and a second pass mapping it to the URL
    /// alphabet: every full page of a nearby search makes one, and that way cost
    /// about 18,000 instructions.
    static func encode(_ fields: [String]) -> String {
        var joined: [UInt8] = []
        joined.reserveCapacity(fields.reduce(fields.count) { $0 + $1.utf8.count })
        for (i, field) in fields.enumerated() {
            if i > 0 { joined.append(0x1F) }
            joined.append(contentsOf: field.utf8)
        }
        return alphabet.withUTF8Buffer { alphabet in
            joined.withUnsafeBufferPointer { input in
                String(unsafeUninitializedCapacity: (input.count * 4 + 2) / 3) { out in
                    var o = 0
                    var i = 0
                    func put(_ sextet: UInt32) {
                        out[o] = alphabet[Int(sextet & 63)]
                        o += 1
                    }
                    while i + 3 <= input.count {
                        let group = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        put(group >> 18)
                        put(group >> 12)
                        put(group >> 6)
                        put(group)
                        i += 3
                    }
                    switch input.count - i {
                    case 1:
                        let group = UInt32(input[i]) << 16
                        put(group >> 18)
                        put(group >> 12)
                    case 2:
                        let group = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                        put(group >> 18)
                        put(group >> 12)
                        put(group >> 6)
                    default: break
                    }
                    return o
                }
            }
        }
    }

    static func decode(_ text: String, count: Int) -> [String]? {
        guard text.count <= 512 else { return nil }
        guard let data = Data(base64URLEncoded: text), let string = String(data: data, encoding: .utf8) else { return nil }
        let fields = string.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        return fields.count == count ? fields : nil
    }
}

/// A cursor of (time, id) for lists ordered by a timestamp.
struct TimeCursor: CursorCodable, Sendable {
    var time: Date
    var id: UUID

    init(time: Date, id: UUID) {
        self.time = time
        self.id = id
    }

    init?(cursor: String) {
        guard let f = OpaqueCursor.decode(cursor, count: 2), let bits = UInt64(f[0], radix: 16), let id = UUID(text: f[1]) else {
            return nil
        }
        let seconds = Double(bitPattern: bits)
        guard seconds.isFinite else { return nil }
        time = Date(timeIntervalSince1970: seconds)
        self.id = id
    }

    var cursor: String { OpaqueCursor.encode([String(time.timeIntervalSince1970.bitPattern, radix: 16), id.lowercased]) }
}

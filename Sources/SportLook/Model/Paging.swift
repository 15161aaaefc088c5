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
    static func encode(_ fields: [String]) -> String {
        // base64url without padding, mapped byte by byte (a page of results makes one).
        var out: [UInt8] = []
        for byte in Data(fields.joined(separator: "\u{1F}").utf8).base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): out.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
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
        guard let f = OpaqueCursor.decode(cursor, count: 2), let bits = UInt64(f[0], radix: 16), let id = UUID(text: f[1]) else { return nil }
        let seconds = Double(bitPattern: bits)
        guard seconds.isFinite else { return nil }
        time = Date(timeIntervalSince1970: seconds)
        self.id = id
    }

    var cursor: String { OpaqueCursor.encode([String(time.timeIntervalSince1970.bitPattern, radix: 16), id.lowercased]) }
}

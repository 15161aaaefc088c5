import Foundation
import HTTPTypes

/// The one reader of `Authorization: Bearer <token>` (routes and sockets alike):
/// the scheme in any case (RFC 9110), spaces around the token ignored.
enum BearerToken {
    static func parse(_ headers: HTTPFields) -> String? {
        guard let header = headers.joinedValues(.authorization) else { return nil }
        return parse(header: header)
    }

    /// The token of an `Authorization` value: `Bearer` in any case (after any
    /// spaces), a space, and the rest with the white space around it trimmed.
    static func parse(header: String) -> String? {
        if let token = parseASCII(header) { return token }
        return parseSplitting(header)
    }

    /// The reading of ``parseSplitting(_:)`` on the bytes of a value that is printable
    /// ASCII and tabs, where each byte is one character (10,500 instructions a request
    /// before, through the header's split and the scheme's lowercasing); `.none` for
    /// any other value.
    private static func parseASCII(_ header: String) -> String?? {
        var header = header
        // Where the token's part starts: after the scheme and the space that ends it.
        let rest = header.withUTF8 { bytes -> Int?? in
            guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) || $0 == 0x09 }) else { return .none }
            let space = UInt8(ascii: " ")
            var i = 0
            while i < bytes.count, bytes[i] == space { i += 1 }
            let scheme = i
            while i < bytes.count, bytes[i] != space { i += 1 }
            // `bytes | 0x20` is the lowercase letter exactly for that letter in either case.
            guard i - scheme == 6, zip("bearer".utf8, bytes[scheme..<i]).allSatisfy({ $0 == $1 | 0x20 }) else { return .some(nil) }
            return .some(i + 1)
        }
        guard let rest else { return .none }
        guard let rest else { return .some(nil) }
        let token = trimmed(Substring(header.utf8.dropFirst(rest)))
        return .some(token.isEmpty ? nil : token)
    }

    /// The value split at its first space (leading ones aside), by characters.
    static func parseSplitting(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = trimmed(parts[1])
        return token.isEmpty ? nil : token
    }

    /// The text without the white space around it (`CharacterSet.whitespaces`):
    /// spaces and tabs are trimmed here, since Foundation's trimming costs about
    /// 30,000 instructions on Linux, on every authenticated request; only text that
    /// then starts or ends outside ASCII (a no-break space?) is left to Foundation.
    static func trimmed(_ text: Substring) -> String {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !blank($0) }), let last = utf8.lastIndex(where: { !blank($0) }) else { return "" }
        guard utf8[first] < 0x80, utf8[last] < 0x80 else { return text.trimmingCharacters(in: .whitespaces) }
        return String(text[first...last])
    }
}

import Foundation
import HTTPTypes

/// The one reader of `Authorization: Bearer <token>` (routes and sockets alike):
/// the scheme in any case (RFC 9110), spaces around the token ignored.
enum BearerToken {
    static func parse(_ headers: HTTPFields) -> String? {
        guard let header = headers[.authorization] else { return nil }
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

import Foundation

extension Sequence<UInt8> {
    /// Lower-case hexadecimal, two digits a byte (a token digest is computed per
    /// request: `String(format:)` cost more than the hash).
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

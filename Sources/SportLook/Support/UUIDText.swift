import Foundation

extension UUID {
    /// The canonical lowercase form used in every answer.
    var lowercased: String { text(uppercase: false) }

    /// Parses the 36-character form (`8-4-4-4-12` hexadecimal digits, either case).
    init?(text: String) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var text = text
        let valid = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return false }
            return withUnsafeMutableBytes(of: &bytes) { out in
                var i = 0
                for n in 0..<16 {
                    if i == 8 || i == 13 || i == 18 || i == 23 {
                        guard utf8[i] == UInt8(ascii: "-") else { return false }
                        i += 1
                    }
                    guard let high = Hex.value(utf8[i]), let low = Hex.value(utf8[i + 1]) else { return false }
                    out[n] = high << 4 | low
                    i += 2
                }
                return true
            }
        }
        guard valid else { return nil }
        self.init(uuid: bytes)
    }

    /// The 36-character form (8-4-4-4-12 hexadecimal digits), written by hand:
    /// Foundation's `uuidString` goes through `sprintf` (90,000 instructions of a
    /// chat message's million, for the ids it binds).
    func text(uppercase: Bool) -> String {
        let letters: UInt8 = uppercase ? UInt8(ascii: "A") - 10 : UInt8(ascii: "a") - 10
        return String(unsafeUninitializedCapacity: 36) { out in
            withUnsafeBytes(of: uuid) { bytes in
                var i = 0
                for n in 0..<16 {
                    if n == 4 || n == 6 || n == 8 || n == 10 {
                        out[i] = UInt8(ascii: "-")
                        i += 1
                    }
                    let high = bytes[n] >> 4
                    let low = bytes[n] & 0x0F
                    out[i] = high < 10 ? UInt8(ascii: "0") + high : letters + high
                    out[i + 1] = low < 10 ? UInt8(ascii: "0") + low : letters + low
                    i += 2
                }
            }
            return 36
        }
    }
}

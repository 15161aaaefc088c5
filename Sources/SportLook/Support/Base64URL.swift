import Foundation

extension Data {
    /// Decodes base64url (RFC 4648 §5), padded or not (JWTs and page cursors leave it out).
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}

extension Sequence<UInt8> {
    /// base64url (RFC 4648 §5) without padding, as JWTs and Web Push keys are written.
    func base64URLEncodedString() -> String {
        Data(self).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension UInt8 {
    /// A letter of base64url's alphabet (RFC 4648 §5): A–Z, a–z, 0–9, `-`, `_`.
    var isBase64URL: Bool {
        (self >= 48 && self <= 57) || (self >= 65 && self <= 90) || (self >= 97 && self <= 122) || self == 45 || self == 95
    }
}

import Foundation

extension Data {
    /// Decodes base64url (RFC 4648 §5), padded or not (JWTs and page cursors leave it out).
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}

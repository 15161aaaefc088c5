import Crypto
import Foundation
import Synchronization

/// RFC 8292 voluntary application server identification: an ES256 JWT per push
/// service origin, reused until an hour before it expires (12 hours), sent as
/// `Authorization: vapid t=<jwt>, k=<public key>`.
final class VAPID: Sendable {
    let key: P256.Signing.PrivateKey
    /// A `mailto:` or `https:` URL push services can reach the operator at.
    let subject: String
    /// The public key, base64url (an uncompressed point): browsers subscribe with it.
    let publicKey: String
    private let tokens = Mutex<[String: (token: String, expires: Date)]>([:])

    static let lifetime: TimeInterval = 12 * 3_600

    init(key: P256.Signing.PrivateKey, subject: String) {
        self.key = key
        self.subject = subject
        self.publicKey = Array(key.publicKey.x963Representation).base64URLEncodedString()
    }

    /// The `Authorization` value for an endpoint at `origin` (`https://host[:port]`).
    func authorization(origin: String, now: Date = Date()) throws -> String {
        if let cached = tokens.withLock({ $0[origin] }), cached.expires.timeIntervalSince(now) > 3_600 {
            return "vapid t=\(cached.token), k=\(publicKey)"
        }
        let expires = now.addingTimeInterval(Self.lifetime)
        let token = try CompactJWT.es256(
            header: [],
            claims: [
                ("aud", .string(origin)), ("exp", .number(expires.timeIntervalSince1970.rounded(.down))), ("sub", .string(subject)),
            ], key: key)
        tokens.withLock { cache in
            if cache.count > 1_000 { cache.removeAll() }
            cache[origin] = (token, expires)
        }
        return "vapid t=\(token), k=\(publicKey)"
    }

    /// The origin a JWT's `aud` names: scheme, host and a port other than 443.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return url.port.map { $0 == 443 ? "\(scheme)://\(bracketed)" : "\(scheme)://\(bracketed):\($0)" } ?? "\(scheme)://\(bracketed)"
    }
}

import Crypto
import Foundation

/// A signed JWT in compact form (`header.claims.signature`, base64url), as APNs,
/// VAPID (ES256) and Google's OAuth assertion (RS256) take them.
enum CompactJWT {
    /// `header` and `claims` are written in the order given.
    static func make(header: [(String, JSONValue)], claims: [(String, JSONValue)], sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
        func encode(_ fields: [(String, JSONValue)]) -> String {
            var json = JSONWriter()
            json.objectStart()
            for (key, value) in fields {
                json.key(key)
                value.write(to: &json)
            }
            json.objectEnd()
            return json.bytes.base64URLEncodedString()
        }
        let input = encode(header) + "." + encode(claims)
        return input + "." + (try sign(Array(input.utf8))).base64URLEncodedString()
    }

    /// ES256: ECDSA over P-256 and SHA-256, the signature as r ‖ s (64 bytes).
    static func es256(header: [(String, JSONValue)], claims: [(String, JSONValue)], key: P256.Signing.PrivateKey) throws -> String {
        try make(header: [("alg", .string("ES256")), ("typ", .string("JWT"))] + header, claims: claims) { input in
            Array(try key.signature(for: input).rawRepresentation)
        }
    }
}

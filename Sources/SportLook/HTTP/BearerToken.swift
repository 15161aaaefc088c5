import Foundation
import HTTPTypes

/// The one reader of `Authorization: Bearer <token>` (routes and sockets alike):
/// the scheme in any case (RFC 9110), spaces around the token ignored.
enum BearerToken {
    static func parse(_ headers: HTTPFields) -> String? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

import Crypto
import Foundation

/// AWS Signature Version 4 for the `Authorization` header (the S3 flavour: paths are
/// encoded once, payloads are hashed into `x-amz-content-sha256`).
struct SigV4: Sendable {
    let accessKey: String
    let secretKey: String
    let region: String
    var service = "s3"

    /// The `Authorization` value for a request.
    /// - Parameters:
    ///   - path: the absolute path, not yet encoded.
    ///   - query: query parameters, not yet encoded.
    ///   - headers: every header to sign, `host`, `x-amz-date` and `x-amz-content-sha256`
    ///     among them (names in any case).
    ///   - payloadHash: the hex SHA-256 of the body (also sent as `x-amz-content-sha256`).
    func authorization(
        method: String, path: String, query: [(String, String)] = [], headers: [(String, String)], payloadHash: String, date: Date
    ) -> String {
        let (day, _) = Self.stamps(date)
        let canonicalHeaders =
            headers
            .map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: .whitespaces)) }
            .sorted { $0.0 < $1.0 }
        let signedHeaders = canonicalHeaders.map(\.0).joined(separator: ";")
        let canonicalPath: String = Self.encodePath(path)
        let encodedQuery: [(String, String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
        let sortedQuery = encodedQuery.sorted { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        let canonicalQuery: String = sortedQuery.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let headerLines: String = canonicalHeaders.map { "\($0.0):\($0.1)\n" }.joined()
        let canonicalRequest = [method, canonicalPath, canonicalQuery, headerLines, signedHeaders, payloadHash].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", Self.stamps(date).full, scope, SHA256.hash(data: Data(canonicalRequest.utf8)).hexString]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key).hexString
        return "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope),SignedHeaders=\(signedHeaders),Signature=\(signature)"
    }

    /// `20130524` and `20130524T000000Z` for an instant.
    static func stamps(_ date: Date) -> (day: String, full: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let day = "\(c.year ?? 1970)\(two(c.month))\(two(c.day))"
        return (day, "\(day)T\(two(c.hour))\(two(c.minute))\(two(c.second))Z")
    }

    /// Each segment of an absolute path encoded, the slashes kept.
    static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

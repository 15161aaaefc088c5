import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Media in an S3-compatible bucket (AWS, MinIO, R2, Ceph…), path-style:
/// `ENDPOINT/BUCKET/KEY`, every request signed with Signature Version 4. Instances
/// share it without coordination (keys are content-addressed).
struct S3BlobStore: BlobStore {
    struct Failure: Error, CustomStringConvertible {
        var status: UInt
        var body: String
        var description: String { "the object store answered \(status): \(body.prefix(200))" }
    }

    let endpoint: URL
    let bucket: String
    let signer: SigV4
    let client: HTTPClient
    var timeout: TimeAmount = .seconds(30)

    func put(_ key: String, bytes: [UInt8], contentType: String) async throws {
        let response = try await send("PUT", key: key, body: bytes, headers: [("content-type", contentType)])
        guard (200..<300).contains(response.status) else { throw Failure(status: response.status, body: response.text) }
    }

    func get(_ key: String, range: ClosedRange<Int>?) async throws -> BlobRead? {
        let response = try await send("GET", key: key, headers: range.map { [("range", "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? [])
        switch response.status {
        case 200:
            // A store that ignores the range sends it all: the range is cut here.
            guard let range, !response.body.isEmpty else { return BlobRead(bytes: response.body, totalSize: response.body.count) }
            let wanted = range.clamped(to: 0...(response.body.count - 1))
            return BlobRead(bytes: Array(response.body[wanted]), totalSize: response.body.count)
        case 206:
            // Content-Range: bytes 0-99/1234
            let total =
                response.headers.first(name: "content-range").flatMap { $0.split(separator: "/").last.flatMap { Int($0) } }
                ?? response.body.count
            return BlobRead(bytes: response.body, totalSize: total)
        case 404: return nil
        default: throw Failure(status: response.status, body: response.text)
        }
    }

    func size(_ key: String) async throws -> Int? {
        let response = try await send("HEAD", key: key)
        switch response.status {
        case 200: return response.headers.first(name: "content-length").flatMap(Int.init)
        case 404: return nil
        default: throw Failure(status: response.status, body: response.text)
        }
    }

    func delete(_ key: String) async throws {
        let response = try await send("DELETE", key: key)
        guard (200..<300).contains(response.status) || response.status == 404 else {
            throw Failure(status: response.status, body: response.text)
        }
    }

    func keys() async throws -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            let query = [("list-type", "2")] + (token.map { [("continuation-token", $0)] } ?? [])
            let response = try await send("GET", key: nil, query: query)
            guard response.status == 200 else { throw Failure(status: response.status, body: response.text) }
            let xml = String(decoding: response.body, as: UTF8.self)
            keys += Self.elements("Key", in: xml)
            token = Self.elements("IsTruncated", in: xml).first == "true" ? Self.elements("NextContinuationToken", in: xml).first : nil
        } while token != nil
        return keys.sorted()
    }

    /// The texts of `<name>…</name>` in a ListObjectsV2 answer (keys are ours: hex and
    /// a dot, nothing to unescape).
    static func elements(_ name: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(name)>").dropFirst().compactMap { $0.components(separatedBy: "</\(name)>").first }
    }

    /// Creates the bucket (for tests and first set-up; an existing one of ours is fine).
    func createBucket() async throws {
        let response = try await send("PUT", key: nil)
        guard (200..<300).contains(response.status) || response.status == 409 else {
            throw Failure(status: response.status, body: response.text)
        }
    }

    struct Answer {
        var status: UInt
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body.prefix(512), as: UTF8.self) }
    }

    /// One signed request.
    func send(_ method: String, key: String?, query: [(String, String)] = [], body: [UInt8] = [], headers extra: [(String, String)] = [])
        async throws -> Answer
    {
        let path =
            (endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path) + "/\(bucket)" + (key.map { "/\($0)" } ?? "")
        let host = endpoint.port.map { "\(endpoint.host ?? ""):\($0)" } ?? (endpoint.host ?? "")
        let payloadHash = SHA256.hash(data: body).hexString
        let now = Date()
        var signed: [(String, String)] =
            [("host", host), ("x-amz-date", SigV4.stamps(now).full), ("x-amz-content-sha256", payloadHash)] + extra
        signed.append(
            (
                "authorization",
                signer.authorization(method: method, path: path, query: query, headers: signed, payloadHash: payloadHash, date: now)
            ))
        let encodedPath = SigV4.encodePath(path)
        let encodedQuery = query.map { "\(SigV4.encode($0.0))=\(SigV4.encode($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(
            url: "\(endpoint.scheme ?? "https")://\(host)\(encodedPath)" + (query.isEmpty ? "" : "?" + encodedQuery))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed where name != "host" { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "PUT" { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let collected = method == "HEAD" ? ByteBuffer() : try await response.body.collect(upTo: 64 << 20)
        return Answer(status: response.status.code, headers: response.headers, body: Array(collected.readableBytesView))
    }
}

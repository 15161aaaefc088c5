import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SportLookTestSupport

@testable import SportLook

/// A real `sportlook serve` process (``LiveServer``), for tests that kill it: the
/// executable built next to the test bundle, with the bounds a debug build sharing two
/// cores with the suite needs. Its writes are often slower than a production bound on a
/// standing queue, and its tasks run late (as in `testConfiguration`); nor is its wait for
/// the database bounded at the production 3 s: with the whole suite on one cluster a
/// register once waited longer (503).
func serveProcess(environment extra: [String: String], arguments: [String] = []) throws -> LiveServer {
    var environment = ["DATABASE_WRITE_WAIT": "0", "DATABASE_TIMEOUT": "60s", "OVERLOAD_LAG": "0"]
    for (key, value) in extra { environment[key] = value }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sportlook").path
    return try LiveServer(executable: executable, environment: environment, arguments: arguments)
}

/// Plain HTTP to a live server, for tests that run real processes.
enum LiveHTTP {
    struct Reply {
        var status: Int
        var body: Data

        /// The body as `T` if the status is `expected`; otherwise an error with the status and the body.
        func decode<T: Decodable>(_: T.Type, expecting expected: Int) throws -> T {
            let text = String(decoding: body, as: UTF8.self).prefix(2_000)
            guard status == expected else { throw ClusterError("expected \(expected), got \(status): \(text)") }
            do {
                return try API.decoder.decode(T.self, from: body)
            } catch {
                throw ClusterError("\(status) answer is not \(T.self): \(error)\nbody: \(text)")
            }
        }
    }

    static func request(_ url: String, method: String = "GET", token: String? = nil, json: Any? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), body: Data(body.readableBytesView))
    }
}

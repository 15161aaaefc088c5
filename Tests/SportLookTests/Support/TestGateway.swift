import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SportLook
import Synchronization

/// A push gateway on loopback for tests: records every POST and answers with
/// the status its script gives for the n-th request.
final class TestGateway: Sendable {
    struct Received: Sendable {
        var idempotencyKey: String
        var signature: String
        var body: Data

        /// The body as the push it should be.
        func push() throws -> Push {
            do {
                return try API.decoder.decode(Push.self, from: body)
            } catch {
                throw ClusterError("the push is not one: \(error)\nbody: \(String(decoding: body, as: UTF8.self))")
            }
        }
    }

    /// What the service POSTs (README, "Push gateway").
    struct Push: Decodable, Sendable {
        struct Device: Decodable, Sendable {
            var platform: String
            var token: String
        }

        struct Message: Decodable, Sendable {
            var id: String
            var kind: String
            var title: String
            var body: String
            var data: [String: JSONValue]
        }

        var id: String
        var userID: String
        var devices: [Device]
        var notification: Message

        enum CodingKeys: String, CodingKey {
            case id, devices, notification
            case userID = "user_id"
        }
    }

    private let received = Mutex<[Received]>([])
    private let script: @Sendable (Int, Received) -> (HTTPResponse.Status, String?)
    private let server = LocalServer()
    private let boundPort = Mutex<Int?>(nil)
    private let latency: Duration

    /// - Parameters:
    ///   - latency: How long each answer takes.
    ///   - script: The status (and body) for the n-th request.
    init(
        latency: Duration = .zero, _ script: @escaping @Sendable (Int, Received) -> (HTTPResponse.Status, String?) = { _, _ in (.ok, nil) }
    ) {
        self.latency = latency
        self.script = script
    }

    var requests: [Received] { received.withLock { $0 } }

    /// Starts listening; returns the URL to configure as `PUSH_GATEWAY_URL`.
    func start() async throws -> URL {
        let router = Router()
        router.post("push") { [self] request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let item = Received(
                idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!] ?? "",
                signature: request.headers[HTTPField.Name("X-SportLook-Signature")!] ?? "",
                body: Data(body.readableBytesView))
            let n = received.withLock { list in
                list.append(item)
                return list.count
            }
            if latency > .zero { try await Task.sleep(for: latency) }
            let (status, text) = script(n, item)
            return Response(
                status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text ?? "{}")))
        }
        let port = try await server.start(router, label: "gateway")
        boundPort.withLock { $0 = port }
        return URL(string: "http://127.0.0.1:\(port)/push")!
    }

    func stop() {
        server.stop()
    }
}

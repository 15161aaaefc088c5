import Foundation
import NIOCore
import NIOPosix
import SportLookTestSupport
import Synchronization
import Testing

/// An HTTP/1.1 request written by hand over a TCP connection to the server under
/// test, a piece at a time: for bodies that arrive slowly or never finish.
final class RawHTTPClient: Sendable {
    private let channel: any Channel
    private let received: ReceivedBytes

    private init(channel: any Channel, received: ReceivedBytes) {
        self.channel = channel
        self.received = received
    }

    /// Connects to the server on loopback `port` and writes `head` (the request line
    /// and headers, without the blank line that ends them).
    static func open(port: Int, head: [String]) async throws -> RawHTTPClient {
        let received = ReceivedBytes()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(received) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let client = RawHTTPClient(channel: channel, received: received)
        try await client.send(Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        return client
    }

    /// Writes `bytes` of the body.
    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    /// The response's status and body, once it has arrived whole (or the server closed).
    func response() async throws -> (status: Int, body: String) {
        try await eventually("a response") { received.response != nil }
        return try #require(received.response)
    }

    /// The response if one has arrived.
    var answered: (status: Int, body: String)? { received.response }

    func close() async {
        try? await channel.close().get()
    }
}

/// Collects what the server sends on a ``RawHTTPClient``'s connection.
private final class ReceivedBytes: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        state.withLock { $0.bytes += buffer.readableBytesView }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLock { $0.closed = true }
        context.fireChannelInactive()
    }

    /// The status and body once the head and `Content-Length` bytes have arrived.
    var response: (status: Int, body: String)? {
        let (bytes, closed) = state.withLock { ($0.bytes, $0.closed) }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].split(separator: "\r\n")
        guard let status = head.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let length = head.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        let body = String(text[end.upperBound...])
        if let length, body.utf8.count < length, !closed { return nil }
        return (status, body)
    }
}

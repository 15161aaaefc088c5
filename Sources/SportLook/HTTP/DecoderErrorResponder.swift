import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Answers requests the HTTP decoder refuses — headers over the limits (16 KiB a
/// field, 32 KiB in all, 100 fields) or malformed — with a clear 4xx and closes the
/// connection, instead of leaving the client waiting.
///
/// It sits right after the HTTP codec, where decoder errors arrive; it passes
/// everything else through.
final class DecoderErrorResponder: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    static let limits = (fieldSize: 16 * 1024, listSize: 32 * 1024, fieldCount: 100)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parser = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let tooLarge = parser == .headerOverflow
        let status: HTTPResponseStatus = tooLarge ? .requestHeaderFieldsTooLarge : .badRequest
        let body = APIError(tooLarge ? .requestHeaderFieldsTooLarge : .badRequest, code: tooLarge ? "headers_too_large" : "bad_request",
                            message: tooLarge ? "The request headers are too large." : "The request could not be read.").body(requestID: nil)
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: [
            "Content-Type": "application/json; charset=utf-8", "Content-Length": String(body.count), "Connection": "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// A server child channel with ``DecoderErrorResponder`` right after the HTTP codec.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(DecoderErrorResponder())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades, decoder limits, and clear answers to refused requests.
    static func sportLook(webSocketRouter: Router<AppRequestContext>, pingInterval: TimeInterval) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(
                responder: responder,
                webSocketResponder: webSocketResponder,
                configuration: .init(
                    http1: .init(
                        idleTimeout: .seconds(120),
                        httpDecoderConfiguration: .init(
                            maxHeaderFieldSize: DecoderErrorResponder.limits.fieldSize,
                            maxHeaderListSize: DecoderErrorResponder.limits.listSize,
                            maxHeaderFieldCount: DecoderErrorResponder.limits.fieldCount
                        )
                    ),
                    ws: .init(maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: .milliseconds(Int64(pingInterval * 1000))))
                )
            ))
        }
    }
}

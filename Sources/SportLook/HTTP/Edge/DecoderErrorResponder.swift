import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

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
        let body = APIError(
            tooLarge ? .requestHeaderFieldsTooLarge : .badRequest, code: tooLarge ? "headers_too_large" : "bad_request",
            message: tooLarge ? Sentence("The request headers are too large.") : Sentence("The request could not be read.")
        ).body(requestID: nil, language: .en)
        let head = HTTPResponseHead(
            version: .http1_1, status: status,
            headers: [
                "Content-Type": "application/json; charset=utf-8", "Content-Language": "en", "Content-Length": String(body.count),
                "Connection": "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
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

    /// Runs the inner handler; returns at the latest ``closeGrace`` after the
    /// channel closed, whatever the handler still waits on.
    ///
    /// Graceful shutdown waits for every connection's task, and a connection's task
    /// waits first for the WebSocket upgrade decision. A test run once stopped for
    /// good in the shutdown of the server that had answered oversized and malformed
    /// requests (closed by ``DecoderErrorResponder``), every thread idle: whatever
    /// the cause, a closed connection now holds nobody up for long.
    ///
    /// The handler runs on the connection's event loop (``LoopExecutors``): a request
    /// is read, answered and written on one thread, without the two hops to the
    /// global executor's threads and back for each request. Nothing a handler awaits
    /// may block that thread: bcrypt, images, SQLite reads and media files run in
    /// thread pools, SQLite's writes on the writer's own event loop, PostgreSQL
    /// transactions in tasks of the global executor.
    func handle(value: Value, logger: Logger) async {
        let inner = self.inner
        let channel = value.channel
        let work = Task(executorPreference: LoopExecutors.shared.executor(for: channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
        let done = Mutex(false)
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finish: @Sendable () -> Void = {
                    if done.withLock({ d in
                        defer { d = true }
                        return !d
                    }) {
                        continuation.resume()
                    }
                }
                Task {
                    await work.value
                    finish()
                }
                channel.closeFuture.whenComplete { _ in
                    channel.eventLoop.scheduleTask(in: Self.closeGrace) { finish() }
                }
            }
        } onGracefulShutdown: {
            // Requests in flight get their time; a connection still open after it
            // (an idle or stuck one, a socket) is closed, which ends its task.
            channel.eventLoop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
        }
    }

    /// How long a connection's task may outlive its channel.
    static var closeGrace: TimeAmount { .seconds(2) }
    /// How long a connection may stay open once the server is stopping.
    static var shutdownGrace: TimeAmount { .seconds(10) }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades, decoder limits, and clear answers to refused requests.
    static func sportLook(webSocketRouter: Router<AppRequestContext>) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            sportLookChannel(responder: responder, webSocketResponder: webSocketResponder)
        }
    }

    /// Each connection's channel as ``sportLook(webSocketRouter:)`` sets it up.
    static func sportLookChannel(
        responder: @escaping HTTPChannelHandler.Responder,
        webSocketResponder: RouterResponder<AppRequestContext>
    ) -> GuardedChildChannel<HTTP1WebSocketUpgradeChannel> {
        GuardedChildChannel(
            inner: HTTP1WebSocketUpgradeChannel(
                responder: responder,
                webSocketResponder: webSocketResponder,
                configuration: .init(
                    http1: .init(
                        // Takes the framework's codec's place (see there).
                        additionalChannelHandlers: [RequestHeadCodec()],
                        idleTimeout: .seconds(120),
                        httpDecoderConfiguration: .init(
                            maxHeaderFieldSize: DecoderErrorResponder.limits.fieldSize,
                            maxHeaderListSize: DecoderErrorResponder.limits.listSize,
                            maxHeaderFieldCount: DecoderErrorResponder.limits.fieldCount
                        )
                    ),
                    // Sockets are pinged by `WebSocketEndpoint`, each at its own phase.
                    ws: .init(maxFrameSize: 1 << 16, autoPing: .disabled)
                )
            ))
    }
}

import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// HTTP/1's request and response parts as HTTP types, in place of the framework's
/// codec (`HTTP1ToHTTPServerCodec`): added among the handlers that follow that codec
/// (``HTTPServerBuilder/sportLookChannel(responder:webSocketResponder:)``), it takes
/// the codec out of the pipeline and converts from then on.
///
/// The framework's codec reads every request's target through `URLComponents` to find
/// the path of a target given with its scheme and host (`http://host/path`), and
/// keeps a target without a scheme as it is. A target starting with `/` never has a
/// scheme (a scheme starts with a letter, and the parser stops looking for one at the
/// first `/`), so it is kept as it is here without being parsed: 2,900 instructions a
/// `/health`, 5,300 a nearby page's longer target. Any other target, and everything
/// else, is converted by the framework's own functions, as its codec converts them:
/// `secure: false` and cookies not split, as Hummingbird makes that codec
/// (`HTTP1Channel.swift` and `WebSocketChannel.swift` in its packages).
final class RequestHeadCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether the framework's codec has left the pipeline: until then (and for good
    /// where there was none), the parts reaching this handler are converted already,
    /// and pass through.
    private var converting = false

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) else { return }
        // Converting from the moment it is gone (at once today: its removal completes
        // inline), never while both would.
        let removed = context.eventLoop.makePromise(of: Void.self)
        removed.futureResult.assumeIsolated().whenSuccess { [self] in converting = true }
        pipeline.removeHandler(context: codec, promise: removed)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard converting else { return context.fireChannelRead(data) }
        switch unwrapInboundIn(data) {
        case .head(let head):
            do {
                context.fireChannelRead(wrapInboundOut(.head(try Self.request(head))))
            } catch {
                context.fireErrorCaught(error)
            }
        case .body(let body):
            context.fireChannelRead(wrapInboundOut(.body(body)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers.map { HTTPFields($0, splitCookie: false) })))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard converting else { return context.write(data, promise: promise) }
        switch unwrapOutboundIn(data) {
        case .head(let response):
            context.write(wrapOutboundOut(.head(HTTPResponseHead(response))), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            context.write(wrapOutboundOut(.end(trailers.map(HTTPHeaders.init))), promise: promise)
        }
    }

    /// The request a head stands for: what `HTTPRequest(head, secure: false, splitCookie: false)`
    /// makes of it, a target starting with `/` kept as it is without a parse.
    static func request(_ head: HTTPRequestHead) throws -> HTTPRequest {
        guard head.uri.utf8.first == UInt8(ascii: "/") else {
            return try HTTPRequest(head, secure: false, splitCookie: false)
        }
        return HTTPRequest(
            method: try HTTPRequest.Method(head.method), scheme: "http", authority: head.headers["Host"].first,
            path: head.uri, headerFields: HTTPFields(head.headers, splitCookie: false))
    }
}

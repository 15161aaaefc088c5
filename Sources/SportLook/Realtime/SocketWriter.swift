import NIOCore
import NIOWebSocket

/// Writes a socket's frames from its ``FrameQueue`` on the connection's event loop: every
/// frame waiting, flushed once a batch, while the socket takes them. A full socket is
/// drained again when NIO says it is writable; meanwhile the queue fills, and a client
/// that stays behind is closed by the socket's watch.
///
/// A frame pushed while no drain is under way asks the loop for one (one hop per burst,
/// not a task woken per frame). The handler sits just after the frame encoder, so it
/// also sees the frames the WebSocket handler writes: after a close frame (the answer to
/// a client's close, or ours) it writes nothing more.
final class SocketWriter: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Frames written before each flush.
    static let batch = 64

    private let queue: FrameQueue
    private var context: ChannelHandlerContext?
    private var closeSent = false

    private init(queue: FrameQueue) {
        self.queue = queue
    }

    /// Puts a writer for `queue` into `channel`'s pipeline, after its frame encoder. On
    /// the channel's event loop.
    static func install(for queue: FrameQueue, in channel: any Channel) throws {
        channel.eventLoop.preconditionInEventLoop()
        let pipeline = channel.pipeline.syncOperations
        let writer = SocketWriter(queue: queue)
        try pipeline.addHandler(writer, position: .after(try pipeline.handler(type: WebSocketFrameEncoder.self)))
        let bound = NIOLoopBound(writer, eventLoop: channel.eventLoop)
        queue.drained { channel.eventLoop.execute { bound.value.drain() } }
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { closeSent = true }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drain() }
        context.fireChannelWritabilityChanged()
    }

    /// Writes what waits, batch by batch, while the socket takes it (on the loop).
    func drain() {
        guard let context else { return }
        while !closeSent, context.channel.isWritable {
            let frames = queue.take(max: Self.batch)
            if frames.isEmpty { return }
            for frame in frames {
                context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: frame))), promise: nil)
            }
            context.flush()
        }
    }
}

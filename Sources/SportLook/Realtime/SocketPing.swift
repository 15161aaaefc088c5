import NIOCore
import Synchronization

/// When a socket is pinged, and when its client counts as gone.
///
/// Each socket is pinged once an `interval`, at its own phase within it (drawn when
/// it opens). Sockets open in bursts — after a deploy every client reconnects within
/// seconds — and a period counted from each socket's start kept them in step for
/// good: ten thousand pings and pongs in the same second, every interval, which on
/// two cores delayed the chat messages of that second.
///
/// A client is gone when nothing at all (no pong, no frame) was read from it in the
/// interval after a ping while the server was waiting to read. When the server was not
/// reading (the application behind on the socket's frames holds reads back), the
/// client's answer may be waiting unread: it is pinged again instead. The look is made
/// by the instance's one socket timer (``SocketWatch``).
struct PingSchedule: Sendable {
    enum Action: Sendable, Equatable {
        /// Nothing due.
        case wait
        /// Send a ping now.
        case ping
        /// Nothing came from the client since the last ping, an interval ago: close it.
        case gone
    }

    let interval: Duration
    /// When the next ping is due.
    private(set) var due: ContinuousClock.Instant
    /// The reads made when the client was last pinged (none yet: `nil`), and whether
    /// the server was then waiting to read.
    private var atPing: (reads: Int, waiting: Bool)?

    /// `phase` in `0..<1`: where in the interval this socket's pings fall.
    init(interval: Duration, opened: ContinuousClock.Instant, phase: Double) {
        self.interval = interval
        self.due = opened + interval * min(max(phase, 0), 1)
    }

    /// What to do at `now`: the client has made `reads` reads since it connected, and
    /// the server is `waiting` to read from it (a read asked for and not yet answered).
    mutating func look(now: ContinuousClock.Instant, reads: Int, waiting: Bool) -> Action {
        guard now >= due else { return .wait }
        // A read waiting at the ping, and none made since: the server was ready for the
        // whole interval, and nothing came.
        if let atPing, atPing.reads == reads, atPing.waiting { return .gone }
        atPing = (reads, waiting)
        // The phase holds while the timer keeps up; after a stall the next is an interval on.
        due += interval
        if due <= now { due = now + interval }
        return .ping
    }
}

/// Counts the reads on a socket's connection, whatever they carry (a pong is read by
/// the WebSocket handler and never reaches the application, but its bytes pass here),
/// and whether a read is asked for and not yet answered: the channel asks only while
/// the application keeps up with the socket's frames.
final class ReadCounter: Sendable {
    private let reads = Atomic<Int>(0)
    private let asked = Atomic<Bool>(false)

    /// The reads and whether one is waiting, read in that order (a read that lands
    /// between the two shows as a changed count at the next look, never as silence).
    var now: (reads: Int, waiting: Bool) {
        let reads = reads.load(ordering: .acquiring)
        return (reads, asked.load(ordering: .acquiring))
    }

    /// The channel handler that counts; it goes first in the connection's pipeline.
    func handler() -> some ChannelDuplexHandler { Handler(counter: self) }

    private final class Handler: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let counter: ReadCounter

        init(counter: ReadCounter) {
            self.counter = counter
        }

        /// A read asked for before this handler came may be waiting unseen: ask for
        /// one now (asking again while one waits changes nothing), so it is seen.
        func handlerAdded(context: ChannelHandlerContext) { read(context: context) }

        func read(context: ChannelHandlerContext) {
            counter.asked.store(true, ordering: .releasing)
            context.read()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            counter.asked.store(false, ordering: .releasing)
            counter.reads.add(1, ordering: .releasing)
            context.fireChannelRead(data)
        }
    }
}

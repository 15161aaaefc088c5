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
/// A client that sent nothing at all (no pong, no frame) in the interval after a
/// ping is gone. The look is made by the instance's one socket timer (``SocketWatch``).
struct PingSchedule: Sendable, Equatable {
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
    /// How many reads the client had made when it was last pinged (none yet: `nil`).
    private var readsAtPing: Int?

    /// `phase` in `0..<1`: where in the interval this socket's pings fall.
    init(interval: Duration, opened: ContinuousClock.Instant, phase: Double) {
        self.interval = interval
        self.due = opened + interval * min(max(phase, 0), 1)
    }

    /// What to do at `now`, the client having made `reads` reads since it connected.
    mutating func look(now: ContinuousClock.Instant, reads: Int) -> Action {
        guard now >= due else { return .wait }
        if let readsAtPing, readsAtPing == reads { return .gone }
        readsAtPing = reads
        // The phase holds while the timer keeps up; after a stall the next is an interval on.
        due += interval
        if due <= now { due = now + interval }
        return .ping
    }
}

/// Counts the reads on a socket's connection, whatever they carry: a pong is read by
/// the WebSocket handler and never reaches the application, but its bytes pass here.
final class ReadCounter: Sendable {
    private let reads = Atomic<Int>(0)

    var count: Int { reads.load(ordering: .relaxed) }

    /// The channel handler that counts; it goes first in the connection's pipeline.
    func handler() -> some ChannelInboundHandler { Handler(counter: self) }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let counter: ReadCounter

        init(counter: ReadCounter) {
            self.counter = counter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            counter.reads.add(1, ordering: .relaxed)
            context.fireChannelRead(data)
        }
    }
}

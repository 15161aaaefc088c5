import Foundation
import Synchronization

/// The frames waiting to be written to one socket: a bounded queue, so a slow
/// client can never make the server hold more than `capacity` frames, nor more
/// than `byteCapacity` bytes, for it.
///
/// Chat history is pulled into it by the connection at the pace the socket
/// takes it (``waitForRoom()``); ephemeral frames (typing, notifications) are
/// dropped when it is full. The socket's ``SocketWriter`` takes the frames on the
/// connection's event loop: a frame pushed while no drain is under way wakes it.
final class FrameQueue: Sendable {
    private struct State {
        var frames: [String] = []
        var head = 0
        var closed = false
        /// Called for a frame pushed while no drain is under way (set by the writer).
        var wake: (@Sendable () -> Void)?
        /// A drain is asked for or under way: it takes every frame before it stops.
        var draining = false
        /// Those waiting for the queue to be closed and emptied (``finished()``).
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var lastProgress = ContinuousClock.now
        var bytes = 0
        /// Why the socket is being closed, once it is (the writer sends it as the close frame).
        var ending: Ending?
        /// When ``ending`` was set.
        var endedAt: ContinuousClock.Instant?
        var count: Int { frames.count - head }
        /// Marks a drain as asked for: the writer's wake, unless one is under way already.
        mutating func startDrain() -> (@Sendable () -> Void)? {
            guard !draining, let wake else { return nil }
            draining = true
            return wake
        }
        /// Closed, and the writer came back empty: the close with a reason may go.
        var isFinished: Bool { closed && count == 0 && !draining }
        /// Those waiting for ``isFinished``, once it holds (let go of here).
        mutating func finishedWaiters() -> [CheckedContinuation<Void, Never>] {
            guard isFinished else { return [] }
            defer { finishWaiters = [] }
            return finishWaiters
        }
        func hasRoom(_ capacity: Int, _ byteCapacity: Int) -> Bool { count <= capacity / 2 && bytes <= byteCapacity / 2 }
        /// Whether a wait for room is over: there is room, or the queue is closed.
        func roomOrClosed(_ capacity: Int, _ byteCapacity: Int) -> Bool { closed || hasRoom(capacity, byteCapacity) }
    }

    /// A close code and reason for the client.
    struct Ending: Sendable, Equatable {
        var code: Int
        var reason: String

        /// The session ended (logout, revoked, expired, password changed, account deleted).
        static let sessionEnded = Ending(code: 4001, reason: "session_ended")
        /// The client sent frames faster than its budget.
        static let tooManyFrames = Ending(code: 1008, reason: "too_many_frames")
        /// The client is too far behind to be sent a frame it must have.
        static let tooSlow = Ending(code: 1008, reason: "too_slow: reconnect with after_seq")
    }

    let capacity: Int
    let byteCapacity: Int
    private let state = Mutex(State())

    init(capacity: Int, byteCapacity: Int = 4 << 20) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// Queues a frame; `false` (and nothing queued) when full or closed.
    @discardableResult
    func push(_ frame: String) -> Bool {
        let (queued, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            guard !s.closed, s.count < capacity, s.bytes + frame.utf8.count <= byteCapacity else { return (false, nil) }
            // An idle socket's stall is counted from the frame that came, not from its last take.
            if s.count == 0 { s.lastProgress = .now }
            s.frames.append(frame)
            s.bytes += frame.utf8.count
            return (true, s.startDrain())
        }
        wake?()
        return queued
    }

    /// The writer that drains the queue: `wake` is called (from any thread) whenever a
    /// frame waits and no drain is under way; the drain then calls ``take(max:)`` until
    /// it gives nothing. Frames pushed before the writer came wake it at once.
    func drained(by wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> (@Sendable () -> Void)? in
            s.wake = wake
            return s.count > 0 ? s.startDrain() : nil
        }
        now?()
    }

    /// Up to `max` of the waiting frames, in order, for the writer. An empty answer ends the
    /// drain (the next frame pushed starts another); a writer that stops while frames
    /// wait (its socket is full) calls again when the socket takes more.
    func take(max: Int) -> [String] {
        let (frames, waiters, finished) = state.withLock {
            s -> ([String], [CheckedContinuation<Void, Never>], [CheckedContinuation<Void, Never>]) in
            s.lastProgress = .now
            guard s.count > 0 else {
                s.draining = false
                return ([], [], s.finishedWaiters())
            }
            let end = min(s.frames.count, s.head + max)
            let frames = Array(s.frames[s.head..<end])
            for frame in frames { s.bytes -= frame.utf8.count }
            s.head = end
            if s.head > 256 && s.head * 2 > s.frames.count {
                s.frames.removeFirst(s.head)
                s.head = 0
            }
            var waiters: [CheckedContinuation<Void, Never>] = []
            if s.hasRoom(capacity, byteCapacity) { swap(&waiters, &s.roomWaiters) }
            return (frames, waiters, [])
        }
        for waiter in waiters + finished { waiter.resume() }
        return frames
    }

    /// Returns once the queue is closed and the writer took every frame it kept (at once
    /// for a queue closed without an ending: its frames are dropped).
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.isFinished { return true }
                s.finishWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Whether ``waitForRoom()`` would return at once: checked first by a caller on an
    /// actor, since calling it hops off the actor and back even when it does not wait.
    var hasRoom: Bool { state.withLock { s in s.roomOrClosed(capacity, byteCapacity) } }

    /// Returns once the queue is at most half full (or closed).
    func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.roomOrClosed(capacity, byteCapacity) { return true }
                s.roomWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// How long, at `now`, the socket has not taken a frame while frames wait (zero when idle).
    func stalledFor(at now: ContinuousClock.Instant) -> Duration {
        state.withLock { s in s.count > 0 ? now - s.lastProgress : .zero }
    }

    var count: Int { state.withLock { $0.count } }

    /// Why the socket is closing (set by ``close(ending:)``).
    var ending: Ending? { state.withLock { $0.ending } }

    /// Stops the queue: waiters are released and nothing more is queued. Without an
    /// `ending` its frames are dropped and the writer let go; with one, the frames
    /// already queued (an error frame that explains the close) are still written, and
    /// the socket is then closed with that code and reason (``finished()``).
    func close(ending: Ending? = nil) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            if s.ending == nil, let ending {
                s.ending = ending
                s.endedAt = .now
            }
            if ending == nil {
                s.frames = []
                s.bytes = 0
                s.head = 0
                s.wake = nil
                s.draining = false
            }
            defer { s.roomWaiters = [] }
            return s.roomWaiters + s.finishedWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// When the queue was closed with an ending (nil until then).
    var endedAt: ContinuousClock.Instant? { state.withLock { $0.endedAt } }
}

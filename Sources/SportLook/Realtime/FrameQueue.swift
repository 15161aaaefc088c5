import Foundation
import Synchronization

/// The frames waiting to be written to one socket: a bounded queue, so a slow
/// client can never make the server hold more than `capacity` frames, nor more
/// than `byteCapacity` bytes, for it.
///
/// Chat history is pulled into it by the connection at the pace the socket
/// takes it (``waitForRoom()``); ephemeral frames (typing, notifications) are
/// dropped when it is full.
final class FrameQueue: Sendable {
    private struct State {
        var frames: [String] = []
        var head = 0
        var closed = false
        var reader: CheckedContinuation<String?, Never>?
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var lastProgress = ContinuousClock.now
        var bytes = 0
        /// Why the socket is being closed, once it is (the writer sends it as the close frame).
        var ending: Ending?
        /// When ``ending`` was set.
        var endedAt: ContinuousClock.Instant?
        var count: Int { frames.count - head }
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
        let reader = state.withLock { s -> CheckedContinuation<String?, Never>?? in
            guard !s.closed, s.count < capacity, s.bytes + frame.utf8.count <= byteCapacity else { return .none }
            if let reader = s.reader {
                s.reader = nil
                return .some(reader)
            }
            s.frames.append(frame)
            s.bytes += frame.utf8.count
            return .some(nil)
        }
        switch reader {
        case .none: return false
        case .some(let waiting?):
            waiting.resume(returning: frame)
            return true
        case .some(nil): return true
        }
    }

    /// The next frame, waiting for one; `nil` once closed.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            let (frame, resume, waiters): (String?, Bool, [CheckedContinuation<Void, Never>]) = state.withLock { s in
                s.lastProgress = .now
                if s.count > 0 {
                    let frame = s.frames[s.head]
                    s.bytes -= frame.utf8.count
                    s.head += 1
                    if s.head > 256 && s.head * 2 > s.frames.count {
                        s.frames.removeFirst(s.head)
                        s.head = 0
                    }
                    var waiters: [CheckedContinuation<Void, Never>] = []
                    if s.hasRoom(capacity, byteCapacity) { swap(&waiters, &s.roomWaiters) }
                    return (frame, true, waiters)
                }
                if s.closed { return (nil, true, []) }
                s.reader = continuation
                var waiters: [CheckedContinuation<Void, Never>] = []
                swap(&waiters, &s.roomWaiters)
                return (nil, false, waiters)
            }
            for waiter in waiters { waiter.resume() }
            if resume { continuation.resume(returning: frame) }
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

    /// Stops the queue: waiters are released, nothing more is queued, and the
    /// reader gets `nil`. Without an `ending` at once; with one, after the frames
    /// already queued (an error frame that explains the close), and the writer
    /// then closes the socket with that code and reason.
    func close(ending: Ending? = nil) {
        let (reader, waiters) = state.withLock { s -> (CheckedContinuation<String?, Never>?, [CheckedContinuation<Void, Never>]) in
            s.closed = true
            if s.ending == nil, let ending {
                s.ending = ending
                s.endedAt = .now
            }
            if ending == nil {
                s.frames = []
                s.bytes = 0
                s.head = 0
            }
            defer {
                s.reader = nil
                s.roomWaiters = []
            }
            return (s.reader, s.roomWaiters)
        }
        reader?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// When the queue was closed with an ending (nil until then).
    var endedAt: ContinuousClock.Instant? { state.withLock { $0.endedAt } }
}

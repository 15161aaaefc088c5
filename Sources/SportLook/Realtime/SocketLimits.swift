import Foundation

/// What one socket may queue and send.
struct SocketLimits: Sendable {
    /// Frames queued for the client at most.
    var queueFrames: Int
    /// Bytes queued for the client at most.
    var queueBytes: Int
    /// Frames per second the client may send, on average.
    var frameRate: Double
    /// Frames the client may send at once.
    var frameBurst: Int
    /// Where a socket closed for sending too many frames is counted (`socket_rate_limited`,
    /// on the abuse panel).
    var refusals: RefusalCounts? = nil
}

/// A token bucket: `burst` frames at once, refilled at `rate` a second.
struct FrameBudget: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(burst)
        self.tokens = Double(burst)
    }

    /// Takes one frame's token; `false` when none is left.
    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        if let last {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            tokens = min(burst, tokens + seconds * rate)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

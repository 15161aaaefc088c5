import Foundation

/// How fast an upload's body must arrive: anything within the first `grace`
/// seconds, then at least `minRate` bytes a second on average since `start`'s
/// grace ended, and all of it within `limit` seconds. A body trickled a byte at a
/// time holds an upload place (one of a few per instance) for the grace and little
/// more, one that keeps the minimum rate for `limit` at most; a phone on a slow
/// network (16 KiB/s is 128 kbit/s) sends a photo of 2 MB in two minutes.
struct UploadPace: Sendable, Equatable {
    var start: Date
    var grace: TimeInterval
    var minRate: Int
    var limit: TimeInterval

    /// The instant by which more than `received` bytes must have arrived.
    func deadline(afterReceiving received: Int) -> Date {
        start.addingTimeInterval(min(limit, grace + Double(received) / Double(max(1, minRate))))
    }

    /// Whether a body with `received` bytes at `now` is behind the pace.
    func isBehind(received: Int, at now: Date) -> Bool {
        now > deadline(afterReceiving: received)
    }

    /// The refusal for a body that fell behind (408).
    var refusal: DomainError {
        DomainError(
            .timedOut, code: "upload_too_slow",
            message:
                Sentence(
                    "The upload arrived too slowly: after \(Int(grace)) s a body must arrive at \(minRate / 1_024) KiB/s or more on average, and all of it within \(Int(limit)) s."
                )
        )
    }
}

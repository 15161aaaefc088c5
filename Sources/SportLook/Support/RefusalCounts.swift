import Foundation
import Synchronization

/// This instance's refusals of the last hour by the code they answered with (`rate_limited`,
/// `too_many_attempts`, `overloaded`…): a limit's share of refusals, for the console's
/// abuse panel. Counted per minute; minutes older than an hour are dropped as new ones
/// come, so it holds at most 61 minutes of the few codes the server answers with.
final class RefusalCounts: Sendable {
    private let clock: any AppClock
    private let minutes = Mutex<[Int64: [String: Int]]>([:])
    /// How far back the counts go.
    static let window: TimeInterval = 3_600

    init(clock: any AppClock) {
        self.clock = clock
    }

    /// Counts one refusal answered with `code`.
    func record(_ code: String) {
        let minute = Self.minute(of: clock.now())
        minutes.withLock { minutes in
            minutes[minute, default: [:]][code, default: 0] += 1
            if minutes.count > 61 {
                for old in minutes.keys where old <= minute - 60 { minutes[old] = nil }
            }
        }
    }

    /// Refusals by code within the last hour, the most first (then by code).
    func lastHour() -> [(code: String, count: Int)] {
        let from = Self.minute(of: clock.now()) - 59
        let totals = minutes.withLock { minutes in
            minutes.filter { $0.key >= from }.values.reduce(into: [String: Int]()) { totals, counts in
                totals.merge(counts, uniquingKeysWith: +)
            }
        }
        var counts = totals.map { (code: $0.key, count: $0.value) }
        counts.sort { ($1.count, $0.code) < ($0.count, $1.code) }
        return counts
    }

    private static func minute(of date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 60).rounded(.down)) }
}

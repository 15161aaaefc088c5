import Foundation
import Synchronization

/// Pacing a room's changes: its sockets are offered them at most once per
/// ``ChatHub/changePace``, so a burst (a poll voted on many times a second) costs each
/// socket one read and one frame per pause.
extension ChatHub {
    /// A room's sockets are offered its changes at most this often: a burst of them (a
    /// poll voted on a hundred times a second) reaches each socket as one read and one
    /// frame per pace, carrying every change of it. A change after a quiet spell goes at once.
    /// (Measured against 80 ms: `Benchmarks/results/2026-12-03-poll-pace.md`.)
    static let changePace: Duration = .milliseconds(60)
    /// Rooms whose pace is remembered before the quiet ones are let go.
    static let pacesKept = 4_096

    struct Pace {
        var last: ContinuousClock.Instant
        var waiting: Int64?
    }

    /// A change numbered `change` was heard of in `room`: its sockets are offered it, at
    /// most once per ``changePace`` (a change in the pause waits for its end, with any
    /// later ones).
    func offerChange(_ room: UUID, _ change: Int64) async {
        enum Step {
            case now
            /// Another change already waits for the end of the pause: this one goes with it.
            case waiting
            case after(Duration)
        }
        let now = ContinuousClock.now
        let step: Step = state.withLock { s in
            if var pace = s.paces[room] {
                if let waiting = pace.waiting {
                    pace.waiting = max(waiting, change)
                    s.paces[room] = pace
                    return .waiting
                }
                let next = pace.last + Self.changePace
                if next > now {
                    pace.waiting = change
                    s.paces[room] = pace
                    return .after(next - now)
                }
            }
            if s.paces.count >= Self.pacesKept { s.paces = s.paces.filter { $0.value.waiting != nil } }
            s.paces[room] = Pace(last: now, waiting: nil)
            return .now
        }
        switch step {
        case .now: await deliverChange(room, change)
        case .waiting: break
        case .after(let pause):
            Task {
                try? await Task.sleep(for: pause)
                let due = state.withLock { s -> Int64? in
                    guard let waiting = s.paces[room]?.waiting else { return nil }
                    s.paces[room] = Pace(last: .now, waiting: nil)
                    return waiting
                }
                if let due { await deliverChange(room, due) }
            }
        }
    }

    private func deliverChange(_ room: UUID, _ change: Int64) async {
        for connection in members(of: room) { await connection.offer(room: room, change: change) }
        for connection in watchers(of: room) { await connection.roomActivity(room) }
    }
}

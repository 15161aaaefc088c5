import Foundation
import Synchronization

/// A wake-up call a sleeping worker waits for, with a timeout.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            if s.waiter == nil { s.pending = true }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Returns after a signal or after `timeout`, whichever comes first.
    func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { s -> Bool in
                        if s.pending {
                            s.pending = false
                            return true
                        }
                        s.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.signal()
            }
            await group.next()
            group.cancelAll()
            await group.next()
            // Whatever is left over belongs to the next wait.
            state.withLock { s in s.pending = false }
        }
    }
}

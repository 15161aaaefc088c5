import Synchronization

/// A first-come, first-served lock for async code. A waiter whose task is
/// cancelled (a request that timed out) leaves the queue at once.
final class AsyncSerialLock: Sendable {
    private struct State {
        var locked = false
        var nextTicket = 0
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private enum Arrival { case acquired, queued, cancelled }

    private let state = Mutex(State())

    /// Runs `body` while holding the lock.
    func withLock<R>(_ body: () async throws -> R) async throws -> R {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let ticket: Int? = state.withLock { s in
            if !s.locked {
                s.locked = true
                return nil
            }
            s.nextTicket += 1
            return s.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let arrival: Arrival = state.withLock { s in
                    if Task.isCancelled { return .cancelled }
                    if !s.locked {
                        s.locked = true
                        return .acquired
                    }
                    s.waiters.append((ticket, continuation))
                    return .queued
                }
                switch arrival {
                case .acquired: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let i = s.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return s.waiters.remove(at: i).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Hands the lock to the longest waiter, or frees it.
    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if s.waiters.isEmpty {
                s.locked = false
                return nil
            }
            return s.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}

import Synchronization

/// At most `count` holders at once; the others wait, first come first served. The suite
/// bounds with it how many tests work on the shared PostgreSQL cluster at one time.
final class Slots: Sendable {
    private struct State {
        var free: Int
        var next = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: count)) }

    /// Takes a slot, waiting for one to be given back when none is free; a task cancelled
    /// while it waits (a test past its time limit) stops waiting and throws.
    func take() async throws {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let taken = state.withLock { state -> Bool? in
                    // Cancelled before it waits: the handler below found nothing to end.
                    if Task.isCancelled { return nil }
                    guard state.free > 0 else {
                        state.waiting.append((id, continuation))
                        return false
                    }
                    state.free -= 1
                    return true
                }
                switch taken {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back: to the longest waiting, if any.
    func giveBack() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}

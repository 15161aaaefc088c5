import Synchronization

/// Runs `operation` in a task of its own and returns its result, or `nil` when
/// `limit` passes first — without waiting for the operation to notice: it is then
/// cancelled and ends on its own. (A task group would wait for its children, and
/// an operation stuck on a peer that went away would hold the caller with it.)
/// The caller's cancellation cancels the operation too.
func firstWithin<R: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> R) async -> R? {
    let state = Mutex<(resumed: Bool, work: Task<Void, Never>?, timer: Task<Void, Never>?)>((false, nil, nil))
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<R?, Never>) in
            let finish: @Sendable (R?, _ timedOut: Bool) -> Void = { value, timedOut in
                let tasks = state.withLock { s -> (work: Task<Void, Never>?, timer: Task<Void, Never>?)? in
                    guard !s.resumed else { return nil }
                    s.resumed = true
                    return (s.work, s.timer)
                }
                guard let tasks else { return }
                tasks.timer?.cancel()
                if timedOut { tasks.work?.cancel() }
                continuation.resume(returning: value)
            }
            let work = Task { finish(await operation(), false) }
            let timer = Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { finish(nil, true) }
            }
            let done = state.withLock { s in
                s.work = work
                s.timer = timer
                return s.resumed
            }
            if done { timer.cancel() }
        }
    } onCancel: {
        let work = state.withLock { $0.work }
        work?.cancel()
    }
}

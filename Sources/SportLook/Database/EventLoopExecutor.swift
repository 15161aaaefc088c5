import NIOCore
import Synchronization

/// Runs a task's jobs on one NIO event loop. A task that prefers it and awaits
/// futures completed on that loop resumes there at once, instead of going through
/// the global executor's threads (a thread hop less for each statement).
///
/// Once ``stop()`` is called (before the loop shuts down) jobs go to the global
/// executor instead: a task still holding the preference then is not dropped.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop
    private let stopped = Atomic<Bool>(false)

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        if stopped.load(ordering: .acquiring) {
            globalConcurrentExecutor.enqueue(job)
            return
        }
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}

/// One ``EventLoopExecutor`` per event loop, made on first use and kept (the loops
/// of the shared group live as long as the process).
final class LoopExecutors: Sendable {
    static let shared = LoopExecutors()

    private let byLoop = Mutex<[ObjectIdentifier: EventLoopExecutor]>([:])

    func executor(for loop: any EventLoop) -> EventLoopExecutor {
        byLoop.withLock { byLoop in
            if let executor = byLoop[ObjectIdentifier(loop)] { return executor }
            let executor = EventLoopExecutor(loop)
            byLoop[ObjectIdentifier(loop)] = executor
            return executor
        }
    }
}

import NIOCore

/// Runs a task's jobs on one NIO event loop. A task that prefers it and awaits
/// futures completed on that loop resumes there at once, instead of going through
/// the global executor's threads (a thread hop less for each statement).
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}

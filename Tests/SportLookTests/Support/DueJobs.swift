import Foundation

@testable import SportLook

extension AppServices {
    /// A worker of the test's own on this app's queue, with every kind of work.
    func testWorker(name: String = "test") -> JobWorker {
        JobWorker(
            name: name, jobs: jobStore, inbox: inbox, safety: SafetyStore(database: database), access: eventAccess,
            scheduled: scheduledWork,
            channels: channels, mailer: mailer, codes: codes, write: write, clock: clock, logger: logger,
            settings: .init(pollInterval: 1, lease: 30, maxAttempts: 5, retryBase: 1))
    }

    /// Runs everything due on the queue's clock (a test's) to the end — what a job
    /// queues in turn (a notification) too — and waits for what the app's own workers
    /// hold. Afterwards a test may say that nothing else happened, without sleeping
    /// on the real clock to show it.
    func runDueJobs(timeout: Duration = .seconds(60)) async throws {
        let worker = testWorker()
        let deadline = ContinuousClock.now + timeout
        while try await jobStore.unsettled(at: jobStore.clock.now()) > 0 {
            guard ContinuousClock.now < deadline else { throw ClusterError("jobs still due or running after \(timeout)") }
            if try await !worker.runOnce() { try await Task.sleep(for: .milliseconds(5)) }
        }
    }
}

import Foundation
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A clock whose sleepers sleep until ``release()``, counting the sleeps begun and those still asleep.
final class HeldClock: Clock, Sendable {
    private let state = Mutex((started: 0, held: [CheckedContinuation<Void, Never>]()))
    var started: Int { state.withLock { $0.started } }
    var sleeping: Int { state.withLock { $0.held.count } }
    var now: ContinuousClock.Instant { .now }
    var minimumResolution: Duration { ContinuousClock().minimumResolution }
    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { continuation in
            state.withLock {
                $0.started += 1
                $0.held.append(continuation)
            }
        }
    }
    func release() {
        for continuation in state.withLock({ s in
            defer { s.held = [] }
            return s.held
        }) { continuation.resume() }
    }
}

/// A flag an operation sets when it sees its cancellation.
final class Seen: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var value: Bool { flag.withLock { $0 } }
}

@Suite("One deadline for every bounded wait", .timeLimit(.minutes(10)))
struct DeadlineTests {
    @Test("an answer before the deadline is returned; deadlines share one timer, which stops once none is pending")
    func answers() async throws {
        let value = try await withDeadline(.seconds(30)) { 42 }
        #expect(value == 42)
        // A thousand quick answers under an hour's deadline: each deadline goes once its
        // answer came (not a thousand left pending for the hour), and all of them are
        // watched by one sleeper, not one each. The ticker's clock holds its sleeper
        // until released, so it cannot have slept more than once meanwhile.
        let clock = HeldClock()
        let ticker = DeadlineTicker(resolution: .milliseconds(10), clock: clock)
        for _ in 0..<1_000 { #expect(try await withDeadline(.seconds(3_600), ticker: ticker) { 1 } == 1) }
        #expect(ticker.pending == 0)
        try await eventually("the ticker asleep") { clock.sleeping == 1 }
        #expect(clock.started == 1)
        // Woken with nothing pending, it stops; the next deadline starts it again.
        clock.release()
        try await eventually("the ticker stopped") { !ticker.isTicking }
        #expect(clock.started == 1)
        let ticket = ticker.schedule(after: .seconds(3_600)) {}
        try await eventually("the ticker asleep again") { clock.sleeping == 1 }
        #expect(clock.started == 2 && ticker.pending == 1)
        ticker.cancel(ticket)
        clock.release()
        try await eventually("the ticker stopped again") { !ticker.isTicking }
        await #expect(throws: CancellationError.self) { try await withDeadline(.seconds(30)) { throw CancellationError() } }
    }

    @Test("a hung operation is cancelled at the deadline and lets go of what it holds")
    func hungOperation() async throws {
        let lock = AsyncSerialLock()
        let cancelled = Seen()
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(100)) {
                try await lock.withLock {
                    do { try await Task.sleep(for: .seconds(3_600)) } catch {
                        cancelled.set()
                        throw error
                    }
                }
            }
        }
        try await eventually("the operation to see its cancellation", timeout: .seconds(60)) { cancelled.value }
        // The lock is free again: the next holder gets it at once.
        let next = try await withDeadline(.seconds(5)) { try await lock.withLock { "free" } }
        #expect(next == "free")
    }

    @Test("a caller cancelled before the race begins leaves at once and cancels the operation")
    func cancelledBeforeStart() async throws {
        let started = Seen()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withDeadline(.seconds(3_600)) {
                started.set()
                try await Task.sleep(for: .seconds(3_600))
                return 1
            }
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!started.value)
    }

    @Test("a caller cancelled while the operation runs leaves at once and the operation is cancelled")
    func cancelledWhileRunning() async throws {
        let cancelled = Seen()
        let running = Seen()
        let caller = Task {
            try await withDeadline(.seconds(3_600)) {
                running.set()
                do { try await Task.sleep(for: .seconds(3_600)) } catch {
                    cancelled.set()
                    throw error
                }
                return 1
            }
        }
        // Generous: on a loaded 2-core machine a new task may wait seconds for a thread.
        try await eventually("the operation to start", timeout: .seconds(60)) { running.value }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        try await eventually("the operation to see its cancellation", timeout: .seconds(60)) { cancelled.value }
    }

    @Test("a deadline that passes before the operation can start still ends the call")
    func timeoutBeforeStart() async throws {
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.zero) {
                try await Task.sleep(for: .seconds(3_600))
                return 1
            }
        }
    }

    @Test("an operation that ignores cancellation does not hold the caller")
    func ignoresCancellation() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        // The operation never ends before the gate is finished below: that the
        // call returns at all shows it did not wait for the operation.
        let answer = await answer(within: .milliseconds(100)) {
            // Waits for something that never comes, whatever its cancellation says.
            for await _ in gate.stream {}
            return true
        }
        #expect(answer == false)
        gate.continuation.finish()
    }
}

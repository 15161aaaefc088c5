import Synchronization
import Testing

@testable import SportLook

/// A gate a batch waits at until the test opens it.
private final class BatchGate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], arrived: Int)>((false, [], 0))

    func pass() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { s in
                s.arrived += 1
                if !s.open { s.waiting.append(continuation) }
                return s.open
            }
            if open { continuation.resume() }
        }
    }

    var arrived: Int { state.withLock { $0.arrived } }

    func open() {
        let waiting = state.withLock { s in
            s.open = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

private struct Refused: Error {}

@Suite("Work gathered in batches", .timeLimit(.minutes(10)))
struct GatheringTests {
    /// Waits (briefly, without a clock: the calls are on other tasks) until `condition` holds.
    private func until(_ condition: () -> Bool) async throws {
        for _ in 0..<5_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    @Test(
        "calls made while a batch runs wait for the next, which takes them all: the later input of a key wins, and every caller of a key gets its output"
    )
    func nextBatchTakesAll() async throws {
        let gate = BatchGate()
        let seen = Mutex<[[String: Int]]>([])
        let gathering = Gathering<String, Int, String> { inputs in
            seen.withLock { $0.append(inputs) }
            await gate.pass()
            return inputs.mapValues { "\($0)" }
        }
        let first = Task { try await gathering.call("a", 1) }
        try await until { gate.arrived == 1 }
        // The first batch is running: these wait for the next one.
        let second = Task { try await gathering.call("b", 2) }
        try await until { gathering.waitingCount == 1 }
        let third = Task { try await gathering.call("b", 3) }
        let fourth = Task { try await gathering.call("c", 4) }
        try await until { gathering.waitingCount == 3 }
        gate.open()
        #expect(try await first.value == "1")
        #expect(try await second.value == "3")
        #expect(try await third.value == "3")
        #expect(try await fourth.value == "4")
        #expect(seen.withLock { $0 } == [["a": 1], ["b": 3, "c": 4]])
        #expect(gathering.batchCount == 2)
        // Nothing running: the next call runs at once, alone.
        #expect(try await gathering.call("d", 5) == "5")
        #expect(gathering.batchCount == 3)
    }

    @Test("a batch's error reaches each of its callers and no other; the batch after it runs")
    func errorStaysInItsBatch() async throws {
        let gate = BatchGate()
        let gathering = Gathering<String, Int, Int> { inputs in
            await gate.pass()
            if inputs["bad"] != nil { throw Refused() }
            return inputs
        }
        let first = Task { try await gathering.call("first", 1) }
        try await until { gate.arrived == 1 }
        let bad = Task { try await gathering.call("bad", 2) }
        let alongside = Task { try await gathering.call("alongside", 3) }
        try await until { gathering.waitingCount == 2 }
        gate.open()
        #expect(try await first.value == 1)
        await #expect(throws: Refused.self) { try await bad.value }
        await #expect(throws: Refused.self) { try await alongside.value }
        #expect(try await gathering.call("after", 4) == 4)
    }

    @Test("the caller that runs a batch being cancelled ends neither the batch nor the others' calls")
    func cancelledRunnerDoesNotEndTheBatch() async throws {
        let gate = BatchGate()
        let gathering = Gathering<String, Int, Int> { inputs in
            await gate.pass()
            try Task.checkCancellation()
            return inputs
        }
        let first = Task { try await gathering.call("first", 1) }
        try await until { gate.arrived == 1 }
        let second = Task { try await gathering.call("second", 2) }
        try await until { gathering.waitingCount == 1 }
        first.cancel()
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
    }
}

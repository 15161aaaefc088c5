import Foundation
import Synchronization
import Testing

@testable import SportLook

@Suite("A socket's frame queue, drained by its writer")
struct FrameQueueTests {
    /// Counts calls: the writer's wakes, or a waiter let go.
    final class Wakes: Sendable {
        let count = Mutex(0)
        func wake() { count.withLock { $0 += 1 } }
        var now: Int { count.withLock { $0 } }
    }

    /// Starts `wait` in a task, and gives it the chance to run: `returned` counts once it returns.
    static func waiting(_ wait: @escaping @Sendable () async -> Void) async -> (task: Task<Void, Never>, returned: Wakes) {
        let returned = Wakes()
        let task = Task {
            await wait()
            returned.wake()
        }
        await othersRun()
        return (task, returned)
    }

    /// Lets the tasks waiting run as far as they can.
    static func othersRun() async {
        for _ in 0..<100 { await Task.yield() }
    }

    @Test(
        "frames come out in order, in batches; a drain is asked for once until it takes nothing, and frames waiting before the writer wake it"
    )
    func drains() {
        let queue = FrameQueue(capacity: 10)
        #expect(queue.push("a") && queue.push("b"))
        let wakes = Wakes()
        queue.drained { wakes.wake() }
        #expect(wakes.now == 1, "frames already waiting ask for a drain")
        #expect(queue.push("c"))
        #expect(wakes.now == 1, "no second wake while a drain is under way")
        #expect(queue.take(max: 2) == ["a", "b"])
        #expect(queue.take(max: 2) == ["c"])
        #expect(queue.take(max: 2) == [], "nothing left: the drain ends")
        #expect(queue.push("d"))
        #expect(wakes.now == 2, "a frame after the drain ended asks for another")
        #expect(queue.take(max: 5) == ["d"])
    }

    @Test("an idle socket's stall is counted from the frame that came, not from its last take")
    func stallClock() {
        let queue = FrameQueue(capacity: 10)
        queue.drained {}
        #expect(queue.take(max: 1) == [])
        let beforePush = ContinuousClock.now
        #expect(queue.stalledFor(at: beforePush) == .zero, "idle: no stall")
        #expect(queue.push("a"))
        #expect(queue.stalledFor(at: beforePush) <= .zero, "the clock starts at the push")
        #expect(queue.take(max: 1) == ["a"])
        #expect(queue.push("b") && queue.push("c"))
        let taken = ContinuousClock.now
        #expect(queue.take(max: 1) == ["b"])
        #expect(queue.stalledFor(at: taken) <= .zero, "a take restarts it while frames wait")
    }

    @Test("a full queue refuses frames until the writer takes some, and a catch-up waiting for room is let go at half")
    func bounded() async {
        let queue = FrameQueue(capacity: 4)
        queue.drained {}
        for i in 0..<4 { #expect(queue.push("\(i)")) }
        #expect(!queue.push("4"), "full")
        #expect(!queue.hasRoom)
        let waiting = await Self.waiting { await queue.waitForRoom() }
        #expect(queue.take(max: 1) == ["0"])
        #expect(!queue.hasRoom, "three waiting is more than half")
        await Self.othersRun()
        #expect(waiting.returned.now == 0, "the catch-up still waits")
        #expect(queue.take(max: 1) == ["1"])
        await waiting.task.value
        #expect(queue.push("4"))
        #expect(queue.take(max: 10) == ["2", "3", "4"])
    }

    @Test(
        "closed with an ending, the queue is finished once the writer took the frames before it; closed without one, at once, its frames dropped"
    )
    func finishing() async {
        let queue = FrameQueue(capacity: 10)
        queue.drained {}
        #expect(queue.push("explains the close"))
        queue.close(ending: .tooManyFrames)
        #expect(!queue.push("after the close"))
        let finished = await Self.waiting { await queue.finished() }
        #expect(queue.take(max: 10) == ["explains the close"])
        await Self.othersRun()
        #expect(finished.returned.now == 0, "not finished while the writer has not come back empty")
        #expect(queue.take(max: 10) == [])
        await finished.task.value
        #expect(queue.ending == .tooManyFrames)

        let dropped = FrameQueue(capacity: 10)
        dropped.drained {}
        #expect(dropped.push("never written"))
        dropped.close()
        await dropped.finished()
        #expect(dropped.take(max: 10) == [])
        #expect(dropped.ending == nil)
    }
}

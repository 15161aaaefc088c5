import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import Synchronization
import Testing

@testable import SportLook

@Suite("The instance's one socket timer")
struct SocketWatchTests {
    @Test(
        "a socket's pings fall at its phase of the interval, one an interval; it is gone when nothing came in the interval after one while the server waited to read"
    )
    func pingSchedule() {
        let opened = ContinuousClock.now
        func near(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Bool { abs((a - b) / .milliseconds(1)) < 1 }
        var schedule = PingSchedule(interval: .seconds(30), opened: opened, phase: 0.25)
        #expect(near(schedule.due, opened + .milliseconds(7_500)))
        #expect(schedule.look(now: opened + .seconds(7), reads: 0, waiting: true) == .wait)
        #expect(schedule.look(now: opened + .milliseconds(7_600), reads: 0, waiting: true) == .ping)
        #expect(near(schedule.due, opened + .milliseconds(37_500)), "the phase holds")
        #expect(schedule.look(now: opened + .seconds(37), reads: 0, waiting: true) == .wait)
        #expect(
            schedule.look(now: opened + .milliseconds(37_600), reads: 2, waiting: true) == .ping, "the client sent something: pinged again")
        // The timer stalled past the next due time: the one after is an interval on.
        #expect(schedule.look(now: opened + .seconds(100), reads: 3, waiting: false) == .ping)
        #expect(near(schedule.due, opened + .seconds(130)))
        #expect(schedule.look(now: opened + .seconds(129), reads: 3, waiting: true) == .wait)
        // The server was not reading at that ping (the application behind on the socket's
        // frames): the answer may be waiting unread, so it is pinged again, not closed.
        #expect(schedule.look(now: opened + .seconds(130), reads: 3, waiting: true) == .ping)
        #expect(
            schedule.look(now: opened + .seconds(160), reads: 3, waiting: true) == .gone,
            "nothing came in an interval the server waited to read")
        // Sockets opened at once ping at their own phases, spread over the interval.
        let dues = (0..<10).map { PingSchedule(interval: .seconds(30), opened: opened, phase: Double($0) / 10).due }
        #expect(Set(dues).count == 10)
        #expect(dues.allSatisfy { $0 >= opened && $0 < opened + .seconds(30) })
    }

    @Test(
        "the sockets are looked at four times within the shorter of the stall timeout and the ping interval, at least once a second and at most every 50 ms"
    )
    func lookPeriod() {
        #expect(SocketWatch.period(stallTimeout: .seconds(10), pingInterval: .seconds(30)) == .seconds(1), "the defaults: once a second")
        #expect(SocketWatch.period(stallTimeout: .seconds(2), pingInterval: .seconds(1)) == .milliseconds(250))
        #expect(SocketWatch.period(stallTimeout: .milliseconds(400), pingInterval: .seconds(30)) == .milliseconds(100))
        #expect(
            SocketWatch.period(stallTimeout: .milliseconds(100), pingInterval: .seconds(30)) == .milliseconds(50),
            "never more often than every 50 ms")
    }

    @Test("each tick runs every check once; a check that is done, or a forgotten one, runs no more")
    func ticks() {
        let watch = SocketWatch()
        let runs = Mutex<[String: Int]>([:])
        func count(_ name: String) -> Int { runs.withLock { $0[name] ?? 0 } }
        _ = watch.watch { _ in
            runs.withLock { $0["steady", default: 0] += 1 }
            return .again
        }
        _ = watch.watch { _ in
            runs.withLock { $0["once", default: 0] += 1 }
            return .done
        }
        let forgotten = watch.watch { _ in
            runs.withLock { $0["forgotten", default: 0] += 1 }
            return .again
        }
        #expect(watch.count == 3)
        watch.tick()
        #expect(count("steady") == 1 && count("once") == 1 && count("forgotten") == 1)
        #expect(watch.count == 2, "a check that said done is dropped")
        watch.forget(forgotten)
        watch.tick()
        watch.tick()
        #expect(count("steady") == 3)
        #expect(count("once") == 1)
        #expect(count("forgotten") == 1)
        #expect(watch.count == 1)
    }

    @Test("a check is given the tick's instant and may watch or forget sockets while it runs")
    func reentrant() throws {
        let watch = SocketWatch()
        let seen = Mutex<[ContinuousClock.Instant]>([])
        let added = Mutex<Int?>(nil)
        _ = watch.watch { now in
            seen.withLock { $0.append(now) }
            if added.withLock({ $0 }) == nil {
                let id = watch.watch { _ in .again }
                added.withLock { $0 = id }
            }
            return .again
        }
        let start = ContinuousClock.now
        watch.tick(now: start)
        watch.tick(now: start + .seconds(3))
        #expect(seen.withLock { $0 } == [start, start + .seconds(3)])
        #expect(watch.count == 2, "the check added a socket without a deadlock")
        watch.forget(try #require(added.withLock { $0 }))
        #expect(watch.count == 1)
    }
}

import Foundation
import Testing

@testable import SportLook

@Suite("Index bookkeeping")
struct IndexBookkeepingTests {
    @Test("a removal mark hides older and equal versions only, and lasts its lifetime")
    func tombstones() {
        var marks = Tombstones(lifetime: 600, capacity: 10)
        let id = UUID()
        let start = Date(timeIntervalSince1970: 1_000_000)
        marks.bury(id, version: 5, at: start)
        #expect(marks.hides(id, version: 4))
        #expect(marks.hides(id, version: 5))
        #expect(!marks.hides(id, version: 6), "a newer row brings the entry back")
        marks.expire(now: start.addingTimeInterval(599))
        #expect(marks.hides(id, version: 5))
        marks.expire(now: start.addingTimeInterval(600))
        #expect(!marks.hides(id, version: 5), "forgotten after its lifetime")
        marks.bury(id, version: 7, at: start)
        marks.lift(id)
        #expect(!marks.hides(id, version: 1))
    }

    @Test("past its capacity the oldest marks go first, never the newest")
    func tombstoneCapacity() {
        var marks = Tombstones(lifetime: 600, capacity: 10)
        let start = Date(timeIntervalSince1970: 1_000_000)
        let ids = (0..<11).map { _ in UUID() }
        for (i, id) in ids.enumerated() { marks.bury(id, version: 1, at: start.addingTimeInterval(Double(i))) }
        #expect(marks.hides(ids[10], version: 1), "the newest mark is kept")
        #expect(!marks.hides(ids[0], version: 1), "the oldest went")
    }

    @Test("updates held while warming come back in order once, and none are held after")
    func backlog() {
        var backlog = WarmBacklog<Int>()
        #expect(backlog.isWarming)
        let first = backlog.hold(1)
        let second = backlog.hold(2)
        #expect(first && second)
        let held = backlog.finish()
        #expect(held == [1, 2])
        #expect(!backlog.isWarming)
        let heldAfter = backlog.hold(3)
        #expect(!heldAfter)
        let rest = backlog.finish()
        #expect(rest.isEmpty)
    }
}

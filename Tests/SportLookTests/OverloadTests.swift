import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("Past capacity: writes refused cleanly, memory following the database", .timeLimit(.minutes(10)))
struct OverloadTests {
    @Test("a commit that comes after DATABASE_TIMEOUT still reaches the index: memory follows the database", arguments: engines)
    func lateCommit(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (token, _) = try await api.register("Late")
            let created = try await api.createEvent(token, title: "Before", now: clock.now())
            let id = try #require(UUID(uuidString: created.id))
            // A database that answers slower than the timeout: the caller is answered
            // (503) at the deadline, the transaction commits after that.
            let slow = try await Database.open(services.configuration.database, poolSize: 2, timeout: 2, logger: services.logger)
            // Connected before the clock starts: under load, opening a connection could
            // take the whole deadline and the update would never begin (in CI even this
            // read once took longer than the deadline: it has a minute of its own).
            _ = try await slow.read(timeout: .seconds(60)) { _ in true }
            let writer = Writer(database: slow, feed: services.changes)
            let began = Seen()
            let committed = Seen()
            // The transaction goes on until the caller has been answered, however late that is.
            let answered = Seen()
            await #expect(throws: DatabaseUnavailable.self) {
                try await writer { sql, changes in
                    try await sql.raw(
                        "UPDATE events SET title = 'After', version = version + 1, updated_at = \(bind: clock.now()) WHERE id = \(bind: id)"
                    ).run()
                    began.set()
                    let deadline = ContinuousClock.now + .seconds(120)
                    while !answered.value {
                        guard ContinuousClock.now < deadline else { throw ClusterError("the caller was never answered") }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    if let event = try await services.eventStore.event(id, on: sql) { changes.event(event) }
                    committed.set()
                }
            }
            #expect(began.value)
            #expect(!committed.value)
            answered.set()
            try await eventually("the index to show the committed title") {
                let stored = try await services.eventStore.event(id)?.title
                let indexed = (services.eventIndex.cards([id], now: clock.now()).json.first ?? nil).map {
                    String(decoding: $0, as: UTF8.self)
                }
                return stored == "After" && indexed?.contains("\"title\":\"After\"") == true
            }
            await slow.close()
        }
    }

    @Test(
        "past capacity a write is refused at once, over HTTP and on a socket, and the message sent again is stored once", arguments: engines
    )
    func overloadRefusedEarly(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let url = try socketURL(api)
            let reader = try await TestSocket.subscribed(url, token: owner.token, to: event)
            let writer = try await TestSocket.subscribed(url, token: people[0].token, to: event)
            // A queue of one from now on; one of the service's own writes (never refused)
            // takes the place and holds it.
            services.database.limitWrites(to: 1)
            let holding = Seen()
            let release = Seen()
            let held = Task {
                try await services.database.transaction { _ in
                    holding.set()
                    while !release.value { try await Task.sleep(for: .milliseconds(10)) }
                }
            }
            try await eventually("the write to hold the queue") { holding.value }
            let refused = try await api.post(
                "/v1/events/\(event)/messages", token: owner.token, json: ["body": "over HTTP", "client_id": "h-1"])
            #expect(refused.status == .serviceUnavailable)
            #expect(try refused.errorCode == "overloaded")
            #expect(refused.headers[.retryAfter] == "1")
            writer.send(["type": "message", "room_id": event, "body": "on the socket", "client_id": "s-1"])
            let frame = try await writer.waitFor("the refusal") { $0.type == "error" }
            let failure = try #require(frame.error)
            #expect(failure.code == "overloaded")
            #expect(failure.retryAfter == 1)
            #expect(failure.clientId == "s-1")
            #expect(failure.roomId == event)
            // A subscription's own write (presence) is not refused: it waits its turn.
            let late = try await TestSocket.connect(url, token: owner.token)
            late.send(["type": "subscribe", "room_id": event, "after_seq": 0])
            release.set()
            try await held.value
            try await late.waitFor("the late subscription") { $0.type == "subscribed" }
            #expect(try !late.frames.contains { $0.type == "error" })
            // Sent again with the same client id, as a client does after the wait it was
            // given (again if a background write happens to hold the one place), each is
            // stored once and delivered once.
            @Sendable func sendUntilAccepted() async throws {
                for _ in 0..<100 {
                    let (sent, refused) = try (
                        writer.frames.filter { $0.type == "sent" }.count, writer.frames.filter { $0.type == "error" }.count
                    )
                    writer.send(["type": "message", "room_id": event, "body": "on the socket", "client_id": "s-1"])
                    try await eventually("an answer to s-1") {
                        try writer.frames.filter { $0.type == "sent" }.count > sent
                            || writer.frames.filter { $0.type == "error" }.count > refused
                    }
                    if try writer.frames.filter({ $0.type == "sent" }).count > sent { return }
                    try await Task.sleep(for: .milliseconds(50))
                }
                Issue.record("s-1 was never accepted")
            }
            try await sendUntilAccepted()
            try await sendUntilAccepted()
            var stored = try await api.post(
                "/v1/events/\(event)/messages", token: owner.token, json: ["body": "over HTTP", "client_id": "h-1"])
            for _ in 0..<100 where stored.status == .serviceUnavailable {
                try await Task.sleep(for: .milliseconds(50))
                stored = try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["body": "over HTTP", "client_id": "h-1"])
            }
            #expect(stored.status == .created)
            try await reader.waitFor("both messages") { $0.message?.message.seq == 2 }
            let answers = try writer.frames.compactMap(\.sent)
            #expect(answers.map(\.created) == [true, false])
            #expect(Set(answers.map(\.seq)).count == 1)
            #expect(try writer.frames.compactMap(\.error).allSatisfy { $0.code == "overloaded" && $0.clientId == "s-1" })
            #expect(try await api.messages(event, token: owner.token).map(\.body).sorted() == ["on the socket", "over HTTP"])
            try await Task.sleep(for: .milliseconds(200))
            #expect(try reader.messageSeqs.sorted() == [1, 2])
            await reader.close()
            await writer.close()
            await late.close()
        }
    }

    @Test("a client's work is refused only before its first write: once one got in, the rest waits its turn", arguments: engines)
    func refusedOnlyBeforeFirstWrite(engine: DatabaseEngine) async throws {
        try await withApp(engine, configure: { $0.databaseWriteQueue = 1 }) { _, services in
            let database = services.database
            // Work whose first write got in (a background write may hold the place for a moment).
            let admitted = WriteAdmission()
            for attempt in 0..<100 {
                do {
                    try await Database.$admission.withValue(admitted) {
                        try await database.transaction { sql in try await sql.raw("SELECT 1").run() }
                    }
                    break
                } catch is DatabaseBusy where attempt < 99 {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let holding = Seen()
            let release = Seen()
            let held = Task {
                try await database.transaction { _ in
                    holding.set()
                    while !release.value { try await Task.sleep(for: .milliseconds(10)) }
                }
            }
            try await eventually("the write to hold the queue") { holding.value }
            await #expect(throws: DatabaseBusy.self, "new work is refused") {
                try await Database.$admission.withValue(WriteAdmission()) { try await database.transaction { _ in } }
            }
            let rest = Task { try await Database.$admission.withValue(admitted) { try await database.transaction { _ in true } } }
            try await eventually("the admitted work's next write to wait in the queue") { database.writesWaitingOrRunning >= 2 }
            release.set()
            try await held.value
            #expect(try await rest.value, "the admitted work's next write waited and ran")
        }
    }

    @Test(
        "while every write has been slow for a moment (a standing queue), new work is refused if others wait; a quick write or a quiet spell ends it"
    )
    func standingQueueRefused() throws {
        // The queue's own clock (milliseconds here), so no machine's load moves a window.
        let ms: UInt64 = 1_000_000
        /// A queue whose writes took 400 ms each, one after another, ending at 400 and 800,
        /// and the service's own write (never refused) holding a place from 800 on.
        func slowQueue() throws -> WriteQueue {
            let queue = WriteQueue(limit: 0, slowWrite: 0.3)
            for start in [0, 400 * ms] {
                let entered = try queue.enter(nil, now: start)
                queue.leave(entered: entered, now: start + 400 * ms)
            }
            _ = try queue.enter(nil, now: 800 * ms)
            return queue
        }
        /// New work's first write at `now`: refused, or let in (then it is left at once).
        func newWork(_ queue: WriteQueue, at now: UInt64) -> DatabaseBusy? {
            do {
                let entered = try queue.enter(WriteAdmission(), now: now)
                queue.leave(entered: entered, now: now)
                return nil
            } catch { return error as? DatabaseBusy }
        }

        // Slow for 400 ms on end, a write finished 10 ms ago, another waits: refused.
        let standing = try slowQueue()
        #expect(standing.slow)
        let refused = try #require(newWork(standing, at: 810 * ms))
        #expect(refused.slow && refused.waiting == 1)
        #expect(standing.waitingOrRunning == 1, "a refused write holds no place")
        // Refusals are reported by reason, once a second at most.
        let report = try #require(standing.refusals(now: 811 * ms))
        #expect(report.full == 0 && report.slow == 1 && report.sinceNanoseconds == nil)
        #expect(newWork(standing, at: 811 * ms) != nil)
        #expect(standing.refusals(now: 1_000 * ms) == nil, "within the second after a report")
        // Work already let in is not refused half way: its next write waits its turn.
        let admitted = WriteAdmission()
        admitted.admit()
        let entered = try standing.enter(admitted, now: 812 * ms)
        standing.leave(entered: entered, now: 813 * ms)
        // A quick write ends the standing queue.
        #expect(!standing.slow)
        #expect(newWork(standing, at: 814 * ms) == nil)

        // Nothing else waiting: let in, however slow the writes were.
        let alone = WriteQueue(limit: 0, slowWrite: 0.3)
        let first = try alone.enter(nil, now: 0)
        alone.leave(entered: first, now: 400 * ms)
        let second = try alone.enter(nil, now: 400 * ms)
        alone.leave(entered: second, now: 800 * ms)
        #expect(newWork(alone, at: 810 * ms) == nil)

        // A burst: slow for less than 100 ms is not a queue.
        let burst = WriteQueue(limit: 0, slowWrite: 0.3)
        let one = try burst.enter(nil, now: 0)
        burst.leave(entered: one, now: 400 * ms)
        _ = try burst.enter(nil, now: 400 * ms)
        #expect(newWork(burst, at: 450 * ms) == nil)

        // A slow mark before a quiet spell (no write finished for 100 ms) refuses nothing.
        #expect(newWork(try slowQueue(), at: 1_000 * ms) == nil)

        // A full queue's refusals are counted apart, and reported a second after the last report.
        standing.limit = 1
        #expect(newWork(standing, at: 1_500 * ms)?.slow == false)
        let later = try #require(standing.refusals(now: 1_811 * ms))
        #expect(later.full == 1 && later.slow == 1 && later.sinceNanoseconds == 1_000 * ms)
        #expect(standing.refusals(now: 3_000 * ms) == nil, "none since")
        // Asking when there is nothing to tell starts no new second: the next refusal is told at once.
        #expect(newWork(standing, at: 3_001 * ms)?.slow == false)
        let next = try #require(standing.refusals(now: 3_002 * ms))
        #expect(next.full == 1 && next.slow == 0 && next.sinceNanoseconds == 1_191 * ms)
        // A caller whose clock reading is older than the last report's gets nothing.
        #expect(newWork(standing, at: 3_003 * ms) != nil)
        #expect(standing.refusals(now: 1_000 * ms) == nil && standing.refusals(now: 3_500 * ms) == nil)
        #expect(standing.refusals(now: 4_002 * ms)?.full == 1)

        // Without a slow-write bound nothing is ever slow.
        let unbounded = WriteQueue(limit: 0, slowWrite: 0)
        let long = try unbounded.enter(nil, now: 0)
        unbounded.leave(entered: long, now: 10_000 * ms)
        #expect(!unbounded.slow)
    }

    @Test("the database times its writes: one over DATABASE_WRITE_WAIT marks them slow, a quicker one ends it", arguments: engines)
    func writesTimed(engine: DatabaseEngine) async throws {
        try await withApp(
            engine,
            configure: {
                // Bounds far apart, so that a quick write on a loaded machine is still quick.
                $0.databaseWriteWait = 1
                $0.jobWorkers = 0
            }
        ) { _, services in
            let database = services.database
            // A background write (quick) may end the mark between the two lines: then again.
            try await eventually("a slow write to mark the writes slow") {
                try await database.transaction { _ in try await Task.sleep(for: .milliseconds(1_200)) }
                return database.writesSlow
            }
            try await eventually("a quick write to end it") {
                try await database.transaction { _ in }
                return !database.writesSlow
            }
        }
    }

    @Test(
        "while tasks run later than the bound for 100 ms (past the CPU's capacity), an API request is refused at once; operational routes answer",
        arguments: engines)
    func behindRefused(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let (token, _) = try await api.register("Cam")
            let lag = services.schedulerLag
            // No probe runs (the tests' configuration has none: their machine is loaded
            // by the suite); the bound is set and the findings given here.
            lag.limitLag(to: .milliseconds(20))
            lag.record(lateness: .milliseconds(50), at: 1_000_000_000)
            #expect(!lag.isBehind, "one late wake-up is a busy moment")
            #expect(try await api.get("/v1/me", token: token).status == .ok)
            lag.record(lateness: .milliseconds(50), at: 1_150_000_000)
            #expect(lag.isBehind, "late for 100 ms on end")
            let refused = try await api.get("/v1/me", token: token)
            #expect(refused.status == .serviceUnavailable)
            #expect(try refused.errorCode == "overloaded")
            #expect(refused.headers[.retryAfter] == "1")
            #expect(try await api.post("/v1/events", token: token, json: ["title": "Refused"]).status == .serviceUnavailable)
            #expect(try await api.get("/health").status == .ok)
            #expect(try await api.get("/ready").status == .ok)
            #expect(try await api.get("/openapi.yaml").status == .ok)
            lag.record(lateness: .milliseconds(1), at: 1_160_000_000)
            #expect(!lag.isBehind, "a wake-up on time ends it")
            #expect(try await api.get("/v1/me", token: token).status == .ok)
        }
    }
}

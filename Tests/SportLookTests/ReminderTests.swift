import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Reminders: scheduled jobs before every game", .timeLimit(.minutes(10)))
struct ReminderTests {
    /// The reminders someone has in their inbox.
    static func reminders(_ api: API, _ token: String) async throws -> [API.Notification] {
        try await api.notifications(token).filter { $0.kind == .reminder }
    }

    /// Creates a game `startsIn` from now in Copenhagen, with `extra` fields.
    static func game(
        _ api: API, _ token: String, clock: ManualClock, startsIn: TimeInterval, capacity: Int? = nil, extra: [String: Any] = [:]
    ) async throws -> API.Event {
        var body: [String: Any] = [
            "title": "Tuesday football", "sport": "football", "starts_at": RFC3339.format(clock.now().addingTimeInterval(startsIn)),
            "location": ["lat": 55.6761, "lon": 12.5683], "time_zone": "Europe/Copenhagen",
        ]
        if let capacity { body["capacity"] = capacity }
        body.merge(extra) { $1 }
        return try await api.post("/v1/events", token: token, json: body).decode(expecting: .created)
    }

    @Test("reminders fire once each, a day and two hours before, to the people going who want them, in their language", arguments: engines)
    func remindersFire(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let going = try await api.register("Going")
            let quiet = try await api.register("Quiet")
            let danish = try await api.request(
                .post, "/v1/auth/register", json: ["name": "Dorte", "email": "dorte@example.com", "password": "correct horse battery"],
                headers: [.acceptLanguage: "da-DK,da;q=0.9,en;q=0.5"]
            ).decode(API.AuthResult.self, expecting: .created)
            #expect(danish.user.language == .da)
            let leaver = try await api.register("Leaver")
            let waiting = try await api.register("Waiting")
            let event = try await Self.game(api, organiser.token, clock: clock, startsIn: 3 * 86_400, capacity: 3)
            #expect(event.timeZone == "Europe/Copenhagen" && event.reminders == [1_440, 120])
            let start = event.startsAt
            for token in [going.token, quiet.token, leaver.token] { #expect(try await api.join(event.id, token: token).status == .going) }
            #expect(try await api.join(event.id, token: danish.accessToken).status == .waitlisted)
            #expect(try await api.join(event.id, token: waiting.token).status == .waitlisted)
            // Leaver leaves: Dorte moves up from the waitlist; Waiting stays on it.
            _ = try await api.delete("/v1/events/\(event.id)/attendance", token: leaver.token)
            // Dorte is told she moved up in her language: the push carries her words.
            let promoted = try await services.database.read { sql in
                try await sql.raw("SELECT payload FROM jobs WHERE kind = 'waitlist_promoted'").all().map {
                    try JSONDecoder().decode(NotificationMessage.self, from: Data(try $0.decode(column: "payload", as: String.self).utf8))
                }
            }
            #expect(promoted.map(\.title) == ["Du er med: Tuesday football"])
            #expect(promoted.map(\.body) == ["Der blev en plads fri: du er nu tilmeldt."])
            #expect(
                try await api.patch("/v1/me", token: quiet.token, json: ["reminders": false]).decode(
                    API.PrivateProfile.self, expecting: .ok
                ).reminders == false)
            let due = try await services.scheduler.due(.reminder, of: .event(try #require(UUID(uuidString: event.id))))
            #expect(due == [start.addingTimeInterval(-86_400), start.addingTimeInterval(-7_200)])

            // A minute before the first: nothing yet.
            clock.advance(by: start.addingTimeInterval(-86_400 - 60).timeIntervalSince(clock.now()))
            try await services.runDueJobs()
            #expect(try await Self.reminders(api, going.token).isEmpty)
            // The day before.
            clock.advance(by: 61)
            let told = [organiser.token, going.token, danish.accessToken]
            try await eventually("the day-before reminders") {
                for token in told where try await Self.reminders(api, token).count != 1 { return false }
                return true
            }
            let english = try #require(try await Self.reminders(api, going.token).first)
            #expect(english.data.title == "Reminder: Tuesday football")
            #expect(english.data.body?.hasPrefix("Tuesday football starts tomorrow at ") == true)
            #expect(english.data.minutesBefore == 1_440)
            let dansk = try #require(try await Self.reminders(api, danish.accessToken).first)
            #expect(dansk.data.title == "Påmindelse: Tuesday football")
            #expect(dansk.data.body?.contains("i morgen kl. ") == true)
            for token in [quiet.token, leaver.token, waiting.token] { #expect(try await Self.reminders(api, token).isEmpty) }

            // Two hours before; then nothing more, however long the workers look.
            clock.advance(by: 86_400 - 7_200)
            try await eventually("the two-hours reminders") {
                for token in told where try await Self.reminders(api, token).count != 2 { return false }
                return true
            }
            clock.advance(by: 3_600)
            try await services.runDueJobs()
            for token in told { #expect(try await Self.reminders(api, token).count == 2) }
            for token in [quiet.token, leaver.token, waiting.token] { #expect(try await Self.reminders(api, token).isEmpty) }
            let done = try await services.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'reminder_due' AND state = 'done'").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(done == 2)
        }
    }

    @Test("a moved start moves the reminders to come, new ones are queued, a cancelled game drops them", arguments: engines)
    func remindersFollowTheEvent(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let event = try await Self.game(
                api, organiser.token, clock: clock, startsIn: 2 * 86_400, extra: ["reminders": [60, 1_440, 60]])
            #expect(event.reminders == [1_440, 60])
            let id = try #require(UUID(uuidString: event.id))
            try await api.join(event.id, token: player.token)
            let start = event.startsAt
            // Moved a day later: the day-before reminder goes with it.
            let moved = start.addingTimeInterval(86_400)
            #expect(
                try await api.patch("/v1/events/\(event.id)", token: organiser.token, json: ["starts_at": RFC3339.format(moved)]).status
                    == .ok)
            #expect(
                try await services.scheduler.due(.reminder, of: .event(id)) == [
                    moved.addingTimeInterval(-86_400), moved.addingTimeInterval(-3_600),
                ])
            // Past the old time: nothing.
            clock.advance(by: start.addingTimeInterval(-86_400 + 60).timeIntervalSince(clock.now()))
            try await services.runDueJobs()
            #expect(try await Self.reminders(api, player.token).isEmpty)
            // Past the new one: the reminder, once.
            clock.advance(by: 86_400)
            try await eventually("the moved reminder") { try await Self.reminders(api, player.token).count == 1 }
            // New reminders: only those still ahead are queued.
            #expect(try await api.patch("/v1/events/\(event.id)", token: organiser.token, json: ["reminders": [2_880, 30]]).status == .ok)
            #expect(try await services.scheduler.due(.reminder, of: .event(id)) == [moved.addingTimeInterval(-1_800)])
            // Cancelled: nothing left to send.
            #expect(try await api.delete("/v1/events/\(event.id)", token: organiser.token).status == .noContent)
            #expect(try await services.scheduler.due(.reminder, of: .event(id)).isEmpty)
            clock.advance(by: 86_400)
            try await services.runDueJobs()
            #expect(try await Self.reminders(api, player.token).count == 1)
            // Bad settings are refused.
            let other = try await Self.game(api, organiser.token, clock: clock, startsIn: 86_400)
            for bad: Any in [[1], [30_000], [5, 10, 15, 20, 25], "soon"] {
                #expect(
                    try await api.patch("/v1/events/\(other.id)", token: organiser.token, json: ["reminders": bad]).status
                        == .unprocessableContent, "\(bad)")
            }
            for zone in ["Mars/Olympus", "CET+1", String(repeating: "A", count: 100)] {
                #expect(
                    try await api.patch("/v1/events/\(other.id)", token: organiser.token, json: ["time_zone": zone]).status
                        == .unprocessableContent, "\(zone)")
            }
        }
    }

    @Test("the organiser reminds everyone now, at most once an hour; nobody else may", arguments: engines)
    func remindNow(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let event = try await Self.game(api, organiser.token, clock: clock, startsIn: 5 * 86_400)
            try await api.join(event.id, token: player.token)
            #expect(try await api.post("/v1/events/\(event.id)/remind", token: player.token).status == .forbidden)
            #expect(try await api.post("/v1/events/\(event.id)/remind", token: organiser.token).status == .accepted)
            try await eventually("the reminder") { try await Self.reminders(api, player.token).count == 1 }
            #expect(try await Self.reminders(api, player.token).first?.data.minutesBefore == 0)
            let again = try await api.post("/v1/events/\(event.id)/remind", token: organiser.token)
            #expect(again.status == .tooManyRequests)
            #expect(try again.errorCode == "reminded_recently")
            #expect(again.headers[.retryAfter].flatMap(Int.init).map { (1...3_600).contains($0) } == true)
            clock.advance(by: 3_601)
            #expect(try await api.post("/v1/events/\(event.id)/remind", token: organiser.token).status == .accepted)
            try await eventually("the second reminder") { try await Self.reminders(api, player.token).count == 2 }
        }
    }

    @Test(
        "a reminder queued by a server that stopped, and one claimed by a worker that died, are sent once by the next", arguments: engines)
    func survivesRestart(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        let database = try await testConfiguration(engine)
        TestCounter.record(engine)
        do {
            try await Self.restart(database, clock: clock)
        } catch {
            await dispose(database)
            throw error
        }
        await dispose(database)
    }

    static func restart(_ database: AppConfiguration, clock: ManualClock) async throws {
        var configuration = database
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // The first server queues the reminders and stops before they are due (its workers never run).
        configuration.jobWorkers = 0
        let (first, firstServices) = try await makeApplication(configuration, clock: clock, queueClock: clock, logger: logger)
        let ids = try await first.test(.router) { client in
            try await firstServices.waitUntilWarm()
            let api = API(client: client)
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let event = try await Self.game(api, organiser.token, clock: clock, startsIn: 3 * 86_400, extra: ["reminders": [1_440, 120]])
            try await api.join(event.id, token: player.token)
            return (event: event, player: player)
        }
        let start = ids.event.startsAt
        // The next one starts past the first reminder's time. Its queue is worked here, a
        // batch at a time, so that a worker that dies can claim the second reminder first.
        configuration.jobLease = 30
        let (second, services) = try await makeApplication(configuration, clock: clock, queueClock: clock, logger: logger)
        try await second.test(.router) { client in
            try await services.waitUntilWarm()
            let api = API(client: client)
            let worker = JobWorker(
                name: "next", jobs: services.jobStore, inbox: services.inbox, safety: SafetyStore(database: services.database),
                access: services.eventAccess,
                scheduled: services.scheduledWork, channels: services.channels, mailer: nil, codes: nil,
                write: services.write, clock: services.clock, logger: services.logger,
                settings: .init(pollInterval: 1, lease: 30, maxAttempts: 5, retryBase: 1))
            @Sendable func delivered(_ count: Int) async throws -> Bool {
                _ = try await worker.runOnce()
                return try await Self.reminders(api, ids.player.token).count == count
            }
            clock.advance(by: start.addingTimeInterval(-86_400 + 1).timeIntervalSince(clock.now()))
            try await eventually("the reminder the stopped server queued") { try await delivered(1) }
            // The worker that dies: it claims the due reminder first and is never heard of again.
            clock.advance(by: 86_400 - 7_200)
            let claimed = try await services.jobStore.claim(
                limit: 10, worker: "dead-worker", now: clock.now(), leaseUntil: clock.now().addingTimeInterval(30))
            #expect(claimed.map(\.kind) == [ScheduledJob.Kind.reminder.rawValue])
            #expect(try await worker.runOnce() == false)
            #expect(try await Self.reminders(api, ids.player.token).count == 1)
            // Its lease runs out: the live worker takes the job and sends it once.
            clock.advance(by: 31)
            try await eventually("the reminder the dead worker held") { try await delivered(2) }
            clock.advance(by: 600)
            while try await worker.runOnce() {}
            #expect(try await Self.reminders(api, ids.player.token).count == 2)
        }
    }

    @Test("two instances running the queue send each reminder to each person once")
    func twoInstances() async throws {
        let clock = ManualClock()
        try await withTwoInstances(clock: clock, queueClock: clock) { one, two, first, second in
            let organiser = try await one.register("Org")
            var registered: [String] = []
            for i in 0..<20 { registered.append(try await (i.isMultiple(of: 2) ? one : two).register("Player\(i)").token) }
            let players = registered
            var events: [API.Event] = []
            for _ in 0..<5 {
                let event = try await Self.game(one, organiser.token, clock: clock, startsIn: 2 * 86_400, extra: ["reminders": [60]])
                for token in players { try await two.join(event.id, token: token) }
                events.append(event)
            }
            clock.advance(by: 2 * 86_400 - 3_600 + 1)
            try await eventually("every reminder") {
                for token in players where try await Self.reminders(one, token).count != 5 { return false }
                return true
            }
            clock.advance(by: 60)
            try await first.runDueJobs()
            try await second.runDueJobs()
            for token in players {
                let mine = try await Self.reminders(two, token)
                #expect(mine.count == 5)
                #expect(Set(mine.compactMap { $0.data.eventId }) == Set(events.map(\.id)))
            }
        }
    }

    @Test(
        "maybe takes no place, gives a held one up, turns into going, and is reminded to decide; an answer deadline closes it too",
        arguments: engines)
    func maybe(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, _ in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let cy = try await api.register("Cy")
            let event = try await Self.game(
                api, organiser.token, clock: clock, startsIn: 3 * 86_400, capacity: 1, extra: ["reminders": [120]])
            struct Answer: Decodable { var status: String }
            #expect(
                try await api.post("/v1/events/\(event.id)/maybe", token: ann.token).decode(Answer.self, expecting: .ok).status == "maybe")
            var seen = try await api.event(event.id, token: ann.token)
            #expect(seen.myStatus?.value1 == .maybe && seen.goingCount == 0 && seen.waitlistCount == 0)
            // Bo takes the place, Cy waits; Bo turns maybe: Cy moves up.
            #expect(try await api.join(event.id, token: bo.token).status == .going)
            #expect(try await api.join(event.id, token: cy.token).status == .waitlisted)
            #expect(try await api.post("/v1/events/\(event.id)/maybe", token: bo.token).status == .ok)
            #expect(try await api.event(event.id, token: cy.token).myStatus?.value1 == .going)
            seen = try await api.event(event.id, token: bo.token)
            #expect(seen.myStatus?.value1 == .maybe && seen.goingCount == 1)
            // Ann decides: going (the waitlist, the place being taken).
            #expect(try await api.join(event.id, token: ann.token).status == .waitlisted)
            #expect(try await api.event(event.id, token: ann.token).myStatus?.value1 == .waitlisted)
            // The organiser is going by organising.
            #expect(try await api.post("/v1/events/\(event.id)/maybe", token: organiser.token).status == .conflict)
            // Two hours before: Bo (maybe) is asked to decide, Cy (going) reminded, Ann (waiting) not.
            let start = event.startsAt
            clock.advance(by: start.addingTimeInterval(-7_200 + 1).timeIntervalSince(clock.now()))
            try await eventually("the reminders") {
                let (maybe, going) = (try await Self.reminders(api, bo.token).count, try await Self.reminders(api, cy.token).count)
                return maybe == 1 && going == 1
            }
            let decide = try #require(try await Self.reminders(api, bo.token).first)
            #expect(decide.data.title == "Are you coming? Tuesday football" && decide.data.answer?.rawValue == "maybe")
            #expect(try await Self.reminders(api, ann.token).isEmpty)
            // Removed and banned, a maybe is no answer any more (and gets no reminder).
            let dee = try await api.register("Dee")
            #expect(try await api.post("/v1/events/\(event.id)/maybe", token: dee.token).status == .ok)
            #expect(
                try await api.delete("/v1/events/\(event.id)/attendees/\(dee.id)?ban=true", token: organiser.token).status == .noContent)
            #expect(try await api.event(event.id, token: dee.token).myStatus == nil)
            #expect(try await api.post("/v1/events/\(event.id)/maybe", token: dee.token).status == .forbidden)
            // Taking a maybe back leaves nothing; after an answer deadline maybe is closed too.
            #expect(try await api.delete("/v1/events/\(event.id)/attendance", token: bo.token).status == .noContent)
            #expect(try await api.event(event.id, token: bo.token).myStatus == nil)
            let later = try await Self.game(
                api, organiser.token, clock: clock, startsIn: 2 * 86_400,
                extra: ["answer_deadline": RFC3339.format(clock.now().addingTimeInterval(3_600))])
            clock.advance(by: 3_601)
            let closed = try await api.post("/v1/events/\(later.id)/maybe", token: ann.token)
            #expect(closed.status == .conflict)
            #expect(try closed.errorCode == "answers_closed")
        }
    }
}

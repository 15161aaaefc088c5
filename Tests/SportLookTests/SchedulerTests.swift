import Foundation
import SQLKit
import Testing

@testable import SportLook

@Suite("The scheduler: one typed job for every kind of timed work", .timeLimit(.minutes(10)))
struct SchedulerTests {
    static let event = UUID(uuidString: "5A2C1E3B-7C44-4D0A-9B1E-2F7C9D8E6A10")!
    static let user = UUID(uuidString: "0E9B7A61-3D2C-4F5E-8A7B-6C5D4E3F2A1B")!
    static let series = UUID(uuidString: "C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F")!
    static let start = Date(timeIntervalSince1970: 1_767_225_600.123)

    static let every: [ScheduledJob] = [
        .reminder(event: event, minutes: 120, startsAt: start), .gameDecision(event: event, startsAt: start),
        .offerExpiry(event: event, user: user, expiresAt: start), .seriesExtension(series: series),
        .suspensionEnd(user: user, until: start), .dataExport(export: event, user: user), .exportExpiry(export: series, user: user),
        .teamsDue(event: event, startsAt: start), .resultStands(event: event, enteredAt: start),
        .substituteExpiry(event: event, request: series, expiresAt: start), .pollClose(room: event, seq: 7, closesAt: start),
        .pollReminder(room: series, seq: 9, closesAt: start), .paymentReminder(event: event, round: 2),
        .duesDue(group: series, startsAt: start),
        .duesReminder(group: series, period: "2026-11-01", round: 3),
    ]

    @Test("every kind is read back as it was written, under its own kind only; a job of an unknown kind or missing a field is refused")
    func roundTrip() throws {
        #expect(Set(Self.every.map(\.kind)) == Set(ScheduledJob.Kind.allCases))
        for job in Self.every {
            let payload = try job.encoded()
            let read = try ScheduledJob(kind: job.kind.rawValue, payload: payload)
            #expect(read == job, "\(payload)")
            for other in ScheduledJob.Kind.allCases where other != job.kind {
                #expect(throws: DecodingError.self) { try ScheduledJob(kind: other.rawValue, payload: payload) }
            }
        }
        #expect(
            Self.every.map(\.subject) == [
                .event(Self.event), .event(Self.event), .event(Self.event), .series(Self.series), .user(Self.user), .user(Self.user),
                .user(Self.user), .event(Self.event), .event(Self.event), .event(Self.event), .room(Self.event), .room(Self.series),
                .event(Self.event), .group(Self.series), .group(Self.series),
            ])
        #expect(ScheduledJob.Subject.event(Self.event).key == "event:" + Self.event.lowercased)
        for bad in [
            #"{"kind":"coffee_break"}"#, #"{"kind":"game_decision","event_id":"5a2c1e3b-7c44-4d0a-9b1e-2f7c9d8e6a10"}"#,
            "5a2c1e3b 1767225600123", "",
        ] {
            #expect(throws: DecodingError.self, "\(bad)") { try ScheduledJob(kind: "game_decision", payload: bad) }
        }
    }

    @Test(
        "jobs queued in the old payloads (ids, ids and times split by spaces, a reminder without its kind) are read as typed jobs after the migration",
        arguments: engines)
    func oldPayloadsMigrate(engine: DatabaseEngine) async throws {
        try await withApp(engine, configure: { $0.jobWorkers = 0 }) { _, services in
            let (e, u, s) = (Self.event.lowercased, Self.user.lowercased, Self.series.lowercased)
            let ms = Self.start.millisecondsSince1970
            let old: [(ScheduledJob.Kind, String)] = [
                (.reminder, #"{"event_id":"\#(e)","minutes":120,"starts_at":\#(ms)}"#), (.gameDecision, "\(e) \(ms)"),
                (.offerExpiry, "\(e) \(u) \(ms)"), (.seriesExtension, s),
            ]
            try await services.database.write { sql in
                for (kind, payload) in old {
                    try await sql.raw(
                        """
                        INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at)
                        VALUES (\(bind: UUID()), \(bind: kind.rawValue), \(bind: payload), \(bind: "old:" + kind.rawValue), 'done', 0, \(bind: Date()), \(bind: Date()))
                        """
                    ).run()
                }
                let file = services.resources.migrations(for: engine).appendingPathComponent("0037_typed_scheduled_jobs.sql")
                let text = try String(contentsOf: file, encoding: .utf8)
                let statements = text.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n").split(separator: ";")
                for statement in statements where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    try await sql.raw("\(unsafeRaw: String(statement))").run()
                }
            }
            let rows = try await services.database.read { sql in
                try await sql.raw("SELECT kind, payload FROM jobs WHERE dedupe_key LIKE 'old:%' ORDER BY kind").all()
                    .map { (try $0.decode(column: "kind", as: String.self), try $0.decode(column: "payload", as: String.self)) }
            }
            let read = try rows.map { try ScheduledJob(kind: $0.0, payload: $0.1) }
            // Every kind there was before typed jobs (suspensions and exports came after).
            let before: Set<ScheduledJob.Kind> = [.reminder, .gameDecision, .offerExpiry, .seriesExtension]
            #expect(Set(read) == Set(Self.every.filter { before.contains($0.kind) }))
        }
    }
}

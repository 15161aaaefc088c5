import ArgumentParser
import Foundation
import Logging
import SQLKit
import SportLook

/// Scheduled jobs at scale: `events` games, each with `perEvent` people going (the
/// organiser among them), whose reminders (5 minutes before the start) all fall due in
/// the same minute. The events are made through the API, so the server schedules their
/// reminders itself; the people going are written straight into the database. Measured
/// from the jobs table and the inbox: how long after its due time each reminder reached
/// the person (inbox written and push accepted), and that each reached them once.
struct RemindersBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders", abstract: "Reminders due in the same minute: delivered how long after their due time, each once.")
    @OptionGroup var server: ServerOptions
    @Option(help: "Games whose reminders fall due in the same minute.") var events = 10_000
    @Option(help: "People going to each game, the organiser included.") var perEvent = 10
    @Option(help: "Job workers in the server.") var workers = 4
    @Option(help: "Seconds from the start to the due minute (the setup must fit in it).") var lead = 150.0

    func run() async throws {
        let gateway = BenchGateway()
        let gatewayPort = try await gateway.start()
        let process = try server.start([
            "PUSH_GATEWAY_URL": "http://127.0.0.1:\(gatewayPort)/push", "PUSH_GATEWAY_SECRET": "bench-secret-of-at-least-32-bytes!",
            "JOB_WORKERS": String(workers),
        ])
        defer {
            process.terminate()
            gateway.stop()
        }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let database = try await Database.open(try DatabaseLocation(parsing: server.databaseURL), poolSize: 4, timeout: 60, logger: logger)
        let others = perEvent - 1
        let people = try await insertPeople(max(others, events * others / 9), into: database)

        // The due minute: whole, `lead` seconds or more ahead. Game i starts i/events of a minute into it, plus 5 minutes.
        let setupStart = Date()
        let dueMinute = Date(timeIntervalSince1970: (setupStart.addingTimeInterval(lead).timeIntervalSince1970 / 60).rounded(.up) * 60)
        let (token, _) = try await api.register("Organiser")
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let starts = (0..<events).map { format.string(from: dueMinute.addingTimeInterval(Double($0) * 60 / Double(events) + 300)) }
        let apiClient = api
        let organiserToken = token
        let count = events
        var ids: [Int: UUID] = [:]
        try await withThrowingTaskGroup(of: [(Int, UUID)].self) { group in
            for lane in 0..<8 {
                group.addTask {
                    var made: [(Int, UUID)] = []
                    for i in stride(from: lane, to: count, by: 8) {
                        let reply = try await apiClient.call(
                            "POST", "/v1/events", token: organiserToken,
                            json: [
                                "title": "Game \(i)", "sport": "football", "location": ["lat": 55.6761, "lon": 12.5683],
                                "time_zone": "Europe/Copenhagen",
                                "starts_at": starts[i], "reminders": [5],
                            ])
                        guard reply.status == 201, let id = (reply.object["id"] as? String).flatMap(UUID.init(uuidString:)) else {
                            throw BenchError("create event: \(reply.status)")
                        }
                        made.append((i, id))
                    }
                    return made
                }
            }
            for try await made in group { for (i, id) in made { ids[i] = id } }
        }
        let eventIDs = (0..<events).map { ids[$0]! }
        // The people going: game i has people (i·others + k) mod |people|, k < others.
        let now = Date()
        for chunk in stride(from: 0, to: events, by: 200) {
            try await database.transaction { sql in
                var rows: SQLQueryString = "INSERT INTO attendances (event_id, user_id, status, joined_at) VALUES "
                var first = true
                for i in chunk..<min(events, chunk + 200) {
                    for k in 0..<others {
                        rows +=
                            "\(unsafeRaw: first ? "" : ", ")(\(bind: eventIDs[i]), \(bind: people[(i * others + k) % people.count]), 'going', \(bind: now))"
                        first = false
                    }
                }
                try await sql.raw(rows).run()
                try await sql.raw(
                    "UPDATE events SET going_count = going_count + \(bind: others) WHERE id IN (\(unsafeRaw: (chunk..<min(events, chunk + 200)).map { "'\(eventIDs[$0].uuidString.lowercased())'" }.joined(separator: ",")))"
                ).run()
            }
        }
        let setup = Date().timeIntervalSince(setupStart)
        guard Date() < dueMinute else { throw BenchError("the setup took \(Int(setup)) s, past the due minute: raise --lead") }

        let expected = events * perEvent
        while true {
            let done: Int = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'reminder' AND state = 'done'").first()?.decode(
                    column: "n", as: Int.self) ?? 0
            }
            if done >= expected { break }
            guard Date() < dueMinute.addingTimeInterval(600) else {
                throw BenchError("only \(done) of \(expected) reminders delivered 10 minutes after the due minute")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        // A moment for anything that would arrive twice.
        try await Task.sleep(for: .seconds(2))
        // Due: the start in the dedupe key (reminder:<event>:5:<start ms>:<person>) less 5 minutes.
        let rows: [(String, Date)] = try await database.read { sql in
            try await sql.raw("SELECT dedupe_key, finished_at FROM jobs WHERE kind = 'reminder'").all().map {
                (try $0.decode(column: "dedupe_key", as: String.self), try $0.decode(column: "finished_at", as: Date.self))
            }
        }
        let fanOut: [(Date, Date)] = try await database.read { sql in
            try await sql.raw("SELECT run_at, finished_at FROM jobs WHERE kind = 'reminder_due'").all().map {
                (try $0.decode(column: "run_at", as: Date.self), try $0.decode(column: "finished_at", as: Date.self))
            }
        }
        let (inbox, distinct): (Int, Int) = try await database.read { sql in
            let row = try await sql.raw("SELECT COUNT(*) AS n, COUNT(DISTINCT job_id) AS d FROM notifications WHERE kind = 'reminder'")
                .first()
            return (try row?.decode(column: "n", as: Int.self) ?? 0, try row?.decode(column: "d", as: Int.self) ?? 0)
        }
        await database.close()
        var late = Samples()
        var fanLate = Samples()
        var lastDelivery = dueMinute
        for (key, finished) in rows {
            let parts = key.split(separator: ":")
            guard parts.count == 5, let start = Double(parts[3]), let minutes = Double(parts[2]) else { continue }
            late.add(finished.timeIntervalSince(Date(timeIntervalSince1970: start / 1_000 - minutes * 60)))
            lastDelivery = max(lastDelivery, finished)
        }
        for (due, finished) in fanOut { fanLate.add(finished.timeIntervalSince(due)) }
        let pushes = gateway.keys.snapshot
        let engine = server.databaseURL.hasPrefix("sqlite") ? "SQLite" : "PostgreSQL"
        print(
            "| \(engine) | \(workers) | \(rows.count) | \(fanOut.count) | \(String(format: "%.0f", setup)) s | "
                + "\(formatLatency(fanLate.percentile(99))) | \(formatLatency(late.percentile(50))) | \(formatLatency(late.percentile(99))) | \(formatLatency(late.percentile(100))) | "
                + String(format: "%.1f s", lastDelivery.timeIntervalSince(dueMinute.addingTimeInterval(60)))
                + " | \(inbox) (\(distinct) distinct) | \(pushes.count) (\(pushes.values.reduce(0, +) - pushes.count) repeated) |")
    }
}

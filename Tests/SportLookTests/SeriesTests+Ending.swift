import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Series: a split beyond the games made, a deleted organiser, opt-outs, skipped dates and the end of a series.
extension SeriesTests {
    @Test(
        "split beyond the games made: the old series still makes its games up to the day before, the new one from that date",
        arguments: engines)
    func splitBeyondHorizon(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.tokenTTL = 365 * 86_400 }) { api, services in
            let organiser = try await api.register("Org")
            let first = try Self.tuesday(after: clock, zone: "Europe/Copenhagen")
            let series = try await Self.create(api, organiser.token, zone: "Europe/Copenhagen", first: first)
            // Ten weeks on: two weeks past the eight the horizon has made.
            let from = first.adding(days: 70)
            let next = try await api.post(
                "/v1/series/\(series.id)/split", token: organiser.token, json: ["from": from.description, "start_time": "18:00"]
            )
            .decode(SeriesView.self, expecting: .created)
            let far = try await api.post(
                "/v1/series/\(series.id)/split", token: organiser.token, json: ["from": first.adding(days: 7 * 110).description])
            #expect(far.status == .unprocessableContent)
            clock.advance(by: 21 * 86_400)
            try await eventually("the old series' last games made") {
                try await Self.games(services, series.id).last?.date == from.adding(days: -7).description
            }
            let expected = try Recurrence(parsing: "FREQ=WEEKLY;BYDAY=TU", first: first).dates(from: first, through: from.adding(days: -1))
                .map(\.description)
            #expect(try await Self.games(services, series.id).map(\.date) == expected)
            try await eventually("the new series' first games made") {
                try await Self.games(services, next.id).first?.date == from.description
            }
        }
    }

    @Test(
        "a deleted organiser's series ends: it says so, takes no regulars, and its job makes no games, even for a series left active before",
        arguments: engines)
    func deletedOrganiserEndsTheSeries(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock, configure: { $0.jobWorkers = 0 }) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let series = try await Self.create(
                api, organiser.token, zone: "Europe/Copenhagen", first: try Self.tuesday(after: clock, zone: "Europe/Copenhagen"))
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: ann.token).status == .ok)
            #expect(try await api.delete("/v1/me", token: organiser.token).status == .noContent)
            let seen = try await api.get("/v1/series/\(series.id)", token: ann.token).decode(SeriesView.self, expecting: .ok)
            #expect(seen.status == "ended")
            #expect(seen.upcoming.allSatisfy { $0.status == "cancelled" })
            let refused = try await api.post("/v1/series/\(series.id)/regulars", token: bo.token)
            #expect(refused.status == .conflict)
            #expect(try refused.errorCode == "series_ended")
            let made = try await Self.games(services, series.id).count
            // A series left active by a deletion before this rule: its job refuses it, and ends it.
            let id = try #require(UUID(uuidString: series.id))
            try await services.database.write { sql in try await sql.raw("UPDATE series SET status = 'active' WHERE id = \(bind: id)").run()
            }
            clock.advance(by: 21 * 86_400)
            try await services.series.extendDue(id)
            #expect(try await Self.games(services, series.id).count == made)
            #expect(
                try await api.get("/v1/series/\(series.id)", token: ann.token).decode(SeriesView.self, expecting: .ok).status == "ended")
            // No active game anywhere is organised by the deleted account.
            let active = try await services.database.read { sql in
                try await sql.raw(
                    "SELECT COUNT(*) AS n FROM events WHERE organiser_id = \(bind: try #require(UUID(uuidString: organiser.id))) AND status = 'active'"
                ).first()?
                .decode(column: "n", as: Int.self)
            }
            #expect(active == 0)
        }
    }

    @Test("only regulars opt out, and only of a coming date the series has, within two years", arguments: engines)
    func optOutsAreBounded(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let ann = try await api.register("Ann")
            let stranger = try await api.register("Stranger")
            let first = try Self.tuesday(after: clock, zone: "Europe/Copenhagen")
            let series = try await Self.create(api, organiser.token, zone: "Europe/Copenhagen", first: first)
            let path = "/v1/series/\(series.id)/opt-outs"
            let notRegular = try await api.post(path, token: stranger.token, json: ["date": first.description])
            #expect(notRegular.status == .forbidden)
            #expect(try notRegular.errorCode == "not_regular")
            #expect(try await api.post("/v1/series/\(series.id)/regulars", token: ann.token).status == .ok)
            for date in [first.adding(days: 1), first.adding(days: -7), first.adding(days: 7 * 120), try #require(LocalDate("9999-12-28"))]
            {
                let refused = try await api.post(path, token: ann.token, json: ["date": date.description])
                #expect(refused.status == .unprocessableContent, "\(date)")
                #expect(try refused.errorFields["date"] != nil, "\(date)")
            }
            #expect(try await api.post(path, token: ann.token, json: ["date": first.adding(days: 7 * 90).description]).status == .noContent)
            #expect(try await api.post(path, token: ann.token, json: ["date": first.description]).status == .noContent)
            #expect(try await api.event(series.upcoming[0].eventId, token: ann.token).myStatus == nil)
            let rows = try await services.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM series_opt_outs").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == 2)
        }
    }

    @Test("the organiser skips a date and ends the series; bad rules, zones, times and dates are refused", arguments: engines)
    func skipAndEnd(engine: DatabaseEngine) async throws {
        let clock = try Self.march()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let organiser = try await api.register("Org")
            let player = try await api.register("Player")
            let first = try Self.tuesday(after: clock, zone: "Europe/Copenhagen")
            // Refusals.
            let base: [String: Any] = [
                "title": "T", "sport": "football", "location": ["lat": 55.0, "lon": 12.0], "time_zone": "Europe/Copenhagen",
                "first_date": first.description, "start_time": "19:00", "rule": "FREQ=WEEKLY",
            ]
            for (field, value) in [
                ("rule", "FREQ=DAILY"), ("time_zone", "Mars/Olympus"), ("start_time", "25:00"), ("first_date", "2020-01-07"),
                ("first_date", "not a date"), ("rule", "FREQ=MONTHLY;BYDAY=9TU"),
            ] as [(String, Any)] {
                var body = base
                body[field] = value
                let refused = try await api.post("/v1/series", token: organiser.token, json: body)
                #expect(refused.status == .unprocessableContent, "\(field)=\(value)")
                #expect(try refused.errorFields[field] != nil, "\(field)=\(value)")
            }
            let series = try await Self.create(api, organiser.token, zone: "Europe/Copenhagen", first: first)
            try await api.join(series.upcoming[0].eventId, token: player.token)
            #expect(
                try await api.post("/v1/series/\(series.id)/skips", token: player.token, json: ["date": first.description]).status
                    == .forbidden)
            #expect(
                try await api.post("/v1/series/\(series.id)/skips", token: organiser.token, json: ["date": first.description]).status
                    == .noContent)
            #expect(try await api.event(series.upcoming[0].eventId, token: player.token).status == .cancelled)
            try await eventually("the player told") { try await api.notifications(player.token).contains { $0.kind == .eventCancelled } }
            // A date not made yet, skipped: it is never made.
            let skipped = first.adding(days: 7 * 10)
            #expect(
                try await api.post("/v1/series/\(series.id)/skips", token: organiser.token, json: ["date": skipped.description]).status
                    == .noContent)
            clock.advance(by: 4 * 7 * 86_400)
            try await eventually("later games made") {
                try await Self.games(services, series.id).contains { $0.date == skipped.adding(days: 7).description }
            }
            #expect(!(try await Self.games(services, series.id).contains { $0.date == skipped.description }))
            // Ended: the games to come are cancelled, and no more are made.
            #expect(try await api.delete("/v1/series/\(series.id)", token: organiser.token).status == .noContent)
            let ended = try await api.get("/v1/series/\(series.id)", token: organiser.token).decode(SeriesView.self, expecting: .ok)
            #expect(ended.status == "ended" && ended.upcoming.allSatisfy { $0.status == "cancelled" })
            let count = try await Self.games(services, series.id).count
            clock.advance(by: 14 * 86_400)
            try await services.runDueJobs()
            #expect(try await Self.games(services, series.id).count == count)
        }
    }
}

import Foundation
import Testing

@testable import SportLook

@Suite("Recurrence rules: the RRULE subset, in the place's time zone")
struct RecurrenceTests {
    static func date(_ text: String) throws -> LocalDate { try #require(LocalDate(text)) }

    @Test("weekly on two days, every other week, until a date; counted from the first game")
    func weekly() throws {
        let first = try Self.date("2026-03-03")  // a Tuesday
        let rule = try Recurrence(parsing: "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20260402", first: first)
        #expect(rule.text == "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20260402")
        let dates = rule.dates(from: first, through: try Self.date("2026-12-31")).map(\.description)
        #expect(dates == ["2026-03-03", "2026-03-05", "2026-03-17", "2026-03-19", "2026-03-31", "2026-04-02"])
        // Without BYDAY: the first date's weekday; COUNT counts the first game.
        let counted = try Recurrence(parsing: "FREQ=WEEKLY;COUNT=3", first: first)
        #expect(
            counted.dates(from: first, through: try Self.date("2027-01-01")).map(\.description) == [
                "2026-03-03", "2026-03-10", "2026-03-17",
            ])
        // A window ends the list early, the rule does not change.
        #expect(counted.dates(from: first, through: try Self.date("2026-03-12")).count == 2)
    }

    @Test("monthly on the second Tuesday and on the last Friday; a fifth that a month lacks is skipped")
    func monthly() throws {
        let first = try Self.date("2026-01-13")  // the second Tuesday of January 2026
        let second = try Recurrence(parsing: "FREQ=MONTHLY;BYDAY=2TU;COUNT=4", first: first)
        #expect(
            second.dates(from: first, through: try Self.date("2027-01-01")).map(\.description) == [
                "2026-01-13", "2026-02-10", "2026-03-10", "2026-04-14",
            ])
        let lastFriday = try Self.date("2026-01-30")
        let last = try Recurrence(parsing: "FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20260501", first: lastFriday)
        #expect(
            last.dates(from: lastFriday, through: try Self.date("2027-01-01")).map(\.description) == [
                "2026-01-30", "2026-02-27", "2026-03-27", "2026-04-24",
            ])
        let fifth = try Self.date("2026-01-29")  // the fifth Thursday of January
        let fifths = try Recurrence(parsing: "FREQ=MONTHLY;BYDAY=5TH", first: fifth)
        #expect(
            fifths.dates(from: fifth, through: try Self.date("2026-07-31")).map(\.description) == [
                "2026-01-29", "2026-04-30", "2026-07-30",
            ])
    }

    @Test("19:00 stays 19:00 local across daylight-saving changes in Copenhagen and New York")
    func daylightSaving() throws {
        for (zoneID, first, winterUTC, summerUTC) in [
            ("Europe/Copenhagen", "2026-03-17", 18, 17), ("America/New_York", "2026-03-03", 0, 23),
        ] {
            let zone = try #require(TimeZone(identifier: zoneID))
            let start = try Self.date(first)
            let rule = try Recurrence(parsing: "FREQ=WEEKLY;COUNT=6", first: start)
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = .gmt
            var local = Calendar(identifier: .gregorian)
            local.timeZone = zone
            let instants = rule.dates(from: start, through: try Self.date("2027-01-01")).map { $0.at(minutes: 19 * 60, in: zone) }
            #expect(instants.allSatisfy { local.component(.hour, from: $0) == 19 && local.component(.minute, from: $0) == 0 }, "\(zoneID)")
            let hours = instants.map { utc.component(.hour, from: $0) }
            #expect(hours.first == winterUTC && hours.last == summerUTC, "\(zoneID): \(hours)")
        }
    }

    @Test("what the subset does not cover is refused, naming the part")
    func refused() throws {
        let first = try Self.date("2026-03-03")
        for (text, part) in [
            ("FREQ=DAILY", "FREQ"), ("FREQ=WEEKLY;BYDAY=XX", "BYDAY"), ("FREQ=WEEKLY;BYMONTH=3", "BYMONTH"),
            ("FREQ=MONTHLY;BYDAY=TU", "BYDAY"),
            ("FREQ=MONTHLY;BYDAY=6TU", "BYDAY"), ("FREQ=WEEKLY;COUNT=3;UNTIL=20260601", "UNTIL"), ("FREQ=WEEKLY;UNTIL=20260101", "UNTIL"),
            ("FREQ=WEEKLY;INTERVAL=0", "INTERVAL"), ("FREQ=WEEKLY;COUNT=501", "COUNT"), ("FREQ=WEEKLY;FREQ=WEEKLY", "FREQ"), ("", "RRULE"),
        ] {
            do {
                _ = try Recurrence(parsing: text, first: first)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.message.english.contains(part), "\(text): \(error.message)")
            }
        }
    }

    @Test("dates: weekdays and day numbers agree with Foundation's calendar over decades")
    func localDates() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        var date = try Self.date("1999-12-25")
        for _ in 0..<12_000 {
            let instant = date.at(minutes: 12 * 60, in: .gmt)
            #expect(LocalDate(instant, in: .gmt) == date)
            #expect(calendar.component(.weekday, from: instant) == date.weekday)
            date = date.adding(days: 3)
        }
        #expect(LocalDate("2026-02-29") == nil && LocalDate("2028-02-29") != nil && LocalDate("2026-13-01") == nil)
    }
}

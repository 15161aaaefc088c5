import Foundation

/// When a series' games are: a documented subset of iCalendar's RRULE (RFC 5545
/// §3.3.10), read in the series' IANA time zone, so that a 19:00 game stays at 19:00
/// local time across daylight-saving changes.
///
/// Accepted: `FREQ=WEEKLY` with `BYDAY` of plain weekdays (`MO`…`SU`, default the first
/// date's weekday) and `INTERVAL` (every N weeks, 1–52); `FREQ=MONTHLY` with one `BYDAY`
/// of an ordinal weekday (`2TU`: the second Tuesday; `-1FR`: the last Friday) and
/// `INTERVAL` (1–12); at most one of `UNTIL` (a date, `YYYYMMDD`, inclusive, local) and
/// `COUNT` (1–500). Anything else is refused with the part named.
public struct Recurrence: Sendable, Hashable {
    public enum Frequency: String, Sendable, Hashable { case weekly = "WEEKLY", monthly = "MONTHLY" }

    public var frequency: Frequency
    public var interval: Int
    /// Weekdays, 1 = Sunday … 7 = Saturday (Calendar's numbering), for a weekly rule.
    public var weekdays: [Int]
    public var until: LocalDate?
    public var count: Int?

    /// For a monthly rule: which one of the month (1…5, or -1 for the last) and the weekday.
    struct OrdinalDay: Sendable, Hashable {
        var number: Int
        var weekday: Int
    }
    var monthlyDay: OrdinalDay?

    static let dayCodes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// Reads an RRULE's value (`FREQ=WEEKLY;BYDAY=TU,TH`, with or without a leading
    /// `RRULE:`); `first` supplies the weekday a weekly rule without `BYDAY` repeats on.
    public init(parsing text: String, first: LocalDate) throws(RecurrenceError) {
        var value = Substring(text.trimmingCharacters(in: .whitespaces))
        if value.uppercased().hasPrefix("RRULE:") { value = value.dropFirst(6) }
        guard value.utf8.count <= 200, !value.isEmpty else { throw RecurrenceError(Sentence("must be an RRULE of at most 200 characters")) }
        var parts: [String: String] = [:]
        for part in value.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw RecurrenceError(Sentence("'\(part.prefix(20))' is not NAME=VALUE")) }
            let name = pair[0].uppercased()
            guard parts[name] == nil else { throw RecurrenceError(Sentence("\(name) is given twice")) }
            parts[name] = pair[1].uppercased()
        }
        for name in parts.keys where !["FREQ", "INTERVAL", "BYDAY", "UNTIL", "COUNT", "WKST"].contains(name) {
            throw RecurrenceError(Sentence("\(name.prefix(20)) is not supported (FREQ, INTERVAL, BYDAY, UNTIL and COUNT are)"))
        }
        guard let freq = parts["FREQ"].flatMap(Frequency.init(rawValue:)) else {
            throw RecurrenceError(Sentence("FREQ must be WEEKLY or MONTHLY"))
        }
        frequency = freq
        interval = 1
        if let text = parts["INTERVAL"] {
            guard let n = Int(text), (1...(freq == .weekly ? 52 : 12)).contains(n) else {
                throw RecurrenceError(Sentence("INTERVAL must be 1 to \(freq == .weekly ? 52 : 12)"))
            }
            interval = n
        }
        weekdays = []
        monthlyDay = nil
        switch freq {
        case .weekly:
            if let list = parts["BYDAY"] {
                for code in list.split(separator: ",") {
                    guard let index = Self.dayCodes.firstIndex(of: String(code)) else {
                        throw RecurrenceError(Sentence("BYDAY of a weekly rule lists weekdays: MO,TU,WE,TH,FR,SA,SU"))
                    }
                    if !weekdays.contains(index + 1) { weekdays.append(index + 1) }
                }
                weekdays.sort()
            } else {
                weekdays = [first.weekday]
            }
        case .monthly:
            guard let code = parts["BYDAY"], !code.contains(",") else {
                throw RecurrenceError(Sentence("a monthly rule needs one BYDAY such as 2TU or -1FR"))
            }
            let day = String(code.suffix(2))
            let number = Int(code.dropLast(2))
            guard let index = Self.dayCodes.firstIndex(of: day), let number, number == -1 || (1...5).contains(number) else {
                throw RecurrenceError(Sentence("BYDAY of a monthly rule is 1 to 5 or -1, then a weekday (2TU, -1FR)"))
            }
            monthlyDay = OrdinalDay(number: number, weekday: index + 1)
        }
        if parts["UNTIL"] != nil && parts["COUNT"] != nil { throw RecurrenceError(Sentence("UNTIL and COUNT cannot both be given")) }
        until = nil
        count = nil
        if let text = parts["UNTIL"] {
            guard let date = LocalDate(compact: String(text.prefix(8))), date >= first else {
                throw RecurrenceError(Sentence("UNTIL must be a date (YYYYMMDD) on or after the first game"))
            }
            until = date
        }
        if let text = parts["COUNT"] {
            guard let n = Int(text), (1...500).contains(n) else { throw RecurrenceError(Sentence("COUNT must be 1 to 500")) }
            count = n
        }
    }

    /// The rule as RRULE text, in a fixed order (`FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20270601`).
    public var text: String {
        var parts = ["FREQ=\(frequency.rawValue)"]
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        switch frequency {
        case .weekly: parts.append("BYDAY=" + weekdays.map { Self.dayCodes[$0 - 1] }.joined(separator: ","))
        case .monthly: if let day = monthlyDay { parts.append("BYDAY=\(day.number)\(Self.dayCodes[day.weekday - 1])") }
        }
        if let until { parts.append("UNTIL=\(until.compact)") }
        if let count { parts.append("COUNT=\(count)") }
        return parts.joined(separator: ";")
    }

    /// A date on or after the rule's last game: UNTIL, or the COUNTth date (at most 500
    /// to list); nil for a rule without end.
    public func end(from first: LocalDate) -> LocalDate? {
        if let until { return until }
        guard count != nil else { return nil }
        return dates(from: first, through: LocalDate(dayNumber: first.dayNumber + 366 * 500)).last
    }

    /// The dates of the series from `first` (the first game; counted by `COUNT` even when
    /// it does not match the rule, as RFC 5545's DTSTART is) up to and including `last`,
    /// in order.
    public func dates(from first: LocalDate, through last: LocalDate) -> [LocalDate] {
        var out: [LocalDate] = []
        var produced = 0
        func take(_ date: LocalDate) -> Bool {
            if let until, date > until { return false }
            if let count, produced >= count { return false }
            produced += 1
            if date <= last { out.append(date) }
            return date <= last
        }
        guard take(first) else { return out }
        switch frequency {
        case .weekly:
            // Weeks start on Monday (WKST=MO): the week of the first date is week 0.
            let weekStart = first.adding(days: -((first.weekday + 5) % 7))
            var week = 0
            while true {
                let start = weekStart.adding(days: week * 7)
                if start > last || (until.map { start > $0 } ?? false) { return out }
                for weekday in weekdays.sorted(by: { ($0 + 5) % 7 < ($1 + 5) % 7 }) {
                    let date = start.adding(days: (weekday + 5) % 7)
                    guard date > first else { continue }
                    if !take(date) { return out }
                }
                week += interval
            }
        case .monthly:
            guard let day = monthlyDay else { return out }
            var month = 0
            while true {
                let base = first.firstOfMonth.adding(months: month)
                if base > last || (until.map { base > $0 } ?? false) { return out }
                if let date = base.ordinalWeekday(day.number, day.weekday), date > first {
                    if !take(date) { return out }
                }
                month += interval
            }
        }
    }
}

/// Why a recurrence rule was refused.
public struct RecurrenceError: Error, Sendable, Equatable {
    public var message: Sentence
    init(_ message: Sentence) { self.message = message }
}

/// A day on the calendar, with no time and no zone: the local date a game is on.
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1970...9999).contains(year), (1...12).contains(month), (1...Self.days(in: month, of: year)).contains(day) else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// `2026-05-12`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
            return nil
        }
        self.init(year: y, month: m, day: d)
    }

    /// `20260512`.
    init?(compact text: String) {
        guard text.utf8.count == 8, text.allSatisfy(\.isASCII), let y = Int(text.prefix(4)), let m = Int(text.dropFirst(4).prefix(2)),
            let d = Int(text.suffix(2))
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The local date of `instant` in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        (year, month, day) = (parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }
    var compact: String { String(format: "%04d%02d%02d", year, month, day) }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// Days since 1970-01-01 (proleptic Gregorian).
    var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    init(dayNumber z0: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        (year, month, day) = (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// 1 = Sunday … 7 = Saturday.
    var weekday: Int { ((dayNumber % 7 + 7) % 7 + 4) % 7 + 1 }

    func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    var firstOfMonth: LocalDate { LocalDate(dayNumber: dayNumber - (day - 1)) }

    /// The first of the month `months` later (from a first of the month).
    func adding(months: Int) -> LocalDate {
        let total = (year * 12 + month - 1) + months
        return LocalDate(dayNumber: LocalDate(uncheckedYear: total / 12, month: total % 12 + 1, day: 1).dayNumber)
    }

    private init(uncheckedYear year: Int, month: Int, day: Int) { (self.year, self.month, self.day) = (year, month, day) }

    /// The `number`th (or last, -1) `weekday` of this date's month; nil when there is no fifth.
    func ordinalWeekday(_ number: Int, _ weekday: Int) -> LocalDate? {
        let first = firstOfMonth
        let length = Self.days(in: month, of: year)
        if number > 0 {
            let offset = (weekday - first.weekday + 7) % 7 + (number - 1) * 7
            return offset < length ? first.adding(days: offset) : nil
        }
        let last = first.adding(days: length - 1)
        return last.adding(days: -((last.weekday - weekday + 7) % 7))
    }

    static func days(in month: Int, of year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The instant this date at `time` (minutes after midnight) is in `zone` — the
    /// zone's offset of that day, so 19:00 stays 19:00 whether summer time is on. A
    /// local time the clock skips (02:30 on a spring-forward night) is the instant an
    /// hour later, as Foundation's calendar and most calendars take it.
    public func at(minutes time: Int, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = DateComponents(year: year, month: month, day: day, hour: time / 60, minute: time % 60)
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: Double(dayNumber * 86_400 + time * 60))
    }
}

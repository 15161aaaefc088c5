import Foundation

/// RFC 3339 timestamps in UTC: formatting with milliseconds, strict parsing.
enum RFC3339 {
    /// `2026-11-21T18:30:00.000Z`.
    static func format(_ date: Date) -> String {
        // Two microseconds short of a millisecond count as it: a whole millisecond is a
        // double a hair below it (k / 1000), and comes back from PostgreSQL (whose driver
        // truncates to the microsecond) a microsecond short; both print as that millisecond.
        let millis = Int64((date.timeIntervalSince1970 * 1000 + 0.002).rounded(.down))
        var days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let msOfDay = millis - days * 86_400_000
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func put(_ value: Int64, _ width: Int) {
            var digits = [UInt8](repeating: 48, count: width)
            var v = value
            for i in stride(from: width - 1, through: 0, by: -1) {
                digits[i] = 48 + UInt8(v % 10)
                v /= 10
            }
            out.append(contentsOf: digits)
        }
        put(year, 4)
        out.append(45)
        put(month, 2)
        out.append(45)
        put(day, 2)
        out.append(84)
        put(msOfDay / 3_600_000, 2)
        out.append(58)
        put(msOfDay / 60_000 % 60, 2)
        out.append(58)
        put(msOfDay / 1_000 % 60, 2)
        out.append(46)
        put(msOfDay % 1_000, 3)
        out.append(90)
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` for anything else.
    static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for i in at..<(at + count) {
                guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
            b[10] == 84 || b[10] == 116, let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58,
            let second = digits(17, 2)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count && b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start, i - start <= 9 else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            guard let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = digits(i + 4, 2), oh <= 23, om <= 59 else {
                return nil
            }
            offset = (oh * 60 + om) * 60 * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count, (1...12).contains(month), hour <= 23, minute <= 59, second <= 60, year >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // Days since 1970 from a civil date.
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + Int64(hour * 3_600 + minute * 60 + min(second, 59))) - Double(offset)
        return Date(timeIntervalSince1970: seconds + fraction)
    }
}

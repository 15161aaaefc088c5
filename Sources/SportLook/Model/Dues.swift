import Foundation

/// What a group's members pay each period (a week, a month or a year, as the calendar
/// has them in the group's IANA zone), in the currency's minor units. Each period's dues
/// are owed by everyone who is a member during it but the owner, who collects them, from
/// the period starting at `from` on.
public struct Dues: Sendable, Hashable {
    public enum Period: String, Sendable, CaseIterable {
        case week, month, year

        var component: Calendar.Component {
            switch self {
            case .week: .weekOfYear
            case .month: .month
            case .year: .year
            }
        }
    }

    public var amount: Int
    public var currency: String
    public var period: Period
    /// The IANA zone whose calendar the periods follow (a month starts at midnight there).
    public var timeZone: String
    /// The start of the first period owed: the one running when dues were set, or, for
    /// dues changed, the next one (a period is never priced two ways).
    public var from: Date

    /// One period: its first instant, the first of the next, and its key (its first day there, `2026-11-01`).
    struct Span: Sendable, Hashable {
        var key: String
        var start: Date
        var end: Date
    }

    /// Whether the period starting at `start` is owed.
    func owes(_ span: Span) -> Bool { span.start >= from }

    /// These dues, owed from the period running at `now` (set anew) or from the next one
    /// (a change of `current`; the same dues again keep when they started).
    func starting(replacing current: Dues?, at now: Date) -> Dues {
        var dues = self
        if let current, current.amount == amount, current.currency == currency, current.period == period, current.timeZone == timeZone {
            dues.from = current.from
        } else {
            let span = span(containing: now)
            dues.from = current == nil ? span.start : span.end
        }
        return dues
    }

    /// The period `now` falls in (weeks start on Monday, as ISO 8601's do).
    func span(containing now: Date) -> Span {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        let interval =
            calendar.dateInterval(of: period.component, for: now) ?? DateInterval(start: now, duration: 86_400)
        let day = calendar.dateComponents([.year, .month, .day], from: interval.start)
        let key = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
        return Span(key: key, start: interval.start, end: interval.end)
    }

    /// As kept in the `dues` column.
    var stored: String {
        #"{"amount":\#(amount),"currency":"\#(currency)","period":"\#(period.rawValue)","time_zone":"\#(timeZone)","from":\#(from.millisecondsSince1970)}"#
    }

    /// From the `dues` column (nil for none, or for a value no version wrote).
    init?(stored: String?) {
        guard let stored, let data = stored.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let amount = object["amount"] as? Int, let currency = object["currency"] as? String,
            let period = (object["period"] as? String).flatMap(Period.init), let zone = object["time_zone"] as? String,
            let from = object["from"] as? Int
        else { return nil }
        self.init(
            amount: amount, currency: currency, period: period, timeZone: zone, from: Date(timeIntervalSince1970: Double(from) / 1_000))
    }

    public init(amount: Int, currency: String, period: Period, timeZone: String, from: Date) {
        self.amount = amount
        self.currency = currency
        self.period = period
        self.timeZone = timeZone
        self.from = from
    }
}

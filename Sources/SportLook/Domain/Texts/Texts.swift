import Foundation

/// Sentences put together from ``Catalogue`` with what they need worked out first:
/// times as people say them, in the place's time zone.
enum Texts {
    /// A reminder before a game: "Tennis starts today at 19:00." / "Tennis begynder i dag kl. 19:00."
    static func reminder(_ language: Language, title: String, startsAt: Date, timeZone: String, now: Date) -> (title: String, body: String)
    {
        let when = localWhen(language, startsAt, timeZone: timeZone, now: now)
        return (
            Catalogue.text(.reminderTitle, ["event": .text(title)], in: language),
            Catalogue.text(.reminderBody, ["event": .text(title), "when": .text(when)], in: language)
        )
    }

    /// A reminder to decide, for someone who answered maybe.
    static func decide(_ language: Language, title: String, startsAt: Date, timeZone: String, now: Date) -> (title: String, body: String) {
        let when = localWhen(language, startsAt, timeZone: timeZone, now: now)
        return (
            Catalogue.text(.decideTitle, ["event": .text(title)], in: language),
            Catalogue.text(.decideBody, ["event": .text(title), "when": .text(when)], in: language)
        )
    }

    /// An amount as people write it: `DKK 80.00` in English, `80,00 DKK` in Danish.
    static func money(_ minor: Int, currency: String, in language: Language) -> String {
        switch language {
        case .en: currency + " " + Price.decimal(minor, currency: currency)
        case .da: Price.decimal(minor, currency: currency, separator: ",") + " " + currency
        }
    }

    /// A moment as people say it, in the place's time zone: "today at 19:00", "tomorrow
    /// at 07:30", "on Tuesday 14 May at 19:00" (Danish: "i dag kl. 19:00"…).
    static func localWhen(_ language: Language, _ instant: Date, timeZone identifier: String, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: instant)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: instant)).day ?? 0
        if days == 0 { return Catalogue.text(.whenToday, ["time": .text(time)], in: language) }
        if days == 1 { return Catalogue.text(.whenTomorrow, ["time": .text(time)], in: language) }
        return Catalogue.text(
            .whenLater,
            [
                "weekday": .text(Catalogue.word(.weekdays, (parts.weekday ?? 1) - 1, in: language)), "day": .number(Double(parts.day ?? 1)),
                "month": .text(Catalogue.word(.months, (parts.month ?? 1) - 1, in: language)), "time": .text(time),
            ], in: language)
    }
}

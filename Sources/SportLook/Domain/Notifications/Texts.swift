import Foundation

/// Every sentence the server writes to people in their own language, in one place.
/// A new language is a new case of ``Language`` and a new branch in each text here.
enum Texts {
    /// A reminder before a game: "Tennis tonight at 19:00" / "Tennis i aften kl. 19:00".
    static func reminder(_ language: Language, title: String, startsAt: Date, timeZone: String, now: Date) -> (title: String, body: String)
    {
        let when = localWhen(language, startsAt, timeZone: timeZone, now: now)
        switch language {
        case .en: return ("Reminder: \(title)", "\(title) starts \(when).")
        case .da: return ("Påmindelse: \(title)", "\(title) begynder \(when).")
        }
    }

    /// A reminder to decide, for someone who answered maybe.
    static func decide(_ language: Language, title: String, startsAt: Date, timeZone: String, now: Date) -> (title: String, body: String) {
        let when = localWhen(language, startsAt, timeZone: timeZone, now: now)
        switch language {
        case .en: return ("Are you coming? \(title)", "\(title) starts \(when). You said maybe: say whether you are going.")
        case .da: return ("Kommer du? \(title)", "\(title) begynder \(when). Du svarede måske: sig om du kommer.")
        }
    }

    /// A start as people say it, in the place's time zone: "today at 19:00", "tomorrow
    /// at 07:30", "on Tuesday 14 May at 19:00" (Danish: "i dag kl. 19:00"…).
    static func localWhen(_ language: Language, _ instant: Date, timeZone identifier: String, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: instant)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: instant)).day ?? 0
        let weekday = (parts.weekday ?? 1) - 1
        let month = (parts.month ?? 1) - 1
        let day = parts.day ?? 1
        switch language {
        case .en:
            if days == 0 { return "today at \(time)" }
            if days == 1 { return "tomorrow at \(time)" }
            return "on \(englishWeekdays[weekday]) \(day) \(englishMonths[month]) at \(time)"
        case .da:
            if days == 0 { return "i dag kl. \(time)" }
            if days == 1 { return "i morgen kl. \(time)" }
            return "\(danishWeekdays[weekday]) den \(day). \(danishMonths[month]) kl. \(time)"
        }
    }

    private static let englishWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let englishMonths = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]
    private static let danishWeekdays = ["søndag", "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag"]
    private static let danishMonths = [
        "januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december",
    ]
}

import Foundation
import HTTPTypes

/// The fields an answer in a deprecated shape carries: `Deprecation` (RFC 9745, a
/// structured date: `@` and seconds since 1970), `Sunset` (RFC 8594, an HTTP date),
/// and a `Link` to the contract that describes the replacement.
enum DeprecationHeaders {
    static let deprecation = HTTPField.Name("Deprecation")!
    static let sunset = HTTPField.Name("Sunset")!
    static let link = HTTPField.Name("Link")!

    static func fields(_ deprecation: Deprecation) -> HTTPFields {
        [
            Self.deprecation: "@\(Int(deprecation.since.timeIntervalSince1970))",
            Self.sunset: httpDate(deprecation.sunset),
            Self.link: "</openapi.yaml>; rel=\"deprecation\"; type=\"application/yaml\"; title=\"\(quoted(deprecation.replacement))\"",
        ]
    }

    /// A quoted-string's content (RFC 9110): `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// An IMF-fixdate (RFC 9110): `Tue, 01 Jun 2027 00:00:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(weekdays[(c.weekday ?? 1) - 1]), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }
}

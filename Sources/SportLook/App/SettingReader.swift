import Foundation

/// Reads and checks individual settings.
struct SettingReader {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) throws -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                setting: name, message: "must be a whole number in \(range.lowerBound)…\(range.upperBound) (got '\(text)')")
        }
        return value
    }

    /// A comma-separated list (empty when unset).
    func list(_ name: String) throws -> [String] {
        (try string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// An https URL (http only to a loopback host: a test's or a local fake's).
    func url(_ name: String) throws -> URL? {
        guard let text = try string(name) else { return nil }
        guard let url = URL(string: text), let host = url.host, !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && AddressRange.isLoopback(host: host))
        else { throw ConfigurationError(setting: name, message: "must be an https URL (http only to 127.0.0.1, ::1 or localhost)") }
        return url
    }

    /// A duration as seconds: `90`, `90s`, `15m`, `12h`, `30d`, or `250ms`.
    func duration(_ name: String, in range: ClosedRange<TimeInterval>) throws -> TimeInterval? {
        guard let text = try string(name) else { return nil }
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        var seconds: Double?
        if let plain = Double(text) {
            seconds = plain
        } else if let (suffix, factor) = units.first(where: { text.hasSuffix($0.0) && Double(text.dropLast($0.0.count)) != nil }) {
            seconds = Double(text.dropLast(suffix.count)).map { $0 * factor }
        }
        guard let seconds, seconds.isFinite, range.contains(seconds) else {
            throw ConfigurationError(
                setting: name,
                message:
                    "must be a duration like 90s, 15m, 12h or 30d, between \(range.lowerBound)s and \(range.upperBound)s (got '\(text)')")
        }
        return seconds
    }
}

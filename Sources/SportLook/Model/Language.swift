import Foundation

/// The languages texts the server writes (reminders, notifications) come in.
public enum Language: String, Sendable, Hashable, CaseIterable {
    case en, da

    /// The first supported language of an `Accept-Language` header (RFC 9110: tags in
    /// order of their `q`, a tag's primary subtag compared), or `nil` when none is.
    static func preferred(in header: String) -> Language? {
        let ranked = header.split(separator: ",").enumerated().compactMap { index, item -> (tag: Substring, q: Double, index: Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty else { return nil }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (Substring(tag), q, index)
        }
        .filter { $0.q > 0 }
        .sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }
        for item in ranked {
            let primary = item.tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
            if let language = Language(rawValue: primary) { return language }
        }
        return nil
    }
}

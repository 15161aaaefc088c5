import Foundation

/// A `Range` request header (RFC 9110 §14): one range of bytes; several ranges, or
/// anything unreadable, mean the whole object (as the RFC allows a server to answer).
enum ByteRange: Equatable {
    /// `bytes=first-last` or `bytes=first-`.
    case from(Int, through: Int?)
    /// `bytes=-count`: the last `count` bytes.
    case suffix(Int)

    init?(header: String) {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard bounds.count == 2 else { return nil }
        func number(_ text: String) -> Int? {
            guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(text)
        }
        if bounds[0].isEmpty {
            guard let count = number(bounds[1]) else { return nil }
            self = .suffix(count)
        } else {
            guard let first = number(bounds[0]) else { return nil }
            if bounds[1].isEmpty {
                self = .from(first, through: nil)
            } else {
                guard let last = number(bounds[1]), last >= first else { return nil }
                self = .from(first, through: last)
            }
        }
    }

    /// The bytes this range selects of an object of `size` bytes, or nil when it
    /// selects none (the answer is then 416).
    func resolve(size: Int) -> ClosedRange<Int>? {
        switch self {
        case .from(let first, let last):
            guard first < size else { return nil }
            return first...min(last ?? size - 1, size - 1)
        case .suffix(let count):
            guard count > 0, size > 0 else { return nil }
            return max(0, size - count)...(size - 1)
        }
    }
}

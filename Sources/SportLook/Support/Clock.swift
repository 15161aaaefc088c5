import Foundation

/// The moment, from a clock tests can move.
public protocol AppClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The real clock, to the millisecond (every stored instant is a whole
/// millisecond, so keyset cursors compare exactly on both engines).
public struct SystemClock: AppClock {
    public init() {}
    public func now() -> Date { Date().wholeMilliseconds }
}

extension Date {
    /// Whole milliseconds since 1970 (the spatial indexes' time tags).
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// This instant truncated to a whole millisecond.
    var wholeMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

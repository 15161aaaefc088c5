import Foundation
import SQLKit

/// Keyset paging in SQL.
enum Keyset {
    /// `(time, id)` strictly after a cursor in the given direction. Instants are
    /// whole milliseconds, so half a millisecond tells equal from different on
    /// either engine, whatever rounding the driver applied.
    static func after(time column: String, id idColumn: String, after cursor: TimeCursor?, descending: Bool) -> SQLQueryString {
        guard let cursor else { return "" }
        let low = cursor.time.addingTimeInterval(-0.0005)
        let high = cursor.time.addingTimeInterval(0.0005)
        if descending {
            return
                "AND (\(unsafeRaw: column) < \(bind: low) OR (\(unsafeRaw: column) <= \(bind: high) AND \(unsafeRaw: column) >= \(bind: low) AND \(unsafeRaw: idColumn) < \(bind: cursor.id)))"
        }
        return
            "AND (\(unsafeRaw: column) > \(bind: high) OR (\(unsafeRaw: column) <= \(bind: high) AND \(unsafeRaw: column) >= \(bind: low) AND \(unsafeRaw: idColumn) > \(bind: cursor.id)))"
    }
}

import Foundation
import SQLKit

extension SQLRow {
    /// A column's value; throws if missing or of another type.
    @inline(__always) func value<T: Decodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        if T.self == UUID.self { return try uuid(column) as! T }
        return try decode(column: column, as: T.self)
    }

    /// A nullable column's value.
    @inline(__always) func optional<T: Decodable>(_ column: String, as type: T.Type = T.self) throws -> T? {
        if T.self == UUID.self { return try decodeNil(column: column) ? nil : try uuid(column) as? T }
        return try decode(column: column, as: T?.self)
    }

    /// A UUID column, read as its text: the drivers' own UUID decoding goes
    /// through `Decoder` and `sscanf`, about 8 % of the event index's warm-up in perf.
    private func uuid(_ column: String) throws -> UUID {
        let text = try decode(column: column, as: String.self)
        guard let id = UUID(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "column \(column) is not a UUID: \(text)"))
        }
        return id
    }
}

extension SQLDatabase {
    /// `true` on PostgreSQL (for the few statements whose text differs).
    var isPostgres: Bool { dialect.name == "postgresql" }
}

/// `FOR UPDATE SKIP LOCKED` on PostgreSQL; nothing on SQLite, where the single
/// writer already serialises whoever would have contended.
struct SkipLockedClause: SQLExpression {
    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "postgresql" { serializer.write("FOR UPDATE SKIP LOCKED") }
    }
}

/// `FOR UPDATE` on PostgreSQL; nothing on SQLite (see ``SkipLockedClause``).
struct ForUpdateClause: SQLExpression {
    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "postgresql" { serializer.write("FOR UPDATE") }
    }
}

/// `FOR SHARE` on PostgreSQL, nothing on SQLite (whose single writer is the lock
/// already): a row read so inside a transaction cannot be deleted or changed by
/// another until this one ends.
struct ForShareClause: SQLExpression {
    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "postgresql" { serializer.write("FOR SHARE") }
    }
}

/// `(?, ?, …), (?, ?, …), …` binding every value of every row, for a multi-row
/// `INSERT … VALUES`.
struct BindRows: SQLExpression {
    let rows: [[any Encodable & Sendable]]
    func serialize(to serializer: inout SQLSerializer) {
        for (i, row) in rows.enumerated() {
            serializer.write(i == 0 ? "(" : ", (")
            for (j, value) in row.enumerated() {
                if j > 0 { serializer.write(", ") }
                serializer.write(bind: value)
            }
            serializer.write(")")
        }
    }
}

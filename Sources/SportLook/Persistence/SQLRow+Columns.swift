import Foundation
import SQLKit

extension SQLRow {
    /// A column's value; throws if missing or of another type.
    @inline(__always) func value<T: Decodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try decode(column: column, as: T.self)
    }

    /// A nullable column's value.
    @inline(__always) func optional<T: Decodable>(_ column: String, as type: T.Type = T.self) throws -> T? {
        try decode(column: column, as: T?.self)
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

/// `(?, ?, …)` binding every value, for `IN` lists.
struct BindList<T: Encodable & Sendable>: SQLExpression {
    let values: [T]
    func serialize(to serializer: inout SQLSerializer) {
        serializer.write("(")
        for (i, value) in values.enumerated() {
            if i > 0 { serializer.write(", ") }
            serializer.write(bind: value)
        }
        serializer.write(")")
    }
}

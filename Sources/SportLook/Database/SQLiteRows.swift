import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(CodableUtilities) import SQLKit
import Synchronization

/// The names of a statement's columns, shared by its rows, with where each is.
final class SQLiteColumns: Sendable {
    let names: [String]
    /// The first column of each name.
    let positions: [String: Int]

    init(_ statement: OpaquePointer) {
        names = Self.names(statement)
        positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func names(_ statement: OpaquePointer) -> [String] {
        (0..<sqlite3_column_count(statement)).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
    }

    /// These, or new ones if the statement's columns changed (SQLite prepares a kept
    /// statement again after the schema changed, and `SELECT *` may then differ).
    func current(_ statement: OpaquePointer) -> SQLiteColumns {
        let count = Int(sqlite3_column_count(statement))
        guard count == names.count else { return SQLiteColumns(statement) }
        for i in 0..<count {
            guard let name = sqlite3_column_name(statement, Int32(i)), names[i].withCString({ strcmp($0, name) == 0 }) else {
                return SQLiteColumns(statement)
            }
        }
        return self
    }
}

/// A row as SQLKit reads it.
struct SQLiteRow: SQLRow {
    let columns: SQLiteColumns
    let values: [SQLiteValue]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.positions[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let i = columns.positions[column] else { return true }
        return values[i] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let i = columns.positions[column] else {
            throw DecodingError.keyNotFound(
                SQLiteColumnKey(column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return try values[i].decode(D.self)
    }
}

private struct SQLiteColumnKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

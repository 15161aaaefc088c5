import Foundation
import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// A PostgreSQL connection as the stores get it: SQLKit's handle, and the
/// connection under it for statements prepared once per connection (hot paths,
/// where parsing and planning each statement again was most of PostgreSQL's work).
struct PostgresSession: SQLDatabase {
    let connection: PostgresConnection
    let sql: any SQLDatabase

    init(_ connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.sql = connection.sql(queryLogLevel: .trace, logger: logger)
    }

    var logger: Logger { sql.logger }
    var eventLoop: any EventLoop { sql.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { sql.version }
    var dialect: any SQLDialect { sql.dialect }
    var queryLogLevel: Logger.Level? { sql.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        sql.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await sql.execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// Runs a prepared statement (prepared on this connection the first time) and
    /// returns its rows as SQLKit rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [any SQLRow]
    where Statement.Row == PostgresRow {
        var rows: [any SQLRow] = []
        for try await row in try await connection.execute(statement, logger: logger) { rows.append(row.sql()) }
        return rows
    }
}

/// A value of a statement's `$n`, as both engines bind it.
enum StatementValue: Sendable {
    case uuid(UUID?)
    case text(String?)
    case integer(Int64?)
    case date(Date?)

    static func integer(_ value: Int?) -> StatementValue { .integer(value.map(Int64.init)) }

    fileprivate func append(to bindings: inout PostgresBindings) {
        switch self {
        case .uuid(let value): bindings.append(value)
        case .text(let value): bindings.append(value)
        case .integer(let value): bindings.append(value)
        case .date(let value): bindings.append(value)
        }
    }

    /// As SQLite keeps it (as SQLKit binds it there).
    var sqlite: SQLiteValue {
        switch self {
        case .uuid(let value): value.map { .text($0.text(uppercase: true)) } ?? .null
        case .text(let value): value.map { .text($0) } ?? .null
        case .integer(let value): value.map { .integer($0) } ?? .null
        case .date(let value): value.map { .real($0.timeIntervalSince1970) } ?? .null
        }
    }

    fileprivate func bind(into query: inout SQLQueryString) {
        switch self {
        case .uuid(let value): query.appendInterpolation(bind: value)
        case .text(let value): query.appendInterpolation(bind: value)
        case .integer(let value): query.appendInterpolation(bind: value)
        case .date(let value): query.appendInterpolation(bind: value)
        }
    }
}

/// SQL text with `$1`, `$2` … standing for its values, runnable on either engine
/// through SQLKit (each `$n` becomes a bound value in the engine's own syntax).
struct SQLText: Sendable {
    var text: String
    var values: [StatementValue]

    var query: SQLQueryString {
        // Bytes, not characters: this runs for every statement of a hot path.
        let bytes = Array(text.utf8)
        var query = SQLQueryString("")
        var literalStart = 0
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "$") else {
                i += 1
                continue
            }
            var end = i + 1
            var n = 0
            while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") {
                n = n * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                end += 1
            }
            guard end > i + 1 else {
                i += 1
                continue
            }
            assert(values.indices.contains(n - 1), "$\(n) has no value in \(text)")
            guard values.indices.contains(n - 1) else {
                i = end
                continue
            }
            query.appendLiteral(String(decoding: bytes[literalStart..<i], as: UTF8.self))
            values[n - 1].bind(into: &query)
            literalStart = end
            i = end
        }
        query.appendLiteral(String(decoding: bytes[literalStart...], as: UTF8.self))
        return query
    }
}

/// A statement of a hot path, one SQL text (``text``, with `$n`) for both engines:
/// prepared once per connection on PostgreSQL, run through SQLKit on SQLite.
///
/// PostgreSQL fixes each parameter's type when the statement is first prepared on a
/// connection, from the values of that run: a null takes the type of what it is
/// compared with or stored in. A value that may be null and whose column is not of
/// its own type (an `integer` column for an `Int64`) needs a `CAST` in the text.
/// Its rows are read by column name, as SQLKit's are.
protocol SharedStatement: PostgresPreparedStatement where Row == PostgresRow {
    static var text: String { get }
    /// Added to the text on PostgreSQL only (`FOR UPDATE`: SQLite's single writer is the lock).
    static var postgresSuffix: String { get }
    /// The text on PostgreSQL, where the engines' SQL differs (`BEGIN IMMEDIATE` is SQLite's).
    static var postgresText: String { get }
    /// The values of `$1`, `$2` …
    var values: [StatementValue] { get }
}

/// Each ``SharedStatement`` type's name (its prepared statement's), spelled once.
private enum StatementNames {
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.withLock({ $0[id] }) { return name }
        let name = String(reflecting: type)
        // PostgreSQL keeps the first 63 bytes of a statement's name: two sharing them would clash.
        assert(name.utf8.count <= 63, "the prepared statement name \(name) is longer than PostgreSQL keeps")
        names.withLock { $0[id] = name }
        return name
    }
}

extension SharedStatement {
    // PostgresNIO's defaults, here where PostgresNIO is imported (the stores' files that declare statements need not).
    /// The type's full name, looked up once: spelled out through reflection for every
    /// execution, it was half a percent of a PostgreSQL chat server's time.
    static var name: String { StatementNames.name(of: Self.self) }
    static var bindingDataTypes: [PostgresDataType] { [] }
    static var postgresSuffix: String { "" }
    static var postgresText: String { text + postgresSuffix }
    static var sql: String { postgresText }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { value.append(to: &bindings) }
        return bindings
    }
}

extension SQLDatabase {
    /// The statement's rows: prepared on PostgreSQL, through SQLKit on SQLite.
    func rows<Statement: SharedStatement>(_ statement: Statement) async throws -> [any SQLRow] {
        if let session = self as? PostgresSession { return try await session.rows(statement) }
        return try await rows(SQLText(text: isPostgres ? Statement.sql : Statement.text, values: statement.values))
    }

    /// The rows of SQL text with `$n` values: on SQLite kept prepared by its text
    /// (``SQLiteSession/rows(_:_:)``), elsewhere through SQLKit (not prepared).
    func rows(_ text: SQLText) async throws -> [any SQLRow] {
        if let session = self as? SQLiteSession { return try await session.rows(text.text, text.values.map(\.sqlite)) }
        return try await raw(text.query).all()
    }
}

import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(CodableUtilities) import SQLKit
import Synchronization

// MARK: SQLKit

/// An SQLite connection as SQLKit (and the stores) use it.
struct SQLiteSession: SQLDatabase {
    let connection: SQLiteConnection
    let logger: Logger
    let eventLoop: any EventLoop

    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { .trace }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        logger.trace("\(sql)")
        for row in try await connection.rows(sql, try binds.map { try SQLiteValue(encoding: $0) }) { onRow(row) }
    }

    /// Runs SQL text whose values are `$1`, `$2` … (``SharedStatement``'s form),
    /// kept prepared by that text: no serialising through SQLKit.
    func rows(_ text: String, _ values: [SQLiteValue]) async throws -> [any SQLRow] {
        try await connection.rows(text, values, dollars: true)
    }
}

/// SQLite's SQL as SQLKit writes it.
struct SQLiteDialect: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?\(position)") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "TRUE" : "FALSE") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsIfExists: Bool { true }
    var supportsDropBehavior: Bool { false }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var triggerSyntax: SQLTriggerSyntax { .init(create: [.supportsBody, .supportsCondition, .supportsUpdateColumns], drop: []) }
    var alterTableSyntax: SQLAlterTableSyntax { .init(allowsBatch: false) }
    var upsertSyntax: SQLUpsertSyntax { .standard }
    var supportsReturning: Bool { true }
    var unionFeatures: SQLUnionFeatures { [.union, .unionAll, .intersect, .except] }
    func customDataType(for dataType: SQLDataType) -> (any SQLExpression)? {
        if case .bigint = dataType { return SQLDataType.int }
        return nil
    }
}

import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(CodableUtilities) import SQLKit
import Synchronization

/// Where an SQLite database is.
enum SQLiteStorage: Sendable {
    /// In memory, on one connection, gone when it closes.
    case memory
    /// A file, created if missing.
    case file(path: String)
}

/// A value as SQLite holds it.
enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// An error SQLite answered: its extended result code and message.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }

    // The extended codes are macros Swift does not import: SQLITE_CONSTRAINT | (n << 8).
    static let constraintPrimaryKey: Int32 = 19 | (6 << 8)
    static let constraintUnique: Int32 = 19 | (8 << 8)

    /// A unique or primary key constraint refused a row (a concurrent duplicate).
    var isUniqueViolation: Bool { code == Self.constraintUnique || code == Self.constraintPrimaryKey }
}

/// One connection to an SQLite database through the system's libsqlite3, keeping
/// each statement it prepared: SQLite parses and plans a statement's text again on
/// every `prepare`, and for a chat message that was a third of its instructions.
///
/// Calls are serialised by the connection's lock (SQLite's own mutexes are off). A
/// connection with a thread pool runs its statements there, so that a long read never
/// holds a thread of the cooperative pool or an event loop; the writer has none and
/// runs them on the caller's thread, which is its own event loop.
///
/// The process links one copy of SQLite only: two copies opening one file would keep
/// separate records of its POSIX locks, and one closing the file would drop the
/// other's (sqlite.org's "How To Corrupt An SQLite Database File", 2.2.1).
final class SQLiteConnection: Sendable {
    /// A prepared statement kept for its text, and the names of its columns.
    private final class Prepared {
        let statement: OpaquePointer
        var columns: SQLiteColumns
        var lastUse: UInt64

        init(_ statement: OpaquePointer, lastUse: UInt64) {
            self.statement = statement
            self.columns = SQLiteColumns(statement)
            self.lastUse = lastUse
        }
    }

    /// Only ever touched under the lock.
    private struct State: ~Copyable, @unchecked Sendable {
        var handle: OpaquePointer?
        var prepared: [String: Prepared] = [:]
        var uses: UInt64 = 0
    }

    /// Statements kept at most; past it, the least recently used is finalised.
    static let keptStatements = 256
    /// A statement with more values than this, or longer text, is not kept.
    static let keptValues = 64
    static let keptLength = 16_384

    private let state: Mutex<State>
    private let pool: NIOThreadPool?

    private init(handle: OpaquePointer, pool: NIOThreadPool?) {
        self.state = Mutex(State(handle: handle))
        self.pool = pool
    }

    /// Opens the database; `pool`: where statements run (`nil`: on the caller's thread).
    static func open(_ storage: SQLiteStorage, pool: NIOThreadPool?) throws -> SQLiteConnection {
        var handle: OpaquePointer?
        let path = switch storage {
        case .memory: ":memory:"
        case .file(let path): path
        }
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteFailure(code: opened, message: "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        return SQLiteConnection(handle: handle, pool: pool)
    }

    /// The SQLite library's version, as `3.40.1`.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
    /// The same as a number, 3040001 for 3.40.1.
    static var libraryVersionNumber: Int { Int(sqlite3_libversion_number()) }

    /// Runs one statement (`?1`, `?2` … bound to `values`) and returns its rows.
    /// - Parameter dollars: The values are written `$1`, `$2` … (``SharedStatement``'s
    ///   text), which SQLite would number in the order they first appear: they are
    ///   written `?1`, `?2` … before the text is prepared (it is kept by its own text).
    func rows(_ sql: String, _ values: [SQLiteValue], dollars: Bool = false) async throws -> [SQLiteRow] {
        guard let pool else { return try rowsHere(sql, values, dollars: dollars) }
        return try await pool.runIfActive { try self.rowsHere(sql, values, dollars: dollars) }
    }

    /// Runs one statement on this thread.
    func rowsHere(_ sql: String, _ values: [SQLiteValue], dollars: Bool = false) throws -> [SQLiteRow] {
        try state.withLock { state in
            guard let handle = state.handle else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
            // A statement of many values (a bulk insert's rows) is used once and let go.
            let keep = values.count <= Self.keptValues && sql.utf8.count <= Self.keptLength
            let prepared = try Self.statement(for: sql, dollars: dollars, keep: keep, in: &state, handle: handle)
            let statement = prepared.statement
            defer {
                if keep {
                    sqlite3_reset(statement)
                    sqlite3_clear_bindings(statement)
                } else {
                    sqlite3_finalize(statement)
                }
            }
            let expected = Int(sqlite3_bind_parameter_count(statement))
            guard expected == values.count else {
                throw SQLiteFailure(code: SQLITE_RANGE, message: "\(values.count) values for \(expected) parameters in \(sql)")
            }
            for (i, value) in values.enumerated() {
                let bound = Self.bind(value, at: Int32(i + 1), in: statement)
                guard bound == SQLITE_OK else { throw Self.failure(handle) }
            }
            var rows: [SQLiteRow] = []
            var columns = prepared.columns
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { return rows }
                guard step == SQLITE_ROW else { throw Self.failure(handle) }
                if rows.isEmpty {
                    // After the first step: a statement SQLite prepared again (the schema changed) has done so there.
                    columns = columns.current(statement)
                    prepared.columns = columns
                }
                var row: [SQLiteValue] = []
                row.reserveCapacity(columns.names.count)
                for i in 0..<Int32(columns.names.count) { row.append(Self.column(i, of: statement)) }
                rows.append(SQLiteRow(columns: columns, values: row))
            }
        }
    }

    /// The statement prepared for `sql`, kept from before or prepared now.
    private static func statement(for sql: String, dollars: Bool, keep: Bool, in state: inout State, handle: OpaquePointer) throws -> Prepared {
        state.uses &+= 1
        if keep, let kept = state.prepared[sql] {
            kept.lastUse = state.uses
            return kept
        }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let result = (dollars ? numbered(sql) : sql).withCString { text in
            let prepared = sqlite3_prepare_v3(handle, text, -1, keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, &tail)
            // One statement per call: what follows it may only be blanks and semicolons.
            if prepared == SQLITE_OK, let rest = tail, !String(cString: rest).allSatisfy({ $0.isWhitespace || $0 == ";" }) {
                return SQLITE_MISUSE
            }
            return prepared
        }
        guard result == SQLITE_OK, let statement else {
            let error = result == SQLITE_MISUSE ? SQLiteFailure(code: result, message: "more than one statement in \(sql)") : failure(handle)
            if let statement { sqlite3_finalize(statement) }
            throw error
        }
        guard keep else { return Prepared(statement, lastUse: state.uses) }
        if state.prepared.count >= keptStatements, let oldest = state.prepared.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            sqlite3_finalize(oldest.value.statement)
            state.prepared[oldest.key] = nil
        }
        let kept = Prepared(statement, lastUse: state.uses)
        state.prepared[sql] = kept
        return kept
    }

    /// `sql` with each `$n` written `?n`.
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count)
        var previous: Character = " "
        for c in sql {
            if previous == "$", c.isASCII, c.isNumber { out.removeLast(); out.append("?") }
            out.append(c)
            previous = c
        }
        return out
    }

    private static func failure(_ handle: OpaquePointer) -> SQLiteFailure {
        SQLiteFailure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLite copies the bytes (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let n): return sqlite3_bind_int64(statement, index, n)
        case .real(let x): return sqlite3_bind_double(statement, index, x)
        case .text(var text):
            // Empty text is text, not null: a pointer to a zero byte.
            if text.isEmpty { return sqlite3_bind_text(statement, index, "", 0, transient) }
            return text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient) }
            }
        case .blob(let bytes):
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
            return bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
        }
    }

    private static func column(_ i: Int32, of statement: OpaquePointer) -> SQLiteValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, i) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, i))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(statement, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, i)))))
        default: return .null
        }
    }

    /// Finalises the kept statements and closes the connection; later calls throw.
    func close() {
        state.withLock { state in
            for kept in state.prepared.values { sqlite3_finalize(kept.statement) }
            state.prepared = [:]
            if let handle = state.handle { sqlite3_close_v2(handle) }
            state.handle = nil
        }
    }

    deinit {
        close()
    }
}

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
            guard let name = sqlite3_column_name(statement, Int32(i)), names[i].withCString({ strcmp($0, name) == 0 }) else { return SQLiteColumns(statement) }
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
            throw DecodingError.keyNotFound(SQLiteColumnKey(column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
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

// MARK: Values to and from Swift

extension SQLiteValue {
    /// A bound value as SQLite keeps it, as SQLiteNIO stored it before: a date as
    /// seconds since 1970 (real), a UUID as its upper-case text, a Boolean as 0 or 1,
    /// anything else that is not a single value as JSON text.
    init(encoding value: any Encodable) throws {
        switch value {
        case let text as String: self = .text(text)
        case let n as Int: self = .integer(Int64(n))
        case let n as Int64: self = .integer(n)
        case let x as Double: self = .real(x)
        case let date as Date: self = .real(date.timeIntervalSince1970)
        case let id as UUID: self = .text(id.text(uppercase: true))
        case let flag as Bool: self = .integer(flag ? 1 : 0)
        case let data as Data: self = .blob([UInt8](data))
        default:
            let encoder = SQLiteValueEncoder()
            do {
                try value.encode(to: encoder)
                guard let encoded = encoder.value else { throw SQLCodingError.unsupportedOperation("missing value", codingPath: []) }
                self = encoded
            } catch is SQLCodingError {
                self = .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
            }
        }
    }

    /// The value as `D`, with the conversions SQLiteNIO made: a number read as text
    /// gives its digits; an integer reads as a real; a date reads from seconds since
    /// 1970 or ISO 8601 text; other types through their `Decodable` single value, or
    /// from JSON text.
    func decode<D: Decodable>(_ type: D.Type) throws -> D {
        if D.self == String.self, let text = string { return text as! D }
        if D.self == Int.self, case .integer(let n) = self { return Int(n) as! D }
        if D.self == Int64.self, case .integer(let n) = self { return n as! D }
        if D.self == Double.self, let x = real { return x as! D }
        if D.self == Date.self, let date { return date as! D }
        if D.self == Bool.self, case .integer(let n) = self, n == 0 || n == 1 { return (n == 1) as! D }
        if D.self == UUID.self, case .text(let text) = self, let id = UUID(text: text) { return id as! D }
        if D.self == Data.self, case .blob(let bytes) = self { return Data(bytes) as! D }
        if [String.self, Int.self, Int64.self, Double.self, Date.self, Bool.self, UUID.self, Data.self].contains(where: { $0 == D.self }) {
            throw DecodingError.typeMismatch(D.self, .init(codingPath: [], debugDescription: "cannot read \(D.self) from SQLite's \(self)"))
        }
        do {
            return try D(from: SQLiteValueDecoder(value: self))
        } catch is SQLCodingError {
            let json: Data = switch self {
            case .text(let text): Data(text.utf8)
            case .blob(let bytes): Data(bytes)
            case .integer(let n): Data(String(n).utf8)
            case .real(let x): Data(String(x).utf8)
            case .null: Data()
            }
            return try JSONDecoder().decode(D.self, from: json)
        }
    }

    private var string: String? {
        switch self {
        case .text(let text): text
        case .integer(let n): String(n)
        case .real(let x): String(x)
        case .blob, .null: nil
        }
    }

    private var real: Double? {
        switch self {
        case .real(let x): x
        case .integer(let n): Double(n)
        default: nil
        }
    }

    private var date: Date? {
        let seconds: Double
        switch self {
        case .real(let x): seconds = x
        case .integer(let n): seconds = Double(n)
        case .text(let text):
            return (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: .iso8601.dateTimeSeparator(.space)))
        default: return nil
        }
        // To the microsecond from 2001, as SQLiteNIO read them: a date read back equals the one written.
        let sinceReference = seconds - Date.timeIntervalBetween1970AndReferenceDate
        return Date(timeIntervalSinceReferenceDate: (sinceReference * 1e6).rounded() / 1e6)
    }
}

/// Takes the single value a bound `Encodable` gives (an optional, a raw-value enum).
private final class SQLiteValueEncoder: Encoder, SingleValueEncodingContainer {
    var value: SQLiteValue?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<K: CodingKey>(keyedBy: K.Type) -> KeyedEncodingContainer<K> { .invalid(at: codingPath) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { .invalid(at: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { self.value = .integer(Int64(truncatingIfNeeded: value)) }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { self.value = .integer(Int64(truncatingIfNeeded: value)) }
    func encode(_ value: some Encodable) throws { self.value = try SQLiteValue(encoding: value) }
}

/// Gives a `Decodable` its single value (an optional, a raw-value enum).
private struct SQLiteValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLiteValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<K: CodingKey>(keyedBy: K.Type) throws -> KeyedDecodingContainer<K> {
        throw SQLCodingError.unsupportedOperation("keyed container", codingPath: codingPath)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SQLCodingError.unsupportedOperation("unkeyed container", codingPath: codingPath)
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value.decode(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try value.decode(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try value.decode(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try value.decode(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { Float(try value.decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try value.decode(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.decode(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard let n = I(exactly: try value.decode(Int64.self)) else {
            throw DecodingError.typeMismatch(I.self, .init(codingPath: codingPath, debugDescription: "\(value) does not fit in \(I.self)"))
        }
        return n
    }
}

// MARK: SQLKit

/// An SQLite connection as SQLKit (and the stores) use it.
struct SQLiteSession: SQLDatabase {
    let connection: SQLiteConnection
    let logger: Logger
    let eventLoop: any EventLoop

    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { .trace }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
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

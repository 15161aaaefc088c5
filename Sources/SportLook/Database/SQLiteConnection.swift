import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(CodableUtilities) import SQLKit
import Synchronization

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
        let path =
            switch storage {
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
    private static func statement(for sql: String, dollars: Bool, keep: Bool, in state: inout State, handle: OpaquePointer) throws
        -> Prepared
    {
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
            let error =
                result == SQLITE_MISUSE ? SQLiteFailure(code: result, message: "more than one statement in \(sql)") : failure(handle)
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
            if previous == "$", c.isASCII, c.isNumber {
                out.removeLast()
                out.append("?")
            }
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

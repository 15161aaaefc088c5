import Foundation
import Logging
import NIOPosix
import SQLKit
import Testing

@testable import SportLook

/// Our SQLite connection keeps every statement it prepared: a kept statement must
/// answer each run with that run's values, survive an error and a schema change, and
/// values must be stored as they were before (the stores read what older versions wrote).
@Suite("SQLite connection")
struct SQLiteConnectionTests {
    static func session() throws -> SQLiteSession {
        SQLiteSession(
            connection: try SQLiteConnection.open(.memory, pool: nil), logger: Logger(label: "test"),
            eventLoop: MultiThreadedEventLoopGroup.singleton.any())
    }

    @Test("values keep their kind: empty text is text, an empty blob a blob, a date its microseconds, a UUID its upper-case text")
    func values() async throws {
        let sql = try Self.session()
        try await sql.raw("CREATE TABLE t (n INTEGER PRIMARY KEY, v)").run()
        let id = UUID()
        let date = Date(timeIntervalSince1970: 1_764_000_000.123456)
        let cases: [(any Encodable & Sendable, String)] = [
            ("", "text"), ("Ça va? 🏐", "text"), (Int64.max, "integer"), (-1, "integer"), (2.5, "real"), (true, "integer"),
            (Data(), "blob"), (Data([0, 1, 255]), "blob"), (id, "text"), (date, "real"), (String?.none, "null"),
        ]
        for (n, (value, kind)) in cases.enumerated() {
            try await sql.raw("INSERT INTO t (n, v) VALUES (\(bind: n), \(bind: value))").run()
            let row = try #require(try await sql.raw("SELECT v, typeof(v) AS kind FROM t WHERE n = \(bind: n)").first())
            #expect(try row.decode(column: "kind", as: String.self) == kind, "\(value)")
        }
        func read<T: Decodable>(_ n: Int, as type: T.Type) async throws -> T {
            try #require(try await sql.raw("SELECT v FROM t WHERE n = \(bind: n)").first()).decode(column: "v", as: T.self)
        }
        #expect(try await read(0, as: String.self) == "")
        #expect(try await read(1, as: String.self) == "Ça va? 🏐")
        #expect(try await read(2, as: Int64.self) == Int64.max)
        #expect(try await read(3, as: Int.self) == -1)
        #expect(try await read(4, as: Double.self) == 2.5)
        #expect(try await read(5, as: Bool.self) == true)
        #expect(try await read(6, as: Data.self) == Data())
        #expect(try await read(7, as: Data.self) == Data([0, 1, 255]))
        #expect(try await read(8, as: UUID.self) == id)
        #expect(try await read(8, as: String.self) == id.uuidString)
        #expect(try await read(9, as: Date.self) == date)
        #expect(try await read(10, as: String?.self) == nil)
        #expect(try await read(3, as: String.self) == "-1")
        #expect(try await read(3, as: Double.self) == -1)
        // Text that is no integer is refused, not read as 0; a raw-value enum goes through its single value.
        await #expect(throws: DecodingError.self) { _ = try await read(1, as: Int.self) }
        await #expect(throws: DecodingError.self) { _ = try await read(0, as: Kind.self) }
        try await sql.raw("INSERT INTO t (n, v) VALUES (20, \(bind: Kind.going))").run()
        #expect(try await read(20, as: Kind.self) == .going)
        #expect(try await read(20, as: String.self) == "going")
    }

    @Test("a UUID's text is Foundation's, in either case")
    func uuidText() {
        for id in (0..<1_000).map({ _ in UUID() }) + [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ] {
            #expect(id.text(uppercase: true) == id.uuidString)
            #expect(id.lowercased == id.uuidString.lowercased())
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.lowercased) == id)
        }
        // Read as Foundation reads them: what it refuses is refused (blanks aside: its
        // sscanf skips them inside the text, where this refuses them).
        let id = UUID().uuidString
        for text in [
            id, id.lowercased(), "", "{\(id)}", String(id.dropLast()), id + "0", id.replacingOccurrences(of: "-", with: "_"),
            "g" + id.dropFirst(), id.replacingOccurrences(of: "-", with: ""), "é" + id.dropFirst(2),
        ] {
            #expect(UUID(text: text) == UUID(uuidString: text), "\(text)")
        }
        #expect(UUID(text: " " + id.dropFirst()) == nil)
    }

    enum Kind: String, Codable, Sendable { case going, waitlisted }

    @Test("a kept statement answers each run with that run's values, also after a run that failed")
    func keptStatements() async throws {
        let sql = try Self.session()
        try await sql.raw("CREATE TABLE t (n INTEGER PRIMARY KEY, square INTEGER NOT NULL)").run()
        for n in 0..<500 { try await sql.raw("INSERT INTO t (n, square) VALUES (\(bind: n), \(bind: n * n))").run() }
        for n in stride(from: 499, through: 0, by: -7) {
            let row = try #require(try await sql.raw("SELECT square FROM t WHERE n = \(bind: n)").first())
            #expect(try row.decode(column: "square", as: Int.self) == n * n)
        }
        // The same INSERT refused for a duplicate, then kept and run again with new values.
        let error = await #expect(throws: SQLiteFailure.self) {
            try await sql.raw("INSERT INTO t (n, square) VALUES (\(bind: 3), \(bind: 0))").run()
        }
        #expect(error.map { Database.isUniqueViolation($0) } == true)
        try await sql.raw("INSERT INTO t (n, square) VALUES (\(bind: 500), \(bind: 250_000))").run()
        let count = try #require(try await sql.raw("SELECT count(*) AS n, sum(square) AS total FROM t").first())
        #expect(try count.decode(column: "n", as: Int.self) == 501)
        #expect(try count.decode(column: "total", as: Int.self) == (0...500).reduce(0) { $0 + $1 * $1 })
        // A statement left half read (first()) is reset: the next run starts from its first row again.
        let rows = try await sql.raw("SELECT n FROM t ORDER BY n LIMIT 3").all().map { try $0.decode(column: "n", as: Int.self) }
        #expect(rows == [0, 1, 2])
    }

    @Test("past the statements kept, the least recently used are let go and prepared again when needed")
    func boundedStatements() async throws {
        let sql = try Self.session()
        for n in 0..<(SQLiteConnection.keptStatements + 50) {
            let row = try #require(try await sql.raw("SELECT \(unsafeRaw: String(n)) + \(bind: 1) AS v").first())
            #expect(try row.decode(column: "v", as: Int.self) == n + 1)
        }
        let row = try #require(try await sql.raw("SELECT 0 + \(bind: 41) AS v").first())
        #expect(try row.decode(column: "v", as: Int.self) == 41)
        // A statement of many values is run and let go, twice alike.
        let many: [[any Encodable & Sendable]] = (1...200).map { [$0] }
        for _ in 0..<2 {
            let sum = try #require(
                try await sql.raw("SELECT count(*) AS n, sum(column1) AS total FROM (VALUES \(BindRows(rows: many)))").first())
            #expect(try sum.decode(column: "n", as: Int.self) == 200)
            #expect(try sum.decode(column: "total", as: Int.self) == 20_100)
        }
    }

    @Test("a kept SELECT * shows a column added after it was prepared")
    func schemaChange() async throws {
        let sql = try Self.session()
        try await sql.raw("CREATE TABLE t (a INTEGER)").run()
        try await sql.raw("INSERT INTO t (a) VALUES (1)").run()
        #expect(try #require(try await sql.raw("SELECT * FROM t").first()).allColumns == ["a"])
        try await sql.raw("ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'new'").run()
        let row = try #require(try await sql.raw("SELECT * FROM t").first())
        #expect(row.allColumns == ["a", "b"])
        #expect(try row.decode(column: "b", as: String.self) == "new")
    }

    @Test("a shared statement's $n are its values by number, wherever they first appear")
    func dollarNumbers() async throws {
        let sql = try Self.session()
        let rows = try await sql.rows("SELECT $2 AS b, $1 AS a, $2 + $1 AS sum, '$1' AS literal", [.integer(1), .integer(20)])
        let row = try #require(rows.first)
        #expect(try row.decode(column: "a", as: Int.self) == 1)
        #expect(try row.decode(column: "b", as: Int.self) == 20)
        #expect(try row.decode(column: "sum", as: Int.self) == 21)
        // SQLKit's text with the same values gives the same row.
        let viaKit = try #require(try await sql.raw("SELECT \(bind: 20) AS b, \(bind: 1) AS a").first())
        #expect(try viaKit.decode(column: "b", as: Int.self) == 20)
        #expect(SQLiteConnection.numbered("a = $1 AND b = $12 AND c = '$' AND d = $x") == "a = ?1 AND b = ?12 AND c = '$' AND d = $x")
    }

    @Test("what SQLite refuses is an error, never a crash: two statements at once, too few values, bad SQL, a closed connection")
    func refusals() async throws {
        let connection = try SQLiteConnection.open(.memory, pool: nil)
        #expect(throws: SQLiteFailure.self) { try connection.rowsHere("SELECT 1; SELECT 2", []) }
        #expect(try connection.rowsHere("SELECT 1 AS one;  ", []).count == 1)
        #expect(throws: SQLiteFailure.self) { try connection.rowsHere("SELECT ?1 + ?2", [.integer(1)]) }
        #expect(throws: SQLiteFailure.self) { try connection.rowsHere("SELEKT 1", []) }
        connection.close()
        #expect(throws: SQLiteFailure.self) { try connection.rowsHere("SELECT 1", []) }
    }
}

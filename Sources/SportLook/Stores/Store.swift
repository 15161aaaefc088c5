import SQLKit

/// A store of one table group. Each of its statements is written once, taking the
/// caller's transaction (`on: sql`) when there is one; given none, a read runs on its
/// own (``reading(on:_:)``).
protocol Store: Sendable {
    var database: Database { get }
}

extension Store {
    /// Ids one read looks up at most: a statement's values stay far below either
    /// engine's bound, and a slow read fails only its own.
    static var idsPerRead: Int { 500 }

    /// `text` for a LIKE pattern with `ESCAPE '\'`: its `\`, `%` and `_` match themselves
    /// (PostgreSQL reads a backslash in a pattern as an escape, SQLite does not).
    static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Runs `body` on `sql` (the caller's transaction), or as a read of its own.
    func reading<R: Sendable>(on sql: (any SQLDatabase)?, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    {
        if let sql { return try await body(sql) }
        return try await database.read(body)
    }
}

import Foundation
import SQLKit

/// Runs a write transaction with the changes it records: announced to other
/// instances inside it (PostgreSQL delivers them only if it commits), and handed to
/// this instance's change feed right after COMMIT.
struct Writer: Sendable {
    let database: Database
    let feed: ChangeFeed

    /// Runs `body` in a transaction. Its changes reach this instance's handlers
    /// right after COMMIT, in the transaction's own task: also when the caller was
    /// answered 503 at the deadline and the commit came later, and never when it
    /// did not commit. So memory follows the database.
    func callAsFunction<R: Sendable>(
        file: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (any SQLDatabase, inout ChangeSet) async throws -> R
    ) async throws -> R {
        let (result, _) = try await database.transaction(file: file, line: line, afterCommit: { [feed] in feed.committed($0.1) }) {
            [feed] sql in
            var changes = ChangeSet()
            let result = try await body(sql, &changes)
            try await feed.announce(changes, on: sql)
            return (result, changes)
        }
        return result
    }

    /// Runs `body`, one statement that is atomic on its own and puts its changes on the
    /// bus itself, without BEGIN and COMMIT (``Database/write(file:line:_:)``): its
    /// changes reach this instance's handlers once it has run, in the statement's own
    /// task, as a transaction's do after COMMIT. Changes it did not announce are
    /// announced after it.
    func single<R: Sendable>(
        file: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (any SQLDatabase, inout ChangeSet) async throws -> R
    ) async throws -> R {
        try await database.write(file: file, line: line) { [feed] sql in
            var changes = ChangeSet()
            let result = try await body(sql, &changes)
            try await feed.announce(changes, on: sql)
            feed.committed(changes)
            return result
        }
    }
}

import Foundation
import Logging
import SQLKit
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("SQLite's own connections", .timeLimit(.minutes(10)))
struct SQLiteStoreTests {
    @Test("the log is copied back into the database file beside the writer, long before SQLite's own threshold")
    func checkpoints() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        // A minute for each statement, not the server's five seconds: what is checked is
        // where the rows end up, and the whole suite starting at once on two cores once
        // kept a commit waiting past five seconds.
        let database = try await Database.open(.sqliteFile(path), timeout: 60, logger: Logger(label: "test"))
        @Sendable func fileSize() throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        try await database.transaction { sql in try await sql.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").run() }
        // 200 rows of 4 KB: about 1 MB of log, a sixtieth of what a commit would checkpoint by itself.
        let before = try fileSize()
        let body = String(repeating: "x", count: 4_096)
        for n in 0..<200 {
            try await database.transaction { sql in
                try await sql.raw("INSERT INTO notes (id, body) VALUES (\(bind: n), \(bind: body))").run()
            }
        }
        do {
            try await eventually("the rows in the database file itself") { try fileSize() >= before + 200 * 4_096 }
            let count = try await database.read { sql in
                try await sql.raw("SELECT count(*) AS n FROM notes").first()?.decode(column: "n", as: Int.self)
            }
            #expect(count == 200)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    struct Refused: Error, Equatable { var n: Int }
    final class Seen: Sendable { let numbers = Mutex<Set<Int>>([]) }

    /// How transaction `n` of the queued test ends.
    enum Ending { case commits, throwsAfterWriting, failsOnDuplicate, throwsBeforeWriting }
    static func ending(_ n: Int) -> Ending {
        if n % 4 == 0 { return .throwsAfterWriting }
        if n % 7 == 3 { return .failsOnDuplicate }
        if n % 9 == 5 { return .throwsBeforeWriting }
        return .commits
    }

    @Test("transactions queued for the writer each commit or fail alone; one given up while it waits never runs", arguments: engines)
    func queuedTransactions(_ engine: DatabaseEngine) async throws {
        try await withEmptyDatabase(engine) { database in
            try await database.transaction { sql in
                try await sql.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").run()
                try await sql.raw("INSERT INTO notes (id, body) VALUES (-1, 'there first')").run()
            }
            // One transaction holds the writer until the others wait behind it (on
            // SQLite, in the order they came; PostgreSQL runs them side by side).
            let gate = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await database.transaction { sql in
                    try await sql.raw("INSERT INTO notes (id, body) VALUES (-2, 'holder')").run()
                    for await _ in gate.stream { break }
                }
            }
            let committed = Seen()
            let count = 45
            var tasks: [Task<Int, any Error>] = []
            for n in 0..<count {
                tasks.append(
                    Task {
                        try await database.transaction(afterCommit: { (n: Int) in committed.numbers.withLock { _ = $0.insert(n) } }) {
                            sql in
                            if Self.ending(n) == .throwsBeforeWriting { throw Refused(n: n) }
                            try await sql.raw("INSERT INTO notes (id, body) VALUES (\(bind: n), 'written')").run()
                            switch Self.ending(n) {
                            case .throwsAfterWriting: throw Refused(n: n)
                            case .failsOnDuplicate: try await sql.raw("INSERT INTO notes (id, body) VALUES (-1, 'again')").run()
                            case .commits, .throwsBeforeWriting: break
                            }
                            return n
                        }
                    })
                if engine == .sqlite {
                    try await eventually("transaction \(n) waiting") { database.writesWaitingOrRunning == n + 2 }
                }
            }
            // On SQLite a caller that gives up while its transaction waits leaves the queue: its body never runs.
            let leaving = Task {
                try await database.transaction { sql in try await sql.raw("INSERT INTO notes (id, body) VALUES (1000, 'left')").run() }
            }
            if engine == .sqlite { try await eventually("the leaving one waiting") { database.writesWaitingOrRunning == count + 2 } }
            leaving.cancel()
            gate.continuation.finish()
            try await holder.value
            var answered: Set<Int> = []
            for (n, task) in tasks.enumerated() {
                switch Self.ending(n) {
                case .commits:
                    #expect(try await task.value == n)
                    answered.insert(n)
                case .throwsAfterWriting, .throwsBeforeWriting:
                    await #expect(throws: Refused(n: n)) { try await task.value }
                case .failsOnDuplicate:
                    do {
                        _ = try await task.value
                        Issue.record("transaction \(n) stored a duplicate key")
                    } catch {
                        #expect(Database.isUniqueViolation(error), "\(error)")
                    }
                }
            }
            _ = await leaving.result
            let rows = try await database.read { sql in
                try await sql.raw("SELECT id FROM notes ORDER BY id").all().map { try $0.decode(column: "id", as: Int.self) }
            }
            // Exactly the writes of those that committed, each told so once, and its afterCommit run.
            #expect(rows.filter { $0 >= 0 && $0 < 1000 } == answered.sorted())
            #expect(rows.prefix(2) == [-2, -1])
            #expect(committed.numbers.withLock { $0 } == answered)
            #expect(answered.count == (0..<count).filter { Self.ending($0) == .commits }.count)
            if engine == .sqlite {
                #expect(!rows.contains(1000))
                await #expect(throws: CancellationError.self) { try await leaving.value }
            }
            try await eventually("no write left counted") { database.writesWaitingOrRunning == 0 }
        }
    }
}

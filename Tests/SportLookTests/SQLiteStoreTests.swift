import Foundation
import Logging
import SQLKit
import Testing
@testable import SportLook

@Suite("SQLite's own connections", .timeLimit(.minutes(2)))
struct SQLiteStoreTests {
    @Test("the log is copied back into the database file beside the writer, long before SQLite's own threshold")
    func checkpoints() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let database = try await Database.open(.sqliteFile(path), logger: Logger(label: "test"))
        @Sendable func fileSize() throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        try await database.transaction { sql in try await sql.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").run() }
        // 200 rows of 4 KB: about 1 MB of log, a sixtieth of what a commit would checkpoint by itself.
        let before = try fileSize()
        let body = String(repeating: "x", count: 4_096)
        for n in 0..<200 {
            try await database.transaction { sql in try await sql.raw("INSERT INTO notes (id, body) VALUES (\(bind: n), \(bind: body))").run() }
        }
        do {
            try await eventually("the rows in the database file itself") { try fileSize() >= before + 200 * 4_096 }
            let count = try await database.read { sql in try await sql.raw("SELECT count(*) AS n FROM notes").first()?.decode(column: "n", as: Int.self) }
            #expect(count == 200)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}

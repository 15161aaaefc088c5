import Foundation
import SQLKit

/// The sports catalogue in the database: seeded from `Seeds/sports.json`, read at start.
enum SportStore {
    private struct Entry: Decodable {
        var slug: String
        var name: String
    }

    /// Upserts the catalogue file into the database (idempotent).
    /// - Returns: The number of sports in the file.
    @discardableResult
    static func seed(_ database: Database, from file: URL) async throws -> Int {
        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: file))
        guard entries.count <= 64 else {
            throw MigrationError(description: "\(file.lastPathComponent) lists \(entries.count) sports; at most 64 fit the index masks")
        }
        guard Set(entries.map(\.slug)).count == entries.count else {
            throw MigrationError(description: "\(file.lastPathComponent) repeats a slug")
        }
        try await database.transaction { sql in
            for (bit, entry) in entries.enumerated() {
                try await sql.raw(
                    """
                    INSERT INTO sports (slug, name, bit) VALUES (\(bind: entry.slug), \(bind: entry.name), \(bind: bit))
                    ON CONFLICT (slug) DO UPDATE SET name = excluded.name
                    """
                ).run()
            }
        }
        return entries.count
    }

    /// Reads the catalogue from the database.
    static func load(_ database: Database) async throws -> SportCatalog {
        try await database.read { sql in
            SportCatalog(
                try await sql.raw("SELECT slug, name, bit FROM sports ORDER BY bit").all().map {
                    Sport(slug: try $0.value("slug"), name: try $0.value("name"), bit: try $0.value("bit"))
                })
        }
    }
}

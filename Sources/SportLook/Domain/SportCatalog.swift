import Foundation
import SQLKit

/// The sports people can play, from `Seeds/sports.json`, kept in memory.
///
/// Each sport has a bit (its position in the file) used by the spatial indexes'
/// category masks, so the catalogue holds at most 64 sports and new ones are
/// appended to the file.
public struct SportCatalog: Sendable {
    /// The sports, in catalogue order.
    public let all: [Sport]
    private let bySlug: [String: Sport]

    init(_ sports: [Sport]) {
        all = sports.sorted { $0.bit < $1.bit }
        bySlug = Dictionary(uniqueKeysWithValues: sports.map { ($0.slug, $0) })
    }

    /// The sport with this slug.
    public subscript(slug: String) -> Sport? { bySlug[slug] }

    /// The mask of a set of sports.
    func mask(of slugs: some Sequence<String>) -> UInt64 {
        slugs.reduce(0) { mask, slug in bySlug[slug].map { mask | (1 << UInt64($0.bit)) } ?? mask }
    }

    /// The slugs whose bits are in `mask`, in catalogue order.
    func slugs(in mask: UInt64) -> [String] {
        all.filter { mask & (1 << UInt64($0.bit)) != 0 }.map(\.slug)
    }

    private struct Entry: Decodable {
        var slug: String
        var name: String
    }

    /// Upserts the catalogue file into the database (idempotent).
    /// - Returns: The number of sports in the file.
    @discardableResult
    static func seed(_ database: Database, from file: URL) async throws -> Int {
        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: file))
        guard entries.count <= 64 else { throw MigrationError(description: "\(file.lastPathComponent) lists \(entries.count) sports; at most 64 fit the index masks") }
        guard Set(entries.map(\.slug)).count == entries.count else { throw MigrationError(description: "\(file.lastPathComponent) repeats a slug") }
        try await database.transaction { sql in
            for (bit, entry) in entries.enumerated() {
                try await sql.raw("""
                    INSERT INTO sports (slug, name, bit) VALUES (\(bind: entry.slug), \(bind: entry.name), \(bind: bit))
                    ON CONFLICT (slug) DO UPDATE SET name = excluded.name
                    """).run()
            }
        }
        return entries.count
    }

    /// Reads the catalogue from the database.
    static func load(_ database: Database) async throws -> SportCatalog {
        try await database.read { sql in
            SportCatalog(try await sql.raw("SELECT slug, name, bit FROM sports ORDER BY bit").all().map {
                Sport(slug: try $0.value("slug"), name: try $0.value("name"), bit: try $0.value("bit"))
            })
        }
    }
}

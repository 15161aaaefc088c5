import Foundation
import SQLKit

/// Reading people for the people index: all the discoverable ones, and those changed lately.
extension AccountStore {
    /// Every discoverable person with a location, in pages of 5,000 handed to `each`.
    static func discoverablePeople(of database: Database, each: ([User]) -> Void) async throws {
        var after: UUID?
        while true {
            let page: [User] = try await database.read(timeout: Database.bulkReadTimeout) { [after] sql in
                let from: SQLQueryString = after.map { "AND id > \(bind: $0)" } ?? ""
                let rows = try await sql.raw(
                    """
                    SELECT \(unsafeRaw: userColumns) FROM users
                    WHERE discoverable = \(bind: true) AND lat IS NOT NULL AND limited_at IS NULL AND suspended_at IS NULL \(from) ORDER BY id LIMIT 5000
                    """
                ).all()
                let ids: [UUID] = try rows.map { try $0.value("id") }
                var sportsOf: [UUID: [String]] = [:]
                let levelsOf = try await PlayerStore.levels(of: ids, on: sql)
                if !ids.isEmpty {
                    for row in try await sql.raw(
                        "SELECT user_id, sport_slug FROM user_sports WHERE user_id IN (\(binds: ids)) ORDER BY sport_slug"
                    ).all() {
                        sportsOf[try row.value("user_id"), default: []].append(try row.value("sport_slug"))
                    }
                }
                return try rows.map { row in
                    try decodeUser(row, sports: sportsOf[try row.value("id")] ?? [], levels: levelsOf[try row.value("id")] ?? [:])
                }
            }
            each(page)
            guard page.count == 5000, let last = page.last else { return }
            after = last.id
        }
    }

    /// People whose rows changed at or after `since`.
    func updated(since: Date) async throws -> [UUID] {
        try await database.read { sql in
            try await sql.raw("SELECT id FROM users WHERE updated_at >= \(bind: since)").all().map { try $0.value("id") }
        }
    }
}

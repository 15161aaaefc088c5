import Foundation

/// A game's ledger, or every game's of a weekly series, as CSV for a spreadsheet: one
/// line per row, in the order rows were added, amounts in the currency's units and in
/// minor units. For the organiser alone.
extension Ledger {
    static let csvHeader = "game_id,game,starts_at,seq,at,person_id,person,kind,reason,amount,amount_minor,currency,means,recorded_by,note"

    /// `GET /v1/events/{id}/ledger.csv`.
    func csv(event id: UUID, for organiser: UUID) async throws -> String {
        try await access.require(id, for: organiser)
        return try await database.read { [store, events] sql in
            guard let event = try await events.event(id, on: sql) else { throw DomainError.notFound("event") }
            guard event.organiserID == organiser else { throw DomainError.forbidden("Only the organiser keeps this game's ledger.") }
            return Self.csv(try await store.entries(event: id, on: sql), games: [id: event])
        }
    }

    /// `GET /v1/series/{id}/ledger.csv`: every game the series made.
    func csv(series id: UUID, for organiser: UUID) async throws -> String {
        try await access.requireSeries(id, for: organiser)
        return try await database.read { [store, events, access] sql in
            guard let series = try await access.seriesStore.series(id, on: sql) else { throw DomainError.notFound("series") }
            guard series.organiserID == organiser else { throw DomainError.forbidden("Only the organiser keeps this series' ledger.") }
            let entries = try await store.entries(ofGamesIn: .series, id, on: sql)
            var games: [UUID: Event] = [:]
            for gameID in Set(entries.map(\.eventID)) { games[gameID] = try await events.event(gameID, on: sql) }
            return Self.csv(entries, games: games)
        }
    }

    static func csv(_ entries: [LedgerEntry], games: [UUID: Event]) -> String {
        var lines = [csvHeader]
        for e in entries {
            let game = games[e.eventID]
            let fields: [String] = [
                e.eventID.lowercased, game?.title ?? "", game.map { RFC3339.format($0.startsAt) } ?? "", String(e.seq),
                RFC3339.format(e.at),
                e.user.id.lowercased, e.user.name, e.kind.rawValue, e.reason.rawValue, Price.decimal(e.amount, currency: e.currency),
                String(e.amount), e.currency, e.means?.rawValue ?? "", e.recordedBy?.name ?? "", e.note,
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A field quoted when it must be (RFC 4180), and text a spreadsheet would run as a
    /// formula (`=`, `+`, `-`, `@` first) made plain with a leading apostrophe.
    static func csvField(_ text: String) -> String {
        var value = text
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Double(value) == nil {
            value = "'" + value
        }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

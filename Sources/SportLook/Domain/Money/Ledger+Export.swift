import Foundation

/// A game's ledger, every game's of a weekly series, or a group's dues, as CSV for a
/// spreadsheet: one line per row, in the order rows were added, amounts in the currency's
/// units and in minor units. For the organiser (a group's owner and admins) alone.
extension Ledger {
    static let csvHeader = "game_id,game,starts_at,seq,at,person_id,person,kind,reason,amount,amount_minor,currency,means,recorded_by,note"

    /// `GET /v1/events/{id}/ledger.csv`.
    func csv(event id: UUID, for organiser: UUID) async throws -> String {
        try await access.require(id, for: organiser)
        return try await database.read { [store, events] sql in
            guard let event = try await events.event(id, on: sql) else { throw DomainError.notFound(.event) }
            guard event.organiserID == organiser else {
                throw DomainError.forbidden(Sentence("Only the organiser keeps this game's ledger."))
            }
            return Self.csv(try await store.entries(event: id, on: sql), games: [id: event])
        }
    }

    /// `GET /v1/series/{id}/ledger.csv`: every game the series made.
    func csv(series id: UUID, for organiser: UUID) async throws -> String {
        try await access.requireSeries(id, for: organiser)
        return try await database.read { [store, events, access] sql in
            guard let series = try await access.seriesStore.series(id, on: sql) else { throw DomainError.notFound(.series) }
            guard series.organiserID == organiser else {
                throw DomainError.forbidden(Sentence("Only the organiser keeps this series' ledger."))
            }
            let entries = try await store.entries(ofGamesIn: .series, id, on: sql)
            var games: [UUID: Event] = [:]
            for gameID in Set(entries.compactMap(\.account.eventID)) { games[gameID] = try await events.event(gameID, on: sql) }
            return Self.csv(entries, games: games)
        }
    }

    static let groupCSVHeader =
        "group_id,group,period,seq,at,person_id,person,kind,reason,amount,amount_minor,currency,means,recorded_by,note"

    /// `GET /v1/groups/{id}/ledger.csv`: the group's dues, for its owner and admins.
    func csv(group id: UUID, for user: UUID) async throws -> String {
        try await database.read { [store, groups] sql in
            guard let group = try await groups.group(id, on: sql), !group.isDeleted else { throw DomainError.notFound(.group) }
            _ = try Self.keeper(try await groups.standing(of: user, in: id, on: sql).role)
            return Self.csv(try await store.entries(.group(id), on: sql), header: Self.groupCSVHeader) { entry in
                [id.lowercased, group.name, entry.period ?? ""]
            }
        }
    }

    static func csv(_ entries: [LedgerEntry], games: [UUID: Event]) -> String {
        csv(entries, header: csvHeader) { e in
            let game = e.account.eventID.flatMap { games[$0] }
            return [e.account.eventID?.lowercased ?? "", game?.title ?? "", game.map { RFC3339.format($0.startsAt) } ?? ""]
        }
    }

    /// One line per row: what `owner` says of the row's game or group, then the row.
    private static func csv(_ entries: [LedgerEntry], header: String, owner: (LedgerEntry) -> [String]) -> String {
        var lines = [header]
        for e in entries {
            let fields: [String] =
                owner(e) + [
                    String(e.seq), RFC3339.format(e.at), e.user.id.lowercased, e.user.name, e.kind.rawValue, e.reason.rawValue,
                    Price.decimal(e.amount, currency: e.currency), String(e.amount), e.currency, e.means?.rawValue ?? "",
                    e.recordedBy?.name ?? "", e.note,
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

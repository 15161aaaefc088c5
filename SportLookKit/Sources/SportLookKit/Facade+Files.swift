import Foundation
import OpenAPIRuntime
import SportLookAPI

/// Files the server makes: a game in iCalendar, money sheets as CSV.
extension SportLookClient {
    /// The largest file these methods read, in bytes.
    static let largestFile = 16 << 20

    static func collect(_ body: HTTPBody) async throws -> Data {
        try await Data(collecting: body, upTo: largestFile)
    }
}

extension SportLookClient.Events {
    /// The game as an iCalendar file (`text/calendar`), to add to a calendar.
    public func calendarFile(_ id: Event.ID) async throws -> Data {
        try await SportLookClient.collect(
            try await client.call { try await $0.eventCalendar(path: .init(id: id.description)).ok.body.textCalendar })
    }
}

extension SportLookClient.MoneyClient {
    /// A game's money sheet as CSV (its organiser).
    public func sheetCSV(of id: Event.ID) async throws -> Data {
        try await SportLookClient.collect(
            try await client.call { try await $0.eventLedgerCSV(path: .init(id: id.description)).ok.body.csv })
    }

    /// A group's dues as CSV (its owner and admins).
    public func duesCSV(of id: Group.ID) async throws -> Data {
        try await SportLookClient.collect(
            try await client.call { try await $0.groupLedgerCSV(path: .init(id: id.description)).ok.body.csv })
    }

    /// Every game of a series' money, as CSV (its organiser).
    public func seriesCSV(of id: Series.ID) async throws -> Data {
        try await SportLookClient.collect(
            try await client.call { try await $0.seriesLedgerCSV(path: .init(id: id.description)).ok.body.csv })
    }
}

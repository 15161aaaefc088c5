import Foundation
import OpenAPIRuntime
internal import SportLookAPI

/// Files the server makes: photos, a game in iCalendar, the calendar feed, money sheets
/// as CSV, a copy of the account's data.
extension SportLookClient {
    /// The largest file these methods read, in bytes.
    static let largestFile = 64 << 20

    static func collect(_ body: HTTPBody) async throws -> Data {
        try await Data(collecting: body, upTo: largestFile)
    }

    /// A link the server handed out (`/media/…?expires=…&signature=…`, absolute or not):
    /// its path's last part and its query's fields.
    static func link(_ text: String, under prefix: String) throws -> (name: String, query: [String: String]) {
        guard let parts = URLComponents(string: text), parts.path.hasPrefix(prefix),
            let name = parts.path.split(separator: "/").last.map(String.init), !name.isEmpty
        else {
            throw SportLookError(
                status: 0, code: "invalid_link", message: "\(text) is not a link under \(prefix)", fields: ["link": "is not one"],
                retryAfter: nil)
        }
        var query: [String: String] = [:]
        for item in parts.queryItems ?? [] { query[item.name] = item.value }
        return (name, query)
    }

    /// Photos: upload, read, download.
    public var media: MediaClient { MediaClient(client: self) }

    /// Photos: upload, read, download.
    public struct MediaClient: Sendable {
        let client: SportLookClient

        /// Uploads a JPEG or PNG photo (what it is is read from its bytes). Put it to use
        /// within a day: `photoID` on the profile, `coverID` on a game or group,
        /// `attachmentID` on a chat message.
        public func upload(_ data: Data, for use: Photo.Use) async throws -> Photo {
            let body = HTTPBody(data)
            let isPNG = data.starts(with: [0x89, 0x50, 0x4E, 0x47])
            let use: Operations.UploadMedia.Input.Query.UsePayload =
                switch use {
                case .profile: .profile
                case .cover: .cover
                case .chat: .chat
                }
            return try Photo(
                try await client.call {
                    try await $0.uploadMedia(query: .init(use: use), body: isPNG ? .png(body) : .jpeg(body)).created.body.json
                })
        }

        /// A photo uploaded before, with its variants (its uploader).
        public func get(_ id: Photo.ID) async throws -> Photo {
            try Photo(try await client.call { try await $0.getMedia(path: .init(id: id.description)).ok.body.json })
        }

        /// A variant's JPEG, by the link a ``Photo/Variant``, an ``Attachment`` or a profile
        /// gave (a chat image's link is signed and expires: read the history again for a
        /// fresh one).
        public func download(_ link: String) async throws -> Data {
            let (key, query) = try SportLookClient.link(link, under: "/media/")
            return try await SportLookClient.collect(
                try await client.call {
                    try await $0.getMediaFile(
                        path: .init(key: key), query: .init(expires: query["expires"], signature: query["signature"])
                    ).ok.body.jpeg
                })
        }

        /// Whether a variant's link still works (a HEAD request: nothing is downloaded).
        public func isAvailable(_ link: String) async throws -> Bool {
            let (key, query) = try SportLookClient.link(link, under: "/media/")
            do {
                _ = try await client.call {
                    try await $0.headMediaFile(
                        path: .init(key: key), query: .init(expires: query["expires"], signature: query["signature"])
                    )
                    .ok
                }
                return true
            } catch let error as SportLookError where error.status == 403 || error.status == 404 {
                return false
            }
        }
    }
}

extension SportLookClient.Me {
    /// The calendar feed's file, by the path ``openCalendarFeed()`` gave (what a calendar
    /// app reads; no sign-in needed).
    public func calendarFeed(_ path: String) async throws -> Data {
        let (file, _) = try SportLookClient.link(path, under: "/v1/calendar/")
        return try await SportLookClient.collect(
            try await client.call { try await $0.calendarFeed(path: .init(file: file)).ok.body.textCalendar })
    }

    /// A copy of the account's data as a ZIP archive, once ``DataExport/downloadPath`` is
    /// there (its link expires with the copy).
    public func download(_ export: DataExport) async throws -> Data {
        guard let path = export.downloadPath else {
            throw SportLookError(
                status: 0, code: "export_not_ready", message: "the copy is \(export.status), not ready", fields: [:], retryAfter: nil)
        }
        let (id, query) = try SportLookClient.link(path, under: "/v1/exports/")
        return try await SportLookClient.collect(
            try await client.call {
                try await $0.downloadExport(
                    path: .init(id: id), query: .init(expires: query["expires"] ?? "", signature: query["signature"] ?? "")
                ).ok.body.applicationZip
            })
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

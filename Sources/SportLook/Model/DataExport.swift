import Foundation

/// One export of a person's data: asked for, built by a job, downloadable through a
/// signed link until it expires.
struct DataExport: Sendable, Hashable {
    enum Status: String, Sendable { case pending, ready, expired }

    var id: UUID
    var userID: UUID
    /// The member of staff who ran it on the person's written request (nil: the person).
    var requestedBy: UUID?
    var status: Status
    var requestedAt: Date
    var readyAt: Date?
    var expiresAt: Date?
    /// The archive's size in bytes, once built.
    var size: Int?
}

/// One file of an export: a table of the person's rows, as JSON values.
struct ExportSection: Sendable {
    var file: String
    var rows: [[String: JSONValue]]
}

import Foundation

/// One plain-text mail to one address.
public struct MailMessage: Sendable, Hashable, Codable {
    /// The recipient's address (already checked to be one).
    public var to: String
    public var subject: String
    /// The text, lines separated by `\n`.
    public var text: String
}

/// What a `mail` job holds: a code asked for an email, or the link to a person's data
/// export. The job's worker composes the mail when it sends it: for a code it looks the
/// account up, issues the code and mails it, so that asking does the same work whether
/// or not the email has an account, and no code is ever kept in clear; for an export it
/// reads the account and the export then, so an erased account or an expired archive
/// gets no mail.
public struct MailRequest: Sendable, Hashable, Codable {
    /// The job kind of mail in the queue.
    static let jobKind = "mail"

    /// `verify`, `reset` or `export`.
    public var purpose: String
    /// The email as normalized (a code's; empty for an export, mailed to the account's email).
    public var email: String
    /// A reset's request, as the digest of the id answered to the asker (nil: none).
    public var request: String?
    /// Asked from a device or address the account knows.
    public var knownPlace: Bool?
    /// The export whose link is mailed.
    public var export: UUID?

    static func export(_ id: UUID) -> MailRequest { MailRequest(purpose: "export", email: "", export: id) }

    var encoded: String {
        String(decoding: (try? JSONEncoder.sorted.encode(self)) ?? Data(), as: UTF8.self)
    }
}

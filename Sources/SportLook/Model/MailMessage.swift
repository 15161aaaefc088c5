import Foundation

/// One plain-text mail to one address.
public struct MailMessage: Sendable, Hashable, Codable {
    /// The recipient's address (already checked to be one).
    public var to: String
    public var subject: String
    /// The text, lines separated by `\n`.
    public var text: String
}

/// What a `mail` job holds: a code asked for an email. The job's worker looks the
/// account up, issues the code and mails it, so that asking does the same work
/// whether or not the email has an account, and no code is ever kept in clear.
public struct CodeMailRequest: Sendable, Hashable, Codable {
    /// The job kind of code mail in the queue.
    static let jobKind = "mail"

    /// `verify` or `reset`.
    public var purpose: String
    /// The email as normalized.
    public var email: String
    /// A reset's request, as the digest of the id answered to the asker (nil: none).
    public var request: String?
    /// Asked from a device or address the account knows.
    public var knownPlace: Bool?

    var encoded: String {
        String(decoding: (try? JSONEncoder.sorted.encode(self)) ?? Data(), as: UTF8.self)
    }
}

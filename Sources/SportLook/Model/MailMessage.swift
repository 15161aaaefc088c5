import Foundation

/// One plain-text mail to one address: what a `mail` job delivers.
public struct MailMessage: Sendable, Hashable, Codable {
    /// The job kind of mail in the queue.
    static let jobKind = "mail"

    /// The recipient's address (already checked to be one).
    public var to: String
    public var subject: String
    /// The text, lines separated by `\n`.
    public var text: String

    var encoded: String {
        String(decoding: (try? JSONEncoder.sorted.encode(self)) ?? Data(), as: UTF8.self)
    }
}

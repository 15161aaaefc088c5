import Foundation
import Logging

/// Where mail goes: an SMTP submission server, or (`MAIL_TRANSPORT=log`, for
/// development) the log, where the whole message is written and nothing is sent.
enum MailTransport: Sendable {
    case smtp(SMTPMailer)
    case log(Logger)

    /// Delivers `mail`; `id` is the job's, the same on every attempt.
    func send(_ mail: MailMessage, id: UUID) async -> DeliveryOutcome {
        switch self {
        case .smtp(let mailer):
            return await mailer.send(mail, id: id)
        case .log(let logger):
            logger.notice(
                "mail not sent (MAIL_TRANSPORT=log)", metadata: ["to": "\(mail.to)", "subject": "\(mail.subject)", "text": "\(mail.text)"])
            return .delivered
        }
    }
}

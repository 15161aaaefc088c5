/// Where mail goes (`MAIL_TRANSPORT`, `SMTP_URL`…).
public enum MailSetting: Sendable {
    /// SMTP submission.
    case smtp(SMTPSettings)
    /// Written to the log, not sent (development).
    case log
}

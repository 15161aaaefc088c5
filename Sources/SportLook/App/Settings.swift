import Foundation

/// Where mail goes (`MAIL_TRANSPORT`, `SMTP_URL`…).
public enum MailSetting: Sendable {
    /// SMTP submission.
    case smtp(SMTPSettings)
    /// Written to the log, not sent (development).
    case log
}

/// A sign-in button of the web client: the provider, the client id its tokens are
/// made for on the web, and where its sign-in page is.
public struct WebSignIn: Sendable, Equatable {
    public var provider: IdentityProvider
    public var clientID: String
    public var authorizeURL: URL

    static func defaultAuthorizeURL(_ provider: IdentityProvider) -> URL {
        switch provider {
        case .apple: URL(string: "https://appleid.apple.com/auth/authorize")!
        case .google: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!
        case .facebook: URL(string: "https://www.facebook.com/v19.0/dialog/oauth")!
        }
    }
}

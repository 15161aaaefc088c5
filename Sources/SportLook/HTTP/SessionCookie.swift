import Foundation
import HTTPTypes
import Hummingbird

/// The web client's session: the same access token as an app's, kept by the browser
/// in an `HttpOnly`, `SameSite=Strict` cookie that no script can read, instead of in
/// `localStorage` where any script on the page could.
///
/// A sign-in asks for it with `SportLook-Session: cookie`; the answer then sets the
/// cookie and leaves the token out of its body. Requests that change something with
/// the cookie must come from a page of this server (``OriginPolicy/allowsCookieWrite(_:)``).
enum SessionCookie {
    /// The cookie of a page on plain http (a development server).
    static let name = "sportlook_session"
    /// The cookie of a page over https: `__Host-` makes browsers keep it only when set
    /// by this host itself, Secure, for `/` and no domain, so a sibling subdomain or a
    /// man in the middle on plain http cannot plant one of theirs beside it.
    static let secureName = "__Host-sportlook_session"
    static let requestHeader = HTTPField.Name("SportLook-Session")!

    /// Whether a sign-in asks for its session as a cookie.
    static func isRequested(by request: Request) -> Bool {
        request.headers[requestHeader]?.lowercased() == "cookie"
    }

    /// A request's session token: the bearer header (apps) first, then the cookie.
    static func credential(of request: Request) -> (token: String, fromCookie: Bool)? {
        if let token = BearerToken.parse(request.headers) { return (token, false) }
        let cookies = request.cookies
        guard let value = (cookies[secureName] ?? cookies[name])?.value, !value.isEmpty else { return nil }
        return (value, true)
    }

    /// The cookie holding `token` until `expiresAt`. `Secure` when the page asking was
    /// served over https (its `Origin` says so); a page on plain http could keep no
    /// secure cookie, so it gets one without.
    static func setting(_ token: String, expiresAt: Date, now: Date, request: Request) -> Cookie {
        let secure = isSecurePage(request)
        return Cookie(name: secure ? secureName : name, value: token, maxAge: max(0, Int(expiresAt.timeIntervalSince(now))), path: "/",
                      secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The cookie's removal (signing out).
    static func clearing(_ request: Request) -> Cookie {
        let secure = isSecurePage(request)
        return Cookie(name: secure ? secureName : name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    private static func isSecurePage(_ request: Request) -> Bool {
        request.headers[.origin].flatMap { URL(string: $0)?.scheme?.lowercased() } == "https"
    }
}

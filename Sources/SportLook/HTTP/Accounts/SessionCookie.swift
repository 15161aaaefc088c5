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

    /// A request's session token: the bearer header (apps) first, then the cookie. A
    /// request that came over https counts only the `__Host-` cookie — the plain one
    /// may have been planted by a sibling subdomain or over plain http — and a
    /// `__Host-` cookie, which only https pages have, is the only one that counts,
    /// even empty.
    static func credential(of request: Request) -> (token: String, fromCookie: Bool)? {
        if let token = BearerToken.parse(request.headers) { return (token, false) }
        let cookies = request.cookies
        let cookie = hasSecureCookie(request) ? cookies[secureName] : cameOverHTTPS(request) ? nil : cookies[name]
        guard let value = cookie?.value, !value.isEmpty else { return nil }
        return (value, true)
    }

    /// The cookie holding `token` until `expiresAt`. `Secure` when the page asking was
    /// served over https (its `Origin` says so); a page on plain http could keep no
    /// secure cookie, so it gets one without.
    static func setting(_ token: String, expiresAt: Date, now: Date, request: Request) -> Cookie {
        let secure = isSecure(request)
        return Cookie(
            name: secure ? secureName : name, value: token, maxAge: max(0, Int(expiresAt.timeIntervalSince(now))), path: "/",
            secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The cookies' removal (signing out): both names, so that no plain cookie left
    /// beside the `__Host-` one signs the browser in again.
    static func clearing(_ request: Request) -> [Cookie] {
        var cookies = [Cookie(name: name, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)]
        if isSecure(request) {
            cookies.append(Cookie(name: secureName, value: "", maxAge: 0, path: "/", secure: true, httpOnly: true, sameSite: .strict))
        }
        return cookies
    }

    /// Whether the request came from an https page or over https: a `__Host-` cookie
    /// (browsers keep one only for https), an https `Origin` or `Referer` (the web
    /// client's pages send it on every request), or a proxy's `X-Forwarded-Proto`. Each
    /// can only make the rule stricter: a false claim of https costs the plain cookie.
    static func isSecure(_ request: Request) -> Bool {
        hasSecureCookie(request) || cameOverHTTPS(request)
    }

    /// An https `Origin`, `Referer` or `X-Forwarded-Proto`.
    private static func cameOverHTTPS(_ request: Request) -> Bool {
        for field in [HTTPField.Name.origin, .referer, forwardedProto] {
            guard let value = request.headers[field] else { continue }
            let scheme = field == forwardedProto ? value.split(separator: ",").first.map(String.init) : URL(string: value)?.scheme
            if scheme?.trimmingCharacters(in: .whitespaces).lowercased() == "https" { return true }
        }
        return false
    }

    /// Whether the request carries a `__Host-` cookie at all, empty ones included
    /// (which the framework's cookie reading leaves out).
    static func hasSecureCookie(_ request: Request) -> Bool {
        request.headers[values: .cookie].contains { header in
            header.split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(secureName + "=") }
        }
    }

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}

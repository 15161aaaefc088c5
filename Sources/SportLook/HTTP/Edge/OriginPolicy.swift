import Foundation
import Hummingbird

/// Which pages may use this server with a browser's credentials: the one rule for
/// sockets and for requests that carry the web client's session cookie.
struct OriginPolicy: Sendable {
    /// Configured origins (`CORS_ALLOWED_ORIGINS`); `*` allows any origin to open a
    /// socket with a token, never to use a cookie.
    let allowed: [String]

    /// For a socket: no `Origin` or a `ws:`/`wss:` one (not a browser page: client
    /// libraries send the socket's own URL), a configured origin, or a page of this server.
    func allowsSocket(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        if allowed.contains("*") { return true }
        if let scheme = URL(string: origin)?.scheme?.lowercased(), scheme == "ws" || scheme == "wss" { return true }
        return isPage(origin, of: request)
    }

    /// For a request that changes something with the session cookie: an `Origin` that
    /// is a page of this server or a configured origin (by name; `*` does not count).
    /// Browsers send `Origin` with every such request, so one without is no page's.
    func allowsCookieWrite(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return false }
        return isPage(origin, of: request)
    }

    /// A configured origin, or an http(s) origin whose host and port are the request's
    /// own (a page on another port of the same host is another site's).
    private func isPage(_ origin: String, of request: Request) -> Bool {
        if allowed.contains(origin) { return true }
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(),
            let authority = request.head.authority, scheme == "http" || scheme == "https",
            let originHost = url.host, url.path.isEmpty || url.path == "/"
        else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        let (host, port) = Self.split(authority)
        guard originHost.lowercased() == host.lowercased() else { return false }
        // The request names its port unless it is the default of the scheme the page used.
        return (url.port ?? defaultPort) == (port ?? defaultPort)
    }

    /// The host and port of a `Host` header (`example.com:8080`, `[::1]:8080`, `example.com`).
    static func split(_ authority: String) -> (host: String, port: Int?) {
        if authority.hasPrefix("[") {
            let host = String(authority.dropFirst().prefix(while: { $0 != "]" }))
            let rest = authority.drop(while: { $0 != "]" }).dropFirst()
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
        return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]))
    }
}

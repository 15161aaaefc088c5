import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// CORS for the configured origins (`*` for any). (A step of ``EdgeMiddleware``.)
///
/// It applies outside the errors and the overload check: every answer a browser gets,
/// a 4xx, a 429 or a 503 `overloaded` included, names the origin (a script can read
/// the error body and `Retry-After`), and a preflight is answered even past capacity.
struct CORSPolicy {
    let allowed: [String]
    /// The routes: a preflight allows every method they answer.
    let routes: RouteTable

    /// Request headers a script may send: besides the token and the body's type, the
    /// conditional and range headers of media downloads.
    static var requestHeaders: String { "Authorization, Content-Type, If-None-Match, If-Range, Range" }
    /// Response headers a script may read besides the safelisted ones.
    static var exposedHeaders: String {
        "Retry-After, Location, ETag, Content-Range, Accept-Ranges, WWW-Authenticate, Deprecation, Sunset, Link"
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) from
    /// an origin, when this is one.
    func preflight(_ request: Request) -> Response? {
        guard !allowed.isEmpty, request.method == .options, request.headers[.accessControlRequestMethod] != nil,
            let origin = request.headers[.origin]
        else { return nil }
        var headers: HTTPFields = [:]
        guard let allowOrigin = allowOrigin(origin) else { return Response(status: .forbidden, headers: headers) }
        headers[.accessControlAllowOrigin] = allowOrigin
        let methods = Set(routes.all.map(\.method.rawValue) + ["OPTIONS"]).sorted()
        headers[.accessControlAllowMethods] = methods.joined(separator: ", ")
        headers[.accessControlAllowHeaders] = Self.requestHeaders
        headers[.accessControlMaxAge] = "600"
        headers[.vary] = "Origin"
        return Response(status: .noContent, headers: headers)
    }

    /// Names the request's origin on the answer, when it is allowed.
    func decorate(_ response: inout Response, for request: Request) {
        guard !allowed.isEmpty, let origin = request.headers.joinedValues(.origin), let allowOrigin = allowOrigin(origin) else { return }
        response.headers[.accessControlAllowOrigin] = allowOrigin
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        response.headers[.vary] = "Origin"
    }

    private func allowOrigin(_ origin: String) -> String? {
        allowed.contains("*") ? "*" : (allowed.contains(origin) ? origin : nil)
    }
}

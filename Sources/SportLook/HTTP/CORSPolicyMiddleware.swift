import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// CORS for the configured origins (`*` for any).
///
/// It runs outside the error and overload middleware: every answer a browser gets,
/// a 4xx, a 429 or a 503 `overloaded` included, names the origin (a script can read
/// the error body and `Retry-After`), and a preflight is answered even past capacity.
struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowed: [String]
    /// The routes: a preflight allows every method they answer.
    let routes: RouteTable

    /// Request headers a script may send: besides the token and the body's type, the
    /// conditional and range headers of media downloads.
    static var requestHeaders: String { "Authorization, Content-Type, If-None-Match, If-Range, Range" }
    /// Response headers a script may read besides the safelisted ones.
    static var exposedHeaders: String { "Retry-After, Location, ETag, Content-Range, Accept-Ranges, WWW-Authenticate" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !allowed.isEmpty, let origin = request.headers[.origin] else { return try await next(request, context) }
        let allowOrigin: String? = allowed.contains("*") ? "*" : (allowed.contains(origin) ? origin : nil)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers: HTTPFields = [:]
            if let allowOrigin {
                headers[.accessControlAllowOrigin] = allowOrigin
                let methods = Set(routes.all.map(\.method.rawValue) + ["OPTIONS"]).sorted()
                headers[.accessControlAllowMethods] = methods.joined(separator: ", ")
                headers[.accessControlAllowHeaders] = Self.requestHeaders
                headers[.accessControlMaxAge] = "600"
                headers[.vary] = "Origin"
            }
            return Response(status: allowOrigin == nil ? .forbidden : .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let allowOrigin {
            response.headers[.accessControlAllowOrigin] = allowOrigin
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
            response.headers[.vary] = "Origin"
        }
        return response
    }
}

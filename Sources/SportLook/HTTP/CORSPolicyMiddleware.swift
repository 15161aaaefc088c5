import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// CORS for the configured origins (`*` for any).
struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowed: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !allowed.isEmpty, let origin = request.headers[.origin] else { return try await next(request, context) }
        let allowOrigin: String? = allowed.contains("*") ? "*" : (allowed.contains(origin) ? origin : nil)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers: HTTPFields = [:]
            if let allowOrigin {
                headers[.accessControlAllowOrigin] = allowOrigin
                headers[.accessControlAllowMethods] = "GET, POST, PATCH, DELETE, OPTIONS"
                headers[.accessControlAllowHeaders] = "Authorization, Content-Type"
                headers[.accessControlMaxAge] = "600"
                headers[.vary] = "Origin"
            }
            return Response(status: allowOrigin == nil ? .forbidden : .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let allowOrigin {
            response.headers[.accessControlAllowOrigin] = allowOrigin
            response.headers[.vary] = "Origin"
        }
        return response
    }
}

import HTTPTypes
import Hummingbird

/// Every answer, errors included, says its `Content-Type` is to be believed
/// (`X-Content-Type-Options: nosniff`): a JSON body is never run as a script or
/// shown as a page, whatever text a user put in it.
struct NoSniffMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Content-Type-Options")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[Self.header] == nil { response.headers[Self.header] = "nosniff" }
        return response
    }
}

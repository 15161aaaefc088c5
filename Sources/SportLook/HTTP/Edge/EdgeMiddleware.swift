import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// What every request passes through, as one middleware: one async frame where seven
/// nested middlewares cost about a third of an idle request's instructions. In order:
///
/// 0. The request is counted and timed (``RequestMetrics``), whatever happens next.
/// 1. A CORS preflight from an origin is answered at once (``CORSPolicy``).
/// 2. The request runs as a client's work (``Admission``: past capacity, refused before
///    its first write), after these steps:
///    - past the CPU's capacity, an API request is refused (``OverloadGate``);
///    - the caller's address is the client's from `X-Forwarded-For` when the peer is
///      one of `TRUSTED_PROXIES` (``ClientAddress``), never believed from anyone else;
///    - the request is counted against the instance's and the caller's limits
///      (``RateLimits``), before any database read;
///    - a bearer token or the session cookie becomes the caller's identity (``TokenAuth``).
/// 3. Any error becomes its JSON error body (``ErrorResponses``).
/// 4. Every answer, errors included, names an allowed origin (``CORSPolicy``) and says
///    its `Content-Type` is to be believed (``NoSniff``).
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let cors: CORSPolicy
    let errors: ErrorResponses
    let overload: OverloadGate
    let addresses: ClientAddress
    let limits: RateLimits
    let auth: TokenAuth
    let metrics: RequestMetrics

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        let started = metrics.start(request)
        var response: Response
        if let preflight = cors.preflight(request) {
            response = preflight
        } else {
            do {
                response = try await Admission.clientWork {
                    var context = context
                    try overload.check(request)
                    if !addresses.trustedProxies.isEmpty {
                        context.remoteAddress = addresses.resolve(
                            peer: context.remoteAddress, forwardedFor: request.headers[values: Self.forwardedFor])
                    }
                    // The bearer token or session cookie, read once for both steps.
                    let credential = SessionCookie.credential(of: request)
                    try limits.admit(request, credential: credential, context: &context)
                    try await auth.authenticate(request, credential: credential, context: &context)
                    return try await next(request, context)
                }
            } catch {
                response = errors.response(for: error, request: request, context: context)
            }
            cors.decorate(&response, for: request)
        }
        NoSniff.apply(to: &response)
        metrics.finish(started, &response, request: request, context: context)
        return response
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

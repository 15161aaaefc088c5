import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Sets the caller's address: the peer's, or the client's from `X-Forwarded-For`
/// when the peer is one of `TRUSTED_PROXIES` (never believed from anyone else).
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let resolver: ClientAddress

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard !resolver.trustedProxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.remoteAddress = resolver.resolve(peer: context.remoteAddress, forwardedFor: request.headers[values: .init("X-Forwarded-For")!])
        return try await next(request, context)
    }
}

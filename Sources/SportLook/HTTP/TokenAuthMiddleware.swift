import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Resolves `Authorization: Bearer …` to an identity (unless the rate limiter
/// already found it in the token cache). Without a valid token
/// the request goes on anonymous: public routes answer, authenticated ones
/// (``AuthenticatedContext``) answer 401.
struct TokenAuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let tokens: TokenAuthenticator

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard context.identity == nil, let token = BearerToken.parse(request.headers), let identity = try await tokens.identity(for: token) else {
            return try await next(request, context)
        }
        var context = context
        context.identity = identity
        return try await next(request, context)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Resolves `Authorization: Bearer …` or the web client's session cookie to an
/// identity (unless the rate limiter already found it in the token cache). Without a
/// valid token the request goes on anonymous: public routes answer, authenticated
/// ones (``AuthenticatedContext``) answer 401.
///
/// A request that changes something with the cookie must come from a page of this
/// server or a configured origin (403 `origin_refused`): with `SameSite=Strict` no
/// other site's page sends the cookie, and this holds even for a sibling on the same site.
/// (A step of ``EdgeMiddleware``.)
struct TokenAuth {
    let tokens: TokenAuthenticator
    let origins: OriginPolicy

    /// - Parameter credential: The request's bearer token or session cookie (``SessionCookie/credential(of:)``).
    func authenticate(_ request: Request, credential: (token: String, fromCookie: Bool)?, context: inout AppRequestContext) async throws {
        if context.identity == nil, let token = credential?.token {
            do {
                context.identity = try await tokens.identity(for: token)
            } catch let refusal as DomainError where refusal.kind == .forbidden {
                // A session a suspension ended: routes that need one say so; public ones
                // (an appeal, signing in) go on anonymous.
                context.refusal = refusal
            }
        }
        // Whose reads must see their own writes (a replica answers them only once past them).
        if let identity = context.identity { Admission.identify(identity.userID) }
        // Checked once the cookie is known to open a session (a stale cookie is no one's: 401 where a session is needed).
        if context.identity != nil, credential?.fromCookie == true, ![.get, .head, .options].contains(request.method),
            !origins.allowsCookieWrite(request)
        {
            throw DomainError.forbidden(
                "origin_refused", Sentence("A request that changes something with the session cookie must come from this site's pages."))
        }
    }
}

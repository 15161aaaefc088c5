import Foundation
import Hummingbird

/// Limits the requests one instance accepts in all (`RATE_LIMIT_GLOBAL` per
/// second) and per caller (`RATE_LIMIT_USER` per minute, by user once
/// authenticated, by address before): 429 with `Retry-After` beyond.
/// Operational routes (`/health`, `/ready`, `/metrics`) are never limited. (A step
/// of ``EdgeMiddleware``.)
///
/// It runs before the token lookup, so that a flood of requests costs no
/// database read: the caller is the user of a token this instance has checked
/// recently (no database needed), and the address otherwise — a made-up token
/// counts against its address.
struct RateLimits {
    let global: RateLimiter?
    let perCaller: RateLimiter?
    let tokens: TokenAuthenticator

    /// - Parameters:
    ///   - globalPerSecond: Requests a second the whole instance takes (0: no limit).
    ///   - perCallerPerMinute: Requests a minute one user or address may make (0: no limit).
    init(globalPerSecond: Int, perCallerPerMinute: Int, clock: any AppClock, tokens: TokenAuthenticator) {
        self.tokens = tokens
        global = globalPerSecond > 0 ? RateLimiter(limit: globalPerSecond, per: 1, clock: SystemClock()) : nil
        perCaller = perCallerPerMinute > 0 ? RateLimiter(limit: perCallerPerMinute, per: 60, clock: clock) : nil
    }

    /// Counts the request, or refuses it with 429; a caller found in the token cache
    /// is set on the context (its token is then not looked up again).
    func admit(_ request: Request, credential: (token: String, fromCookie: Bool)?, context: inout AppRequestContext) throws {
        guard global != nil || perCaller != nil else { return }
        let path = request.uri.path
        if path == "/health" || path == "/ready" || path == "/metrics" { return }
        if let global, let wait = global.acquire("all") {
            throw DomainError.tooManyRequests(retryAfter: wait, message: Sentence("The service is busy; try again shortly."))
        }
        if let perCaller {
            let known = credential.flatMap { tokens.cachedIdentity(for: $0.token) }
            let key =
                known.map { "user:" + $0.userID.lowercased } ?? "address:"
                + (context.remoteAddress.map(ClientAddress.throttleKey) ?? "unknown")
            if let wait = perCaller.acquire(key) { throw DomainError.tooManyRequests(retryAfter: wait) }
            // Found in the cache: the token is not looked up (nor hashed) a second time.
            if let known { context.identity = known }
        }
    }
}

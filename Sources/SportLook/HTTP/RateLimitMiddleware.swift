import Foundation
import Hummingbird

/// Limits the requests one instance accepts in all (`RATE_LIMIT_GLOBAL` per
/// second) and per caller (`RATE_LIMIT_USER` per minute, by user once
/// authenticated, by address before): 429 with `Retry-After` beyond.
/// Operational routes (`/health`, `/ready`, `/metrics`) are never limited.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let global: RateLimiter?
    let perCaller: RateLimiter?

    init(configuration: AppConfiguration, clock: any AppClock) {
        global = configuration.globalRateLimit > 0 ? RateLimiter(limit: configuration.globalRateLimit, per: 1, clock: SystemClock()) : nil
        perCaller = configuration.userRateLimit > 0 ? RateLimiter(limit: configuration.userRateLimit, per: 60, clock: clock) : nil
    }

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/health" || path == "/ready" || path == "/metrics" { return try await next(request, context) }
        if let global, let wait = global.acquire("all") {
            throw APIError.tooManyRequests(retryAfter: wait, message: "The service is busy; try again shortly.")
        }
        if let perCaller {
            let key = context.identity.map { "user:" + $0.userID.lowercased } ?? "address:" + (context.remoteAddress ?? "unknown")
            if let wait = perCaller.acquire(key) { throw APIError.tooManyRequests(retryAfter: wait) }
        }
        return try await next(request, context)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Maps every error to the JSON error body: ``APIError`` as it is, ``DomainError``
/// through its one table, Hummingbird's
/// own errors (404, 413…) to their codes, an unreachable database to 503, and
/// anything else to a 500 that is logged at error level with the request id and
/// tells the client nothing about internals.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response(requestID: nil)
        } catch let error as DomainError {
            return APIError(error).response(requestID: nil)
        } catch let error as HTTPError {
            return map(error, request: request, context: context).response(requestID: nil)
        } catch is HashingQueueFull {
            return APIError(DomainError.busy).response(requestID: nil)
        } catch let error as DatabaseUnavailable {
            context.logger.warning("database unavailable", metadata: ["path": "\(request.uri.path)", "reason": "\(error.reason)"])
            return APIError(DomainError.serviceUnavailable).response(requestID: nil)
        } catch where Database.isConnectivityFailure(error) {
            context.logger.warning("database unavailable", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return APIError(DomainError.serviceUnavailable).response(requestID: nil)
        } catch is CancellationError {
            context.logger.warning("request cancelled", metadata: ["path": "\(request.uri.path)"])
            return APIError(DomainError.serviceUnavailable).response(requestID: nil)
        } catch {
            context.logger.error("unhandled error", metadata: [
                "hb.request.id": "\(context.id)", "method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(String(reflecting: error))",
            ])
            return APIError.internalError.response(requestID: context.id)
        }
    }

    private func map(_ error: HTTPError, request: Request, context: Context) -> APIError {
        switch error.status {
        case .notFound:
            let allowed = routes.methods(matching: request.uri.path)
            if !allowed.isEmpty {
                return APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method) is not allowed here.",
                                headers: [.allow: allowed.map(\.rawValue).sorted().joined(separator: ", ")])
            }
            return APIError(.notFound, code: "not_found", message: "No route for \(request.method) \(request.uri.path.prefix(200)).")
        case .contentTooLarge:
            return APIError(.contentTooLarge, code: "payload_too_large", message: "The body is larger than \(context.maxUploadSize / 1024) KiB.")
        case .methodNotAllowed:
            return APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method) is not allowed here.")
        case .unsupportedMediaType:
            return APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        case .badRequest:
            return APIError(.badRequest, code: "bad_request", message: "The request could not be read.")
        default:
            let code = error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            return APIError(error.status, code: code.isEmpty ? "error" : code, message: error.status.reasonPhrase)
        }
    }
}

/// Every route the router knows, to tell 405 from 404 and to check the OpenAPI
/// document against the router.
public final class RouteTable: Sendable {
    /// A registered route.
    public struct Route: Sendable, Hashable {
        /// The method.
        public var method: HTTPRequest.Method
        /// The path, with `:name` for parameters.
        public var path: String
    }

    private let storage = Mutex<[Route]>([])

    /// Every route.
    public var all: [Route] { storage.withLock { $0 } }

    func add(_ method: HTTPRequest.Method, _ path: String) { storage.withLock { $0.append(Route(method: method, path: path)) } }

    /// The methods of the resource at `path`: of the most specific patterns that
    /// match it (fixed segments win over parameters, as in the router).
    func methods(matching path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matches = all.compactMap { route -> (Route, Int)? in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard pattern.count == segments.count, zip(pattern, segments).allSatisfy({ $0.hasPrefix(":") || $0 == $1 }) else { return nil }
            return (route, pattern.filter { !$0.hasPrefix(":") }.count)
        }
        let best = matches.map(\.1).max() ?? 0
        return Array(Set(matches.filter { $0.1 == best }.map(\.0.method)))
    }
}

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

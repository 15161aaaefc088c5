import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Maps every error to the JSON error body: ``APIError`` as it is, ``DomainError``
/// through its one table, Hummingbird's own errors (404, 413…) to their codes, an
/// unreachable database to 503, and anything else to a 500 that is logged at error
/// level with the request id and tells the client nothing about internals. (A step of
/// ``EdgeMiddleware``.)
/// A route that is not there for this caller (a staff route, to anyone not staff): it
/// answers exactly as a path no route serves.
struct HiddenRoute: Error {}

struct ErrorResponses {
    /// A path as logs may show it: a calendar feed's holds its secret, which stays out.
    static func loggable(_ path: String) -> String {
        path.hasPrefix("/v1/calendar/") ? "/v1/calendar/…" : path
    }

    let routes: RouteTable
    /// Where each 429 and 503 is counted by its code (the console's abuse panel).
    var refusals: RefusalCounts? = nil

    func response(for error: any Error, request: Request, context: AppRequestContext) -> Response {
        guard let refusal = refusal(for: error, request: request, context: context) else {
            context.logger.error(
                "unhandled error",
                metadata: [
                    "hb.request.id": "\(context.id)", "method": "\(request.method)", "path": "\(Self.loggable(request.uri.path))",
                    "error": "\(String(reflecting: error))",
                ])
            return APIError.internalError.response(requestID: context.id, language: Language.asked(by: request))
        }
        if refusal.status == .tooManyRequests || refusal.status == .serviceUnavailable { refusals?.record(refusal.code) }
        return refusal.response(requestID: nil, language: Language.asked(by: request))
    }

    /// The answer to a known error; nil for an error nobody expected (a 500).
    private func refusal(for error: any Error, request: Request, context: AppRequestContext) -> APIError? {
        switch error {
        case let error as APIError:
            return error
        case let error as DomainError:
            return APIError(error)
        case let error as HTTPError:
            return map(error, request: request, context: context)
        case is HiddenRoute:
            return Self.noRoute(request)
        case is DatabaseReadOnly:
            return APIError(DomainError.readOnly)
        case is HashingQueueFull:
            return APIError(DomainError.busy)
        case let error as DatabaseUnavailable:
            context.logger.warning(
                "database unavailable", metadata: ["path": "\(Self.loggable(request.uri.path))", "reason": "\(error.reason)"])
            return APIError(DomainError.serviceUnavailable)
        case _ where Database.isConnectivityFailure(error):
            context.logger.warning("database unavailable", metadata: ["path": "\(Self.loggable(request.uri.path))", "error": "\(error)"])
            return APIError(DomainError.serviceUnavailable)
        case is CancellationError:
            context.logger.warning("request cancelled", metadata: ["path": "\(Self.loggable(request.uri.path))"])
            return APIError(DomainError.serviceUnavailable)
        default:
            return nil
        }
    }

    /// What a path no route serves answers.
    static func noRoute(_ request: Request) -> APIError {
        APIError(.notFound, code: "not_found", message: Sentence("No route for \(request.method) \(request.uri.path.prefix(200))."))
    }

    private func map(_ error: HTTPError, request: Request, context: AppRequestContext) -> APIError {
        switch error.status {
        case .notFound:
            let allowed = routes.methods(matching: request.uri.path)
            if !allowed.isEmpty {
                return APIError(
                    .methodNotAllowed, code: "method_not_allowed", message: Sentence("\(request.method) is not allowed here."),
                    headers: [.allow: allowed.map(\.rawValue).sorted().joined(separator: ", ")])
            }
            return Self.noRoute(request)
        case .contentTooLarge:
            return APIError(
                .contentTooLarge, code: "payload_too_large",
                message: Sentence("The body is larger than \(context.maxUploadSize / 1024) KiB."))
        case .methodNotAllowed:
            return APIError(.methodNotAllowed, code: "method_not_allowed", message: Sentence("\(request.method) is not allowed here."))
        case .unsupportedMediaType:
            return APIError(.unsupportedMediaType, code: "unsupported_media_type", message: Sentence("Send the body as application/json."))
        case .badRequest:
            return APIError(.badRequest, code: "bad_request", message: Sentence("The request could not be read."))
        default:
            let code = error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            return APIError(
                error.status, code: code.isEmpty ? "error" : code,
                message: Sentence("The request cannot be answered (HTTP \(error.status.code))."))
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error a client can act on: an HTTP status and the JSON body of DESIGN.md,
/// `{"error": {"code", "message", "fields"?}}`.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A stable, machine-readable code (`email_taken`, `validation_failed`…).
    public var code: String
    /// A sentence for people.
    public var message: String
    /// Per-field messages for validation errors (keys are JSON field names).
    public var fields: [String: String]?
    /// Extra response headers (`Retry-After`, `Allow`…).
    public var headers: HTTPFields = [:]

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, code: String, message: String, fields: [String: String]? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.headers = headers
    }

    /// The response for this error.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(requestID: nil)
    }

    func response(requestID: String?) -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        if let requestID { headers[.init("X-Request-ID")!] = requestID }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body(requestID: requestID))))
    }

    func body(requestID: String?) -> [UInt8] {
        var json = JSONWriter()
        json.objectStart()
        json.key("error")
        json.objectStart()
        json.field("code", code)
        json.field("message", message)
        if let fields, !fields.isEmpty {
            json.key("fields")
            json.objectStart()
            for (name, text) in fields.sorted(by: { $0.key < $1.key }) { json.field(name, text) }
            json.objectEnd()
        }
        if let requestID { json.field("request_id", requestID) }
        json.objectEnd()
        json.objectEnd()
        return json.bytes
    }
}

extension APIError {
    static func notFound(_ what: String = "resource") -> APIError {
        APIError(.notFound, code: "not_found", message: "No such \(what).")
    }

    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "A valid access token is required.", headers: [.wwwAuthenticate: "Bearer"])

    static let invalidCredentials = APIError(.unauthorized, code: "invalid_credentials", message: "The email or the password is wrong.")

    static func forbidden(_ message: String) -> APIError {
        APIError(.forbidden, code: "forbidden", message: message)
    }

    static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(.conflict, code: code, message: message)
    }

    static func validation(_ fields: [String: String]) -> APIError {
        APIError(.unprocessableContent, code: "validation_failed", message: "Some fields are not valid.", fields: fields)
    }

    static func invalidParameter(_ name: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: "validation_failed", message: "Some parameters are not valid.", fields: [name: message])
    }

    static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    static func tooManyRequests(retryAfter seconds: Int, code: String = "rate_limited", message: String = "Too many requests; try again later.") -> APIError {
        APIError(.tooManyRequests, code: code, message: message, headers: [.retryAfter: String(max(1, seconds))])
    }

    static let serviceUnavailable = APIError(.serviceUnavailable, code: "unavailable", message: "The service cannot reach its database right now; try again shortly.", headers: [.retryAfter: "5"])

    static let busy = APIError(.serviceUnavailable, code: "busy", message: "Too many sign-ins are being checked right now; try again in a moment.", headers: [.retryAfter: "1"])

    static let warmingUp = APIError(.serviceUnavailable, code: "warming_up", message: "The index is loading; try again in a few seconds.", headers: [.retryAfter: "2"])

    static let internalError = APIError(.internalServerError, code: "internal_error", message: "Something went wrong on our side. It has been logged.")
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error a client can act on: an HTTP status and the JSON error body (`Error` in openapi.yaml),
/// `{"error": {"code", "message", "fields"?}}`.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A stable, machine-readable code (`email_taken`, `validation_failed`…).
    public var code: String
    /// A sentence for people, in the language the request asked for (`Accept-Language`).
    public var message: Sentence
    /// Per-field problems for validation errors (keys are JSON field names).
    public var fields: [String: Sentence]?
    /// Extra response headers (`Retry-After`, `Allow`…).
    public var headers: HTTPFields = [:]

    /// Creates an error.
    public init(
        _ status: HTTPResponse.Status, code: String, message: Sentence, fields: [String: Sentence]? = nil, headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.headers = headers
    }

    /// The response for this error.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(requestID: nil, language: Language.asked(by: request))
    }

    /// The response, its sentences in `language` (said in `Content-Language`).
    func response(requestID: String?, language: Language) -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLanguage] = language.rawValue
        if let requestID { headers[.init("X-Request-ID")!] = requestID }
        return Response(
            status: status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: body(requestID: requestID, language: language))))
    }

    func body(requestID: String?, language: Language) -> [UInt8] {
        var json = JSONWriter()
        json.objectStart()
        json.key("error")
        json.objectStart()
        json.field("code", code)
        json.field("message", Catalogue.sentence(message, in: language))
        if let fields, !fields.isEmpty {
            json.key("fields")
            json.objectStart()
            for (name, text) in fields.sorted(by: { $0.key < $1.key }) { json.field(name, Catalogue.sentence(text, in: language)) }
            json.objectEnd()
        }
        if let requestID { json.field("request_id", requestID) }
        json.objectEnd()
        json.objectEnd()
        return json.bytes
    }
}

extension APIError {
    /// The one table from the domain's refusals to HTTP.
    init(_ error: DomainError) {
        var headers: HTTPFields = [:]
        let status: HTTPResponse.Status
        switch error.kind {
        case .invalid: status = .unprocessableContent
        case .unauthenticated:
            status = .unauthorized
            headers[.wwwAuthenticate] = "Bearer"
        case .rejectedCredentials: status = .unauthorized
        case .forbidden: status = .forbidden
        case .notFound: status = .notFound
        case .conflict: status = .conflict
        case .timedOut: status = .requestTimeout
        case .tooLarge: status = .contentTooLarge
        case .unsupportedType: status = .unsupportedMediaType
        case .tooMany: status = .tooManyRequests
        case .unavailable: status = .serviceUnavailable
        }
        if let seconds = error.retryAfter { headers[.retryAfter] = String(seconds) }
        self.init(status, code: error.code, message: error.sentence, fields: error.fields, headers: headers)
    }

    static func badRequest(_ code: String, _ message: Sentence) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    static let internalError = APIError(
        .internalServerError, code: "internal_error", message: Sentence("Something went wrong on our side. It has been logged."))
}

extension DomainError: HTTPResponseError {
    public var status: HTTPResponse.Status { APIError(self).status }
    public var headers: HTTPFields { APIError(self).headers }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        APIError(self).response(requestID: nil, language: Language.asked(by: request))
    }
}

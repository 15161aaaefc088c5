import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A refusal from the server, as its error body says it: the HTTP status, a stable
/// `code` to act on (`event_full`, `banned`, `overloaded`…), a sentence for people,
/// the fields at fault, and when trying again may succeed.
public struct SportLookError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// Per-field messages, by the request's field names.
    public var fields: [String: String]
    /// Seconds after which trying again may succeed (`Retry-After`).
    public var retryAfter: Int?

    public var description: String { "\(status) \(code): \(message)" + (fields.isEmpty ? "" : " \(fields)") }

    /// Whether trying the same request again later can succeed (overloaded, rate limited, unavailable).
    public var isTransient: Bool { status == 429 || status == 503 }

    /// The error a failed call threw, as a ``SportLookError`` when the server answered one.
    public static func from(_ error: any Error) -> SportLookError? {
        if let error = error as? SportLookError { return error }
        if let error = error as? ClientError { return from(error.underlyingError) }
        return nil
    }

    struct Body: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
            var fields: [String: String]?
        }
        var error: Detail
    }
}

/// Turns every answer that is not a success into a thrown ``SportLookError`` (read from
/// the error body and `Retry-After`), so calls return only what they asked for.
struct ErrorMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind == .clientError || response.status.kind == .serverError else { return (response, responseBody) }
        let bytes = try await responseBody.map { try await Data(collecting: $0, upTo: 1 << 20) } ?? Data()
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0) }
        guard let decoded = try? JSONDecoder().decode(SportLookError.Body.self, from: bytes) else {
            throw SportLookError(status: response.status.code, code: "http_\(response.status.code)", message: response.status.reasonPhrase, fields: [:], retryAfter: retryAfter)
        }
        throw SportLookError(status: response.status.code, code: decoded.error.code, message: decoded.error.message, fields: decoded.error.fields ?? [:], retryAfter: retryAfter)
    }
}

/// Adds the bearer token the app holds, when it holds one.
struct AuthMiddleware: ClientMiddleware {
    let credentials: Credentials

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = await credentials.token { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

/// The access token the client sends. The package keeps it in memory only: the app
/// stores it where it keeps secrets (the Keychain on iOS) and hands it back at start.
public actor Credentials {
    public private(set) var token: String?
    private var observers: [@Sendable (String?) -> Void] = []

    public init(token: String? = nil) { self.token = token }

    /// Sets (or, with nil, forgets) the token; observers are told.
    public func set(_ token: String?) {
        self.token = token
        for observer in observers { observer(token) }
    }

    /// `observer` is called with every new token (nil after signing out): where the app saves it.
    public func onChange(_ observer: @escaping @Sendable (String?) -> Void) { observers.append(observer) }
}

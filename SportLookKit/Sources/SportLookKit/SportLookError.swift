import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A refusal from the server, as its error body says it: the HTTP status, a stable
/// `code` to act on (`event_full`, `banned`, `overloaded`…), a sentence for people,
/// the fields at fault, and when trying again may succeed.
public struct SportLookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status (0 for an answer the call did not expect).
    public var status: Int
    /// The stable code to act on (`validation_failed`, `not_found`, `overloaded`…).
    public var code: String
    /// A sentence for people, in English.
    public var message: String
    /// Per-field messages, by the request's field names.
    public var fields: [String: String]
    /// Seconds after which trying again may succeed (`Retry-After`).
    public var retryAfter: Int?

    /// A refusal as the server would send it (for previews and an app's own tests).
    public init(status: Int, code: String, message: String, fields: [String: String] = [:], retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status) \(code): \(message)" + (fields.isEmpty ? "" : " \(fields)") }

    /// Whether trying the same request again later can succeed (overloaded, rate limited, unavailable).
    public var isTransient: Bool { status == 429 || status == 503 }

    /// The error a failed call threw, as a ``SportLookError`` when the server answered one.
    public static func from(_ error: any Error) -> SportLookError? {
        if let error = error as? SportLookError { return error }
        if let error = error as? ClientError { return from(error.underlyingError) }
        return nil
    }

    /// An answer the call did not expect (a success of another kind).
    static func unexpected(_ output: some Sendable) -> SportLookError {
        SportLookError(status: 0, code: "unexpected_answer", message: "the server answered \(output)", fields: [:], retryAfter: nil)
    }

    /// A value this package sends that the contract does not know (a version mismatch).
    static func unknownValue(_ raw: String) -> SportLookError {
        SportLookError(status: 0, code: "unknown_value", message: "not a value of the contract: \(raw)", fields: [:], retryAfter: nil)
    }

    /// An answer that does not say what the contract says it does (an id that is not one).
    static func malformed(_ message: String) -> SportLookError {
        SportLookError(status: 0, code: "malformed_answer", message: message, fields: [:], retryAfter: nil)
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
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind == .clientError || response.status.kind == .serverError else { return (response, responseBody) }
        var bytes = Data()
        if let responseBody { bytes = try await Data(collecting: responseBody, upTo: 1 << 20) }
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0) }
        guard let decoded = try? JSONDecoder().decode(SportLookError.Body.self, from: bytes) else {
            throw SportLookError(
                status: response.status.code, code: "http_\(response.status.code)", message: response.status.reasonPhrase, fields: [:],
                retryAfter: retryAfter)
        }
        throw SportLookError(
            status: response.status.code, code: decoded.error.code, message: decoded.error.message, fields: decoded.error.fields ?? [:],
            retryAfter: retryAfter)
    }
}

/// Request fields the facade sends as JSON `null`. The generated client leaves out a nil
/// field, and the contract gives some fields a meaning for `null` that absence has not
/// (`null` takes an attendance mark back): a facade call names them for its task, and
/// this middleware writes them into the body.
enum ExplicitNulls {
    @TaskLocal static var fields: Set<String> = []

    /// Runs `body` with `fields` sent as `null` in its requests' JSON bodies.
    static func sending<Result: Sendable>(_ fields: Set<String>, _ body: () async throws -> Result) async throws -> Result {
        try await $fields.withValue(fields) { try await body() }
    }
}

struct ExplicitNullsMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let fields = ExplicitNulls.fields
        guard !fields.isEmpty, let body, request.headerFields[.contentType]?.hasPrefix("application/json") == true else {
            return try await next(request, body, baseURL)
        }
        let bytes = try await Data(collecting: body, upTo: 1 << 20)
        guard var object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
            return try await next(request, HTTPBody(bytes), baseURL)
        }
        for field in fields where object[field] == nil { object[field] = NSNull() }
        return try await next(request, HTTPBody(try JSONSerialization.data(withJSONObject: object)), baseURL)
    }
}

/// Adds the bearer token the app holds, when it holds one.
struct AuthMiddleware: ClientMiddleware {
    let credentials: Credentials

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = await credentials.token { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

/// The access token the client sends, and the device key the server gave this device.
/// The package keeps both in memory only: the app stores them where it keeps secrets
/// (the Keychain on iOS), and hands them back at start.
public actor Credentials {
    /// What the app saves: `Codable`, to put in the Keychain as one item.
    public struct Saved: Sendable, Hashable, Codable {
        /// The bearer token; nil when signed out.
        public var token: String?
        /// The key the server knows this device by.
        public var deviceKey: String?

        /// What to keep: the token and the device key.
        public init(token: String?, deviceKey: String?) {
            self.token = token
            self.deviceKey = deviceKey
        }
    }

    /// The bearer token; nil when signed out.
    public private(set) var token: String?
    /// The key the server knows this device by: sent with logins and resets, so that
    /// failed attempts elsewhere never lock this device out. Kept after signing out.
    public private(set) var deviceKey: String?
    private var observers: [@Sendable (Saved) -> Void] = []

    /// Credentials holding a token and device key the app saved (none: signed out).
    public init(token: String? = nil, deviceKey: String? = nil) {
        self.token = token
        self.deviceKey = deviceKey
    }

    /// Credentials as the app saved them.
    public init(_ saved: Saved) { self.init(token: saved.token, deviceKey: saved.deviceKey) }

    /// What to save now.
    public var saved: Saved { Saved(token: token, deviceKey: deviceKey) }

    /// Sets (or, with nil, forgets) the token, and the device key when one is given; observers are told.
    public func set(token: String?, deviceKey: String? = nil) {
        self.token = token
        if let deviceKey { self.deviceKey = deviceKey }
        let saved = saved
        for observer in observers { observer(saved) }
    }

    /// `observer` is called with what to save after every sign-in and sign-out: where the app keeps it.
    public func onChange(_ observer: @escaping @Sendable (Saved) -> Void) { observers.append(observer) }
}

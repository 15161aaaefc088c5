import Foundation

/// A refusal in the service's own terms: what kind of refusal, a stable code a
/// client can act on, a sentence for people, and per-field problems. Every layer
/// below HTTP throws these; HTTP turns each kind into a status and headers in one
/// table (`APIError.init(_:)`), the socket endpoint into an error frame.
public struct DomainError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The input breaks a rule (422).
        case invalid
        /// No valid session (401, with a bearer challenge).
        case unauthenticated
        /// The email or the password is wrong (401, no challenge: a token would not help).
        case rejectedCredentials
        /// Not this caller's to do (403).
        case forbidden
        /// No such thing, or not visible to this caller (404).
        case notFound
        /// The state does not allow it (409).
        case conflict
        /// The body did not arrive in time (408).
        case timedOut
        /// The body is larger than allowed (413).
        case tooLarge
        /// The body is of a kind not accepted (415).
        case unsupportedType
        /// Too many, too fast (429).
        case tooMany
        /// Cannot be done right now (503).
        case unavailable
    }

    public var kind: Kind
    /// A stable, machine-readable code (`email_taken`, `validation_failed`…).
    public var code: String
    /// A sentence for people, put in the reader's language where it is answered.
    public var sentence: Sentence
    /// Per-field problems (keys are the request's field names).
    public var fields: [String: Sentence]?
    /// Seconds after which trying again may succeed.
    public var retryAfter: Int?

    public init(_ kind: Kind, code: String, message: Sentence, fields: [String: Sentence]? = nil, retryAfter: Int? = nil) {
        self.kind = kind
        self.code = code
        self.sentence = message
        self.fields = fields
        self.retryAfter = retryAfter
    }

    /// The sentence in English (the command line, logs).
    public var message: String { sentence.english }
}

extension DomainError {
    static func notFound(_ thing: Thing) -> DomainError {
        DomainError(.notFound, code: "not_found", message: thing.notFound)
    }

    static let unauthorized = DomainError(.unauthenticated, code: "unauthorized", message: Sentence("A valid access token is required."))

    static let invalidCredentials = DomainError(
        .rejectedCredentials, code: "invalid_credentials", message: Sentence("The email or the password is wrong."))

    static func forbidden(_ message: Sentence) -> DomainError {
        DomainError(.forbidden, code: "forbidden", message: message)
    }

    static func forbidden(_ code: String, _ message: Sentence) -> DomainError {
        DomainError(.forbidden, code: code, message: message)
    }

    /// Staff suspended the account: no session opens, and a session the suspension ended
    /// is refused with this rather than as an unknown token.
    static func accountSuspended(until: Date?) -> DomainError {
        DomainError(
            .forbidden, code: "account_suspended",
            message: until.map { Sentence("This account is suspended until \(RFC3339.format($0)).") }
                ?? Sentence("This account is suspended."))
    }

    static func conflict(_ code: String, _ message: Sentence) -> DomainError {
        DomainError(.conflict, code: code, message: message)
    }

    static func validation(_ fields: [String: Sentence]) -> DomainError {
        DomainError(.invalid, code: "validation_failed", message: Sentence("Some fields are not valid."), fields: fields)
    }

    static func invalidParameter(_ name: String, _ message: Sentence) -> DomainError {
        DomainError(.invalid, code: "validation_failed", message: Sentence("Some parameters are not valid."), fields: [name: message])
    }

    static func tooManyRequests(
        retryAfter seconds: Int, code: String = "rate_limited", message: Sentence = Sentence("Too many requests; try again later.")
    ) -> DomainError {
        DomainError(.tooMany, code: code, message: message, retryAfter: max(1, seconds))
    }

    static let serviceUnavailable = DomainError(
        .unavailable, code: "unavailable", message: Sentence("The service cannot reach its database right now; try again shortly."),
        retryAfter: 5)

    /// No database server takes writes now (the primary is lost, none promoted yet): a
    /// write is refused at once while reads go on.
    static let readOnly = DomainError(
        .unavailable, code: "read_only",
        message: Sentence("The service is read-only for a moment while its database fails over; try again shortly."),
        retryAfter: 5)

    /// Past capacity (too many writes already waiting for the database): refused at
    /// once, so that what is accepted stays quick.
    static let overloaded = DomainError(
        .unavailable, code: "overloaded", message: Sentence("The service is at capacity; try again in a moment."), retryAfter: 1)

    static let busy = DomainError(
        .unavailable, code: "busy", message: Sentence("Too many sign-ins are being checked right now; try again in a moment."),
        retryAfter: 1)

    static let warmingUp = DomainError(
        .unavailable, code: "warming_up", message: Sentence("The index is loading; try again in a few seconds."), retryAfter: 2)
}

extension DomainError: CustomStringConvertible {
    /// The sentence and its code, as the command line and logs show it.
    public var description: String {
        let fields = (fields ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.english)" }
        return "\(message) (\(code))" + (fields.isEmpty ? "" : " — " + fields.joined(separator: "; "))
    }
}

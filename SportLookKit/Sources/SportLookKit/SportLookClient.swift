import Foundation
import HTTPTypes
import OpenAPIRuntime
internal import SportLookAPI

#if canImport(Darwin)
    import OpenAPIURLSession
#else
    import OpenAPIAsyncHTTPClient
#endif

/// A SportLook server, from an app: every operation of its API, grouped by what a person
/// does (``auth``, ``events``, ``series``, ``groups``, ``people``, ``chat``, ``media``,
/// ``notifications``, ``me``…), taking and returning plain models; sign-in that keeps the
/// token in ``credentials``; and the live chat (``chatSession(connector:backoff:pacing:)``).
///
/// A call the server refuses throws a ``SportLookError`` carrying the error's `code`, its
/// fields and `Retry-After`. A call returns only what it asked for.
///
/// ```swift
/// let sportlook = SportLookClient(server: URL(string: "https://sportlook.example")!)
/// try await sportlook.auth.logIn(email: "ada@example.com", password: "correct horse")
/// for try await page in sportlook.events.nearby(around: Place(latitude: 52.52, longitude: 13.40)) { … }
/// ```
public struct SportLookClient: Sendable {
    /// The server's base URL.
    public let server: URL
    /// The token (and device key) the calls use: sign-in sets it, ``SportLookClient/Auth/logOut()`` forgets it.
    public let credentials: Credentials
    /// The generated client: every operation as `openapi.yaml` names it (the facade calls it).
    let api: Client

    /// - Parameters:
    ///   - server: The server's base URL.
    ///   - credentials: Where the token is kept while the app runs; give it the token the
    ///     app saved to be signed in at once.
    ///   - transport: How requests travel (URLSession on Apple platforms, AsyncHTTPClient
    ///     on Linux, unless the app gives another).
    public init(server: URL, credentials: Credentials = Credentials(), transport: (any ClientTransport)? = nil) {
        self.server = server
        self.credentials = credentials
        #if canImport(Darwin)
            let standard: any ClientTransport = URLSessionTransport()
        #else
            let standard: any ClientTransport = AsyncHTTPClientTransport()
        #endif
        api = Client(
            serverURL: server,
            configuration: Configuration(dateTranscoder: RFC3339Dates(), jsonEncodingOptions: []),
            transport: transport ?? standard,
            middlewares: [ErrorMiddleware(), AuthMiddleware(credentials: credentials), ExplicitNullsMiddleware()]
        )
    }

    /// Runs calls of the generated client, throwing a refusal as the ``SportLookError`` it is.
    func call<Result: Sendable>(retries: Int = 0, _ body: (Client) async throws -> Result) async throws -> Result {
        try await retrying(retries) {
            do {
                return try await body(api)
            } catch {
                throw SportLookError.from(error) ?? error
            }
        }
    }

    /// Runs `body` and, when the server refuses it for now (`overloaded`, `rate_limited`…:
    /// 429 or 503 with `Retry-After`), runs it again after the pause the server asked for,
    /// up to `retries` times. Use it only for calls that are safe to repeat.
    ///
    /// ```swift
    /// try await sportlook.retrying { try await sportlook.chat.delete(room, seq: 7) }
    /// ```
    public func retrying<Result: Sendable>(_ retries: Int = 3, _ body: () async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let refusal as SportLookError where refusal.isTransient && attempt < retries {
                attempt += 1
                try await Task.sleep(for: .seconds(min(max(refusal.retryAfter ?? 1, 1), Self.longestRetryWait)))
            }
        }
    }

    /// The generated client's value with the same raw value.
    static func wire<Value: RawRepresentable>(_ raw: String, as: Value.Type) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: raw) else { throw SportLookError.unknownValue(raw) }
        return value
    }

    /// The longest pause ``retrying(_:_:)`` waits before trying again, in seconds,
    /// whatever `Retry-After` says.
    public static let longestRetryWait = 60

    // MARK: Accounts

    /// The account signed in to, and whether this sign-in made it.
    public struct SignIn: Sendable, Hashable, Codable {
        /// The account, as the signed-in user sees it.
        public var user: Profile
        /// True when the account was made by this call (registration, or a provider's first sign-in).
        public var created: Bool
        /// When the token stops working (sign in again then).
        public var expiresAt: Date
    }

    /// Makes an account and signs in to it.
    @discardableResult
    func register(name: String, email: String, password: String) async throws -> SignIn {
        let result = try await call {
            try await $0.register(body: .json(.init(name: name, email: email, password: password))).created.body.json
        }
        return try await keep(result, created: true)
    }

    /// Signs in with email and password. The device key of earlier sign-ins is sent, so
    /// that strangers guessing the password elsewhere cannot lock this device out.
    @discardableResult
    func logIn(email: String, password: String) async throws -> SignIn {
        let deviceKey = await credentials.deviceKey
        let result = try await call {
            try await $0.login(body: .json(.init(email: email, password: password, deviceKey: deviceKey))).ok.body.json
        }
        return try await keep(result, created: false)
    }

    /// A sign-in provider.
    public enum Provider: String, Sendable, Codable, CaseIterable {
        /// Sign in with Apple (`AUTH_APPLE_CLIENT_IDS` on the server).
        case apple
        /// Google Sign-In (`AUTH_GOOGLE_CLIENT_IDS`).
        case google
        /// Facebook Limited Login's ID token (`AUTH_FACEBOOK_CLIENT_IDS`).
        case facebook
    }

    /// Signs in with a provider's OpenID Connect ID token (Sign in with Apple, Google,
    /// Facebook Limited Login). The first sign-in makes the account (`created`).
    /// - Parameters:
    ///   - nonce: The nonce the sign-in was started with, when it was (Apple's tokens
    ///     carry its SHA-256; pass the nonce itself).
    ///   - name: The name for a new account (Apple gives it to the app once, not in the token).
    @discardableResult
    func signIn(with provider: Provider, idToken: String, nonce: String? = nil, name: String? = nil) async throws -> SignIn {
        try await signIn(.init(provider: provider.payload, idToken: idToken, nonce: nonce, name: name))
    }

    /// Signs in with a classic Facebook Login access token.
    @discardableResult
    func signIn(facebookAccessToken: String, name: String? = nil) async throws -> SignIn {
        try await signIn(.init(provider: .facebook, accessToken: facebookAccessToken, name: name))
    }

    private func signIn(_ credential: Components.Schemas.ProviderCredential) async throws -> SignIn {
        switch try await call({ try await $0.signInWithProvider(body: .json(credential)) }) {
        case .ok(let ok): return try await keep(try ok.body.json, created: false)
        case .created(let created): return try await keep(try created.body.json, created: true)
        case let other: throw SportLookError.unexpected(other)
        }
    }

    /// Mails a code that verifies the signed-in account's email.
    func requestEmailVerification() async throws {
        _ = try await call { try await $0.startEmailVerification().accepted }
    }

    /// Verifies the signed-in account's email with the mailed code.
    func verifyEmail(code: String) async throws {
        _ = try await call { try await $0.finishEmailVerification(body: .json(.init(code: code))).noContent }
    }

    /// A password reset asked for: the code is mailed, and only this request's holder may use it.
    /// `Codable`: keep it while the user goes to their mail (the app may be closed meanwhile).
    public struct PasswordResetRequest: Sendable, Hashable, Codable {
        /// The email the code was asked for.
        public var email: String
        /// Send it back with the code.
        public var resetID: String
        /// Four letters the mail's subject carries, to tell it from others: show them.
        public var mark: String

        /// A request kept from an earlier run of the app.
        public init(email: String, resetID: String, mark: String) {
            self.email = email
            self.resetID = resetID
            self.mark = mark
        }
    }

    /// Mails a code that sets a new password (the answer is the same whether or not the
    /// email has an account).
    func requestPasswordReset(email: String) async throws -> PasswordResetRequest {
        let deviceKey = await credentials.deviceKey
        let body = try await call {
            try await $0.startPasswordReset(body: .json(.init(email: email, deviceKey: deviceKey))).accepted.body.json
        }
        return PasswordResetRequest(email: email, resetID: body.resetId, mark: body.mark)
    }

    /// Sets a new password with the mailed code. Every session of the account ends: sign
    /// in again with the new password.
    func resetPassword(_ request: PasswordResetRequest, code: String, newPassword: String) async throws {
        let deviceKey = await credentials.deviceKey
        _ = try await call {
            try await $0.finishPasswordReset(
                body: .json(.init(email: request.email, code: code, password: newPassword, resetId: request.resetID, deviceKey: deviceKey))
            ).noContent
        }
        await credentials.set(token: nil)
    }

    /// Ends this session on the server and forgets the token (the device key stays).
    func logOut() async throws {
        do {
            _ = try await call { try await $0.logout().noContent }
        } catch let error as SportLookError where error.status == 401 {
            // The session had ended already: signed out all the same.
        }
        await credentials.set(token: nil)
    }

    private func keep(_ result: Components.Schemas.AuthResult, created: Bool) async throws -> SignIn {
        guard let token = result.accessToken else {
            throw SportLookError(
                status: 200, code: "no_token", message: "the server answered a cookie session, not a token", fields: [:], retryAfter: nil)
        }
        await credentials.set(token: token, deviceKey: result.deviceKey)
        return SignIn(user: try Profile(result.user), created: created, expiresAt: result.expiresAt)
    }

    // MARK: Chat

    /// A chat session on this server's socket, connecting with ``credentials``' token
    /// (one per app: ``ChatSession/start()`` it once signed in).
    public func chatSession(
        connector: any ChatSocketConnector = .standard, backoff: ChatSession.Backoff = .init(), pacing: ChatSession.Pacing = .init()
    ) -> ChatSession {
        let credentials = credentials
        return ChatSession(server: server, token: { await credentials.token }, connector: connector, backoff: backoff, pacing: pacing)
    }
}

extension SportLookClient.Provider {
    var payload: Components.Schemas.ProviderCredential.ProviderPayload {
        switch self {
        case .apple: .apple
        case .google: .google
        case .facebook: .facebook
        }
    }
}

/// Date-times as the server writes and reads them: RFC 3339, sent with milliseconds, read
/// with or without fractions of a second.
struct RFC3339Dates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        Timestamps.fractional.format(date)
    }

    func decode(_ text: String) throws -> Date {
        guard let date = Timestamps.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date-time: \(text)"))
        }
        return date
    }
}

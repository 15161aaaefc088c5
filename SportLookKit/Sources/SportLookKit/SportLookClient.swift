import Foundation
import HTTPTypes
import OpenAPIRuntime
@_exported import SportLookAPI

#if canImport(Darwin)
    import OpenAPIURLSession
#else
    import OpenAPIAsyncHTTPClient
#endif

/// A SportLook server, from an app: every operation of its API (``api``, generated from
/// the server's `openapi.yaml`), sign-in that keeps the token in ``credentials``,
/// uploads, paging as `AsyncSequence`, and the chat session.
///
/// A call the server refuses throws a ``SportLookError`` carrying the error's `code`, its
/// fields and `Retry-After`: directly from this type's methods and ``call(retries:_:)``;
/// wrapped in OpenAPIRuntime's `ClientError` from ``api`` used bare (`error.sportLookError`
/// reads it). A call returns only what it asked for.
///
/// ```swift
/// let sportlook = SportLookClient(server: URL(string: "https://sportlook.example")!)
/// try await sportlook.logIn(email: "ada@example.com", password: "correct horse")
/// let nearby = try await sportlook.call { try await $0.eventsNearby(query: .init(lat: 52.52, lon: 13.40, radiusKm: 5)).ok.body.json }
/// ```
public struct SportLookClient: Sendable {
    /// The server's base URL.
    public let server: URL
    /// The token (and device key) the calls use: sign-in sets it, ``logOut()`` forgets it.
    public let credentials: Credentials
    /// Every operation of the API, as `openapi.yaml` names it (`api.createEvent(…)`, `api.joinEvent(…)`…).
    public let api: Client

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
            middlewares: [ErrorMiddleware(), AuthMiddleware(credentials: credentials)]
        )
    }

    /// Runs calls of ``api``, throwing a refusal as the ``SportLookError`` it is. A
    /// transient refusal (`overloaded`, `rate_limited`…: 429 or 503 with `Retry-After`)
    /// is tried again after the pause the server asked for, up to `retries` times: pass
    /// a number only for calls that are safe to repeat.
    ///
    /// ```swift
    /// let event = try await sportlook.call { try await $0.getEvent(path: .init(id: id)).ok.body.json }
    /// ```
    public func call<Result: Sendable>(retries: Int = 0, _ body: (Client) async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await body(api)
            } catch {
                guard let refusal = SportLookError.from(error) else { throw error }
                guard refusal.isTransient, attempt < retries else { throw refusal }
                attempt += 1
                try await Task.sleep(for: .seconds(min(max(refusal.retryAfter ?? 1, 1), Self.longestRetryWait)))
            }
        }
    }

    /// The longest pause ``call(retries:_:)`` waits before trying again, in seconds,
    /// whatever `Retry-After` says.
    public static let longestRetryWait = 60

    // MARK: Accounts

    /// The account signed in to, and whether this sign-in made it.
    public struct SignIn: Sendable {
        /// The account, as the signed-in user sees it.
        public var user: Components.Schemas.PrivateProfile
        /// True when the account was made by this call (registration, or a provider's first sign-in).
        public var created: Bool
        /// When the token stops working (sign in again then).
        public var expiresAt: Date
    }

    /// Makes an account and signs in to it.
    @discardableResult
    public func register(name: String, email: String, password: String) async throws -> SignIn {
        let result = try await call {
            try await $0.register(body: .json(.init(name: name, email: email, password: password))).created.body.json
        }
        return try await keep(result, created: true)
    }

    /// Signs in with email and password. The device key of earlier sign-ins is sent, so
    /// that strangers guessing the password elsewhere cannot lock this device out.
    @discardableResult
    public func logIn(email: String, password: String) async throws -> SignIn {
        let deviceKey = await credentials.deviceKey
        let result = try await call {
            try await $0.login(body: .json(.init(email: email, password: password, deviceKey: deviceKey))).ok.body.json
        }
        return try await keep(result, created: false)
    }

    /// A sign-in provider.
    public enum Provider: String, Sendable, CaseIterable {
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
    public func signIn(with provider: Provider, idToken: String, nonce: String? = nil, name: String? = nil) async throws -> SignIn {
        try await signIn(.init(provider: provider.payload, idToken: idToken, nonce: nonce, name: name))
    }

    /// Signs in with a classic Facebook Login access token.
    @discardableResult
    public func signIn(facebookAccessToken: String, name: String? = nil) async throws -> SignIn {
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
    public func requestEmailVerification() async throws {
        _ = try await call { try await $0.startEmailVerification().accepted }
    }

    /// Verifies the signed-in account's email with the mailed code.
    public func verifyEmail(code: String) async throws {
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

        public init(email: String, resetID: String, mark: String) {
            self.email = email
            self.resetID = resetID
            self.mark = mark
        }
    }

    /// Mails a code that sets a new password (the answer is the same whether or not the
    /// email has an account).
    public func requestPasswordReset(email: String) async throws -> PasswordResetRequest {
        let deviceKey = await credentials.deviceKey
        let body = try await call {
            try await $0.startPasswordReset(body: .json(.init(email: email, deviceKey: deviceKey))).accepted.body.json
        }
        return PasswordResetRequest(email: email, resetID: body.resetId, mark: body.mark)
    }

    /// Sets a new password with the mailed code. Every session of the account ends: sign
    /// in again with the new password.
    public func resetPassword(_ request: PasswordResetRequest, code: String, newPassword: String) async throws {
        let deviceKey = await credentials.deviceKey
        _ = try await call {
            try await $0.finishPasswordReset(
                body: .json(.init(email: request.email, code: code, password: newPassword, resetId: request.resetID, deviceKey: deviceKey))
            ).noContent
        }
        await credentials.set(token: nil)
    }

    /// Ends this session on the server and forgets the token (the device key stays).
    public func logOut() async throws {
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
        return SignIn(user: result.user, created: created, expiresAt: result.expiresAt)
    }

    // MARK: Photos

    /// What an uploaded photo is for.
    public typealias PhotoUse = Operations.UploadMedia.Input.Query.UsePayload

    /// Uploads a JPEG or PNG photo (what it is is read from its bytes). Put it to use
    /// within a day: `photo_id` on the profile, `cover_id` on an event or group,
    /// `attachment_id` on a chat message.
    public func upload(photo data: Data, for use: PhotoUse) async throws -> Components.Schemas.Media {
        let body = HTTPBody(data)
        let isPNG = data.starts(with: [0x89, 0x50, 0x4E, 0x47])
        return try await call { try await $0.uploadMedia(query: .init(use: use), body: isPNG ? .png(body) : .jpeg(body)).created.body.json }
    }

    // MARK: Lists

    /// Every item of a list the server answers a page at a time (`{"items", "next_cursor"}`),
    /// read as the sequence is iterated: `page` fetches the page after a cursor (nil: the first).
    ///
    /// ```swift
    /// for try await event in sportlook.pages({ cursor in
    ///     try await sportlook.api.myEvents(query: .init(cursor: cursor)).ok.body.json
    /// }) { … }
    /// ```
    public func pages<Page: CursorPage>(_ page: @escaping @Sendable (_ cursor: String?) async throws -> Page) -> Paged<Page> {
        Paged(fetch: page)
    }

    /// The signed-in user's games (coming ones first by default), every page.
    public func myEvents(
        role: Operations.MyEvents.Input.Query.RolePayload = .attending, when: Operations.MyEvents.Input.Query.WhenPayload = .upcoming
    ) -> Paged<Components.Schemas.EventPage> {
        pages { cursor in try await api.myEvents(query: .init(role: role, when: when, limit: 100, cursor: cursor)).ok.body.json }
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

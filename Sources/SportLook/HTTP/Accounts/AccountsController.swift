import Foundation
import HTTPTypes
import Hummingbird

/// Register, login, logout, the caller's profile and sessions, the sports catalogue.
struct AccountsController {
    let accounts: AccountService
    let codes: EmailCodeService
    let sports: SportCatalog
    let links: MediaLinks

    struct Registration: Decodable {
        var name: String?
        var email: String?
        var password: String?
    }
    struct Login: Decodable {
        var email: String?
        var password: String?
        var deviceKey: String?
    }
    struct PasswordChange: Decodable {
        var currentPassword: String?
        var newPassword: String?
    }
    struct CodeRequest: Decodable {
        var email: String?
        var deviceKey: String?
    }
    struct CodeAnswer: Decodable {
        var email: String?
        var code: String?
        var password: String?
        var resetId: String?
        var deviceKey: String?
    }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.post("/v1/auth/register", use: register)
        routes.post("/v1/auth/login", use: login)
        routes.post("/v1/auth/provider", use: signInWithProvider)
        routes.post("/v1/auth/password/reset/start", use: startPasswordReset)
        routes.post("/v1/auth/password/reset/finish", use: finishPasswordReset)
        routes.get("/v1/sports", use: listSports)
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/auth/email/verify/start", use: startEmailVerification)
        routes.post("/v1/auth/email/verify/finish", use: finishEmailVerification)
        routes.post("/v1/auth/logout", use: logout)
        routes.get("/v1/me", use: getMe)
        routes.patch("/v1/me", use: updateMe)
        routes.get("/v1/me/sessions", use: listSessions)
        routes.delete("/v1/me/sessions", use: revokeOtherSessions)
        routes.post("/v1/me/password", use: changePassword)
        routes.delete("/v1/me", use: deleteMe)
        routes.get("/v1/me/identities", use: listIdentities)
        routes.post("/v1/me/identities", use: linkIdentity)
        routes.delete("/v1/me/identities/:provider", use: unlinkIdentity)
        routes.delete("/v1/me/sessions/:id", use: revokeSession)
    }

    /// A new session's answer: the token in the body, or — when the sign-in asked for
    /// it with `SportLook-Session: cookie` (the web client) — in an `HttpOnly` cookie
    /// and not in the body, so no script on the page ever holds it.
    func session(_ issued: AccountService.Issued, status: HTTPResponse.Status, request: Request) async throws -> JSONResponse {
        var issued = issued
        issued.user = try await accounts.remember(Language.accepted(by: request), for: issued.user)
        guard SessionCookie.isRequested(by: request) else {
            return JSONResponse(status: status, IssuedToken(issued: issued, links: links, includesToken: true))
        }
        // The cookie's lifetime is the token's, as Max-Age: the browser's clock need not agree with ours.
        let cookie = SessionCookie.setting(issued.token, expiresAt: issued.expiresAt, now: accounts.clock.now(), request: request)
        return JSONResponse(
            status: status, IssuedToken(issued: issued, links: links, includesToken: false),
            headers: [.setCookie: cookie.description, .cacheControl: "no-store"])
    }

    static func userAgent(_ request: Request) -> String? {
        request.headers[.userAgent].map { String($0.prefix(200)) }
    }
}

// MARK: Handlers

extension AccountsController {
    /// `POST /v1/auth/register`
    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let address = context.remoteAddress.map(ClientAddress.throttleKey)
        // An address known to be over its limit is refused before its body is read.
        try accounts.refuseRegistrationIfRemembered(address: address)
        let input = try await RequestBody.decode(Registration.self, from: request, context: context)
        let issued = try await accounts.register(
            name: input.name, email: input.email, password: input.password, address: address, userAgent: Self.userAgent(request))
        return try await session(issued, status: .created, request: request)
    }

    /// `POST /v1/auth/login`
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(Login.self, from: request, context: context)
        let issued = try await accounts.login(
            email: input.email, password: input.password, deviceKey: input.deviceKey,
            address: context.remoteAddress.map(ClientAddress.throttleKey), userAgent: Self.userAgent(request))
        return try await session(issued, status: .ok, request: request)
    }

    /// `POST /v1/auth/provider`
    @Sendable func signInWithProvider(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(AccountService.ProviderCredential.self, from: request, context: context)
        let signedIn = try await accounts.signIn(
            with: input, address: context.remoteAddress.map(ClientAddress.throttleKey), userAgent: Self.userAgent(request))
        return try await session(signedIn.issued, status: signedIn.created ? .created : .ok, request: request)
    }

    /// `POST /v1/auth/password/reset/start`
    /// A reset code: asking answers 202 whether or not the email has an account.
    @Sendable func startPasswordReset(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(CodeRequest.self, from: request, context: context)
        let started = try await codes.startReset(
            email: input.email, deviceKey: input.deviceKey, address: context.remoteAddress.map(ClientAddress.throttleKey))
        return JSONResponse(status: .accepted, ResetRequested(resetID: started.id, mark: started.mark))
    }

    /// `POST /v1/auth/password/reset/finish`
    @Sendable func finishPasswordReset(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(CodeAnswer.self, from: request, context: context)
        // Every answer in the deprecated shape says so while it works, its refusals too.
        let legacy = codes.deprecatedReset(resetID: input.resetId)
        do {
            try await codes.finishReset(
                email: input.email, code: input.code, password: input.password, resetID: input.resetId, deviceKey: input.deviceKey,
                address: context.remoteAddress.map(ClientAddress.throttleKey))
        } catch let refusal as DomainError {
            guard let legacy else { throw refusal }
            var answer = APIError(refusal)
            answer.headers.append(contentsOf: DeprecationHeaders.fields(legacy))
            throw answer
        }
        return Response(status: .noContent, headers: legacy.map(DeprecationHeaders.fields) ?? [:])
    }

    /// `GET /v1/sports`
    @Sendable func listSports(_: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        JSONResponse(ItemList(items: sports.all.map { SportRepresentation(sport: $0) }), headers: [.cacheControl: "public, max-age=300"])
    }

    /// `POST /v1/auth/email/verify/start`
    /// Verifying one's own email: the code goes to the signed-in account's address.
    @Sendable func startEmailVerification(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await codes.startVerification(of: context.identity, address: context.remoteAddress.map(ClientAddress.throttleKey))
        return Response(status: .accepted)
    }

    /// `POST /v1/auth/email/verify/finish`
    @Sendable func finishEmailVerification(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(CodeAnswer.self, from: request, context: context)
        try await codes.finishVerification(
            of: context.identity, code: input.code, address: context.remoteAddress.map(ClientAddress.throttleKey))
        return Response(status: .noContent)
    }

    /// `POST /v1/auth/logout`
    @Sendable func logout(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await accounts.revoke(session: context.identity.tokenID, of: context.userID)
        var response = Response(status: .noContent)
        if SessionCookie.credential(of: request)?.fromCookie == true {
            for cookie in SessionCookie.clearing(request) { response.setCookie(cookie) }
        }
        return response
    }

    /// `GET /v1/me`
    @Sendable func getMe(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(PrivateProfile(user: try await accounts.profile(context.userID), links: links))
    }

    /// `PATCH /v1/me`
    @Sendable func updateMe(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(AccountService.ProfileInput.self, from: request, context: context)
        var user = try await accounts.updateProfile(context.userID, input)
        // A language set in the body wins over the header's.
        if input.language.isAbsent { user = try await accounts.remember(Language.accepted(by: request), for: user) }
        return JSONResponse(PrivateProfile(user: user, links: links))
    }

    /// `GET /v1/me/sessions`
    @Sendable func listSessions(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let sessions = try await accounts.sessions(of: context.identity)
        return JSONResponse(
            ItemList(items: sessions.map { SessionRepresentation(session: $0, current: $0.id == context.identity.tokenID) }))
    }

    /// `DELETE /v1/me/sessions`
    @Sendable func revokeOtherSessions(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await accounts.revokeOtherSessions(of: context.identity)
        return Response(status: .noContent)
    }

    /// `POST /v1/me/password`
    @Sendable func changePassword(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(PasswordChange.self, from: request, context: context)
        try await accounts.changePassword(of: context.identity, current: input.currentPassword, new: input.newPassword)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/me`
    @Sendable func deleteMe(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await accounts.deleteAccount(of: context.identity)
        return Response(status: .noContent)
    }

    /// `GET /v1/me/identities`
    @Sendable func listIdentities(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(
            ItemList(items: try await accounts.linkedIdentities(of: context.userID).map { LinkedIdentityRepresentation(identity: $0) }))
    }

    /// `POST /v1/me/identities`
    @Sendable func linkIdentity(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(AccountService.ProviderCredential.self, from: request, context: context)
        let (linked, created) = try await accounts.link(
            input, to: context.identity, address: context.remoteAddress.map(ClientAddress.throttleKey))
        return JSONResponse(status: created ? .created : .ok, LinkedIdentityRepresentation(identity: linked))
    }

    /// `DELETE /v1/me/identities/{provider}`
    @Sendable func unlinkIdentity(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await accounts.unlink(context.parameters.get("provider") ?? "", from: context.identity)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/me/sessions/{id}`
    @Sendable func revokeSession(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await accounts.revoke(session: try context.uuid("id", .session), of: context.userID)
        return Response(status: .noContent)
    }
}

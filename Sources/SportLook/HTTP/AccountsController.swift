import Foundation
import Hummingbird

/// Register, login, logout, the caller's profile and sessions, the sports catalogue.
struct AccountsController {
    let accounts: AccountService
    let codes: EmailCodeService
    let sports: SportCatalog
    let links: MediaLinks

    struct Registration: Decodable { var name: String?; var email: String?; var password: String? }
    struct Login: Decodable { var email: String?; var password: String? }
    struct PasswordChange: Decodable { var currentPassword: String?; var newPassword: String? }
    struct CodeRequest: Decodable { var email: String? }
    struct CodeAnswer: Decodable { var email: String?; var code: String?; var password: String? }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.post("auth/register") { request, context in
            let address = context.remoteAddress.map(ClientAddress.throttleKey)
            // An address known to be over its limit is refused before its body is read.
            try accounts.refuseRegistrationIfRemembered(address: address)
            let input = try await RequestBody.decode(Registration.self, from: request, context: context)
            let issued = try await accounts.register(name: input.name, email: input.email, password: input.password, address: address, userAgent: Self.userAgent(request))
            return JSONResponse(status: .created, IssuedToken(issued: issued, links: links))
        }
        routes.post("auth/login") { request, context in
            let input = try await RequestBody.decode(Login.self, from: request, context: context)
            let issued = try await accounts.login(email: input.email, password: input.password, address: context.remoteAddress.map(ClientAddress.throttleKey), userAgent: Self.userAgent(request))
            return JSONResponse(IssuedToken(issued: issued, links: links))
        }
        routes.post("auth/provider") { request, context in
            let input = try await RequestBody.decode(AccountService.ProviderCredential.self, from: request, context: context)
            let signedIn = try await accounts.signIn(with: input, address: context.remoteAddress.map(ClientAddress.throttleKey), userAgent: Self.userAgent(request))
            return JSONResponse(status: signedIn.created ? .created : .ok, IssuedToken(issued: signedIn.issued, links: links))
        }
        // A reset code: asking answers 202 whether or not the email has an account.
        routes.post("auth/password/reset/start") { request, context in
            let input = try await RequestBody.decode(CodeRequest.self, from: request, context: context)
            try await codes.startReset(email: input.email, address: context.remoteAddress.map(ClientAddress.throttleKey))
            return Response(status: .accepted)
        }
        routes.post("auth/password/reset/finish") { request, context in
            let input = try await RequestBody.decode(CodeAnswer.self, from: request, context: context)
            try await codes.finishReset(email: input.email, code: input.code, password: input.password, address: context.remoteAddress.map(ClientAddress.throttleKey))
            return Response(status: .noContent)
        }
        routes.get("sports") { _, _ in
            JSONResponse(ItemList(items: sports.all.map { SportRepresentation(sport: $0) }), headers: [.cacheControl: "public, max-age=300"])
        }
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        // Verifying one's own email: the code goes to the signed-in account's address.
        routes.post("auth/email/verify/start") { _, context in
            try await codes.startVerification(of: context.identity, address: context.remoteAddress.map(ClientAddress.throttleKey))
            return Response(status: .accepted)
        }
        routes.post("auth/email/verify/finish") { request, context in
            let input = try await RequestBody.decode(CodeAnswer.self, from: request, context: context)
            try await codes.finishVerification(of: context.identity, code: input.code, address: context.remoteAddress.map(ClientAddress.throttleKey))
            return Response(status: .noContent)
        }
        routes.post("auth/logout") { _, context in
            try await accounts.revoke(session: context.identity.tokenID, of: context.userID)
            return Response(status: .noContent)
        }
        routes.get("me") { _, context in
            JSONResponse(PrivateProfile(user: try await accounts.profile(context.userID), links: links))
        }
        routes.patch("me") { request, context in
            let input = try await RequestBody.decode(AccountService.ProfileInput.self, from: request, context: context)
            return JSONResponse(PrivateProfile(user: try await accounts.updateProfile(context.userID, input), links: links))
        }
        routes.get("me/sessions") { _, context in
            let sessions = try await accounts.sessions(of: context.identity)
            return JSONResponse(ItemList(items: sessions.map { SessionRepresentation(session: $0, current: $0.id == context.identity.tokenID) }))
        }
        routes.delete("me/sessions") { _, context in
            try await accounts.revokeOtherSessions(of: context.identity)
            return Response(status: .noContent)
        }
        routes.post("me/password") { request, context in
            let input = try await RequestBody.decode(PasswordChange.self, from: request, context: context)
            try await accounts.changePassword(of: context.identity, current: input.currentPassword, new: input.newPassword)
            return Response(status: .noContent)
        }
        routes.delete("me") { _, context in
            try await accounts.deleteAccount(of: context.identity)
            return Response(status: .noContent)
        }
        routes.get("me/identities") { _, context in
            JSONResponse(ItemList(items: try await accounts.linkedIdentities(of: context.userID).map { LinkedIdentityRepresentation(identity: $0) }))
        }
        routes.post("me/identities") { request, context in
            let input = try await RequestBody.decode(AccountService.ProviderCredential.self, from: request, context: context)
            let (linked, created) = try await accounts.link(input, to: context.identity, address: context.remoteAddress.map(ClientAddress.throttleKey))
            return JSONResponse(status: created ? .created : .ok, LinkedIdentityRepresentation(identity: linked))
        }
        routes.delete("me/identities/:provider") { _, context in
            try await accounts.unlink(context.parameters.get("provider") ?? "", from: context.identity)
            return Response(status: .noContent)
        }
        routes.delete("me/sessions/:id") { _, context in
            try await accounts.revoke(session: try context.uuid("id", "session"), of: context.userID)
            return Response(status: .noContent)
        }
    }

    static func userAgent(_ request: Request) -> String? {
        request.headers[.userAgent].map { String($0.prefix(200)) }
    }
}

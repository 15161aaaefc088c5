import Foundation
import Hummingbird

/// `POST /v1/appeals`: a person appeals a staff action that reached them. It is signed
/// with their email and password, checked and throttled as a sign-in is, so that a
/// suspended person, who has no session, can appeal too.
struct AppealsController {
    let accounts: AccountService
    let moderation: ModerationService

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.post("/v1/appeals", use: appeal)
    }

    struct Input: Decodable, Sendable {
        var email: String?
        var password: String?
        var actionId: String?
        var statement: String?
    }

    /// `POST /v1/appeals`
    @Sendable func appeal(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(Input.self, from: request, context: context)
        var action: UUID?
        if let text = input.actionId {
            guard let id = UUID(text: text) else { throw DomainError.invalidParameter("action_id", Sentence("must be an action's id")) }
            action = id
        }
        let user = try await accounts.checkCredentials(
            email: input.email, password: input.password, address: context.remoteAddress.map(ClientAddress.throttleKey))
        let appeal = try await moderation.appeal(by: user, action: action, statement: input.statement)
        return JSONResponse(status: .created, AppealRepresentation(appeal: appeal))
    }
}

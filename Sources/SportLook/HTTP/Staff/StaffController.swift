import Foundation
import Hummingbird

/// The staff routes: the reports queue, actions on content and people, the audit log
/// and (admins) the staff themselves. Every route under `/v1/staff` asks the database
/// for the caller's role first; to anyone without one it is a route that does not exist.
struct StaffController {
    let staff: StaffService
    let moderation: ModerationService
    let exports: ExportService
    let jobs: StaffJobs
    let links: MediaLinks
    let abuse: AbuseService

    /// A guard for every route under `/v1/staff`: 404, as for no such route, unless the
    /// caller is staff now.
    static func guardRoute(_ staff: StaffService) -> RouteGuard<AuthenticatedContext> {
        RouteGuard(path: "/v1/staff") { context in
            guard try await staff.role(of: context.userID) != nil else { throw HiddenRoute() }
        }
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("/v1/staff/reports", use: queue)
        routes.post("/v1/staff/reports/decisions", use: decide)
        routes.get("/v1/staff/accounts", use: searchAccounts)
        routes.get("/v1/staff/accounts/:id", use: account)
        routes.post("/v1/staff/accounts/:id/erase", use: eraseAccount)
        routes.get("/v1/staff/jobs", use: jobOverview)
        routes.post("/v1/staff/jobs/retry", use: retryJobs)
        routes.post("/v1/staff/jobs/drop", use: dropJobs)
        routes.post("/v1/staff/accounts/:id/actions", use: act)
        routes.post("/v1/staff/accounts/:id/export", use: exportAccount)
        routes.get("/v1/staff/appeals", use: appeals)
        routes.post("/v1/staff/appeals/:id/decision", use: decideAppeal)
        routes.get("/v1/staff/audit", use: audit)
        routes.get("/v1/staff/members", use: members)
        routes.put("/v1/staff/members", use: setRole)
        routes.get("/v1/staff/abuse", use: abusePanel)
        routes.post("/v1/staff/abuse/blocks", use: blockRegistrations)
        routes.post("/v1/staff/abuse/blocks/:id/lift", use: liftBlock)
    }

    struct DecisionInput: Decodable, Sendable {
        var targetType: String?
        var targetId: String?
        var action: String?
        var reason: String?
        var days: Int?
    }

    struct ReasonInput: Decodable, Sendable {
        var reason: String?
    }

    struct JobsInput: Decodable, Sendable {
        var kind: String?
        var reason: String?
    }

    struct AppealDecisionInput: Decodable, Sendable {
        var decision: String?
        var reason: String?
    }

    struct RoleInput: Decodable, Sendable {
        var email: String?
        var role: String?
        var reason: String?
    }

    /// The caller as the audit log names them (their name is read again when they act).
    func actor(_ context: AuthenticatedContext) -> AuditActor { .person(context.userID, name: "") }

    /// 403 unless the caller is an admin now.
    func requireAdmin(_ context: AuthenticatedContext) async throws {
        guard try await staff.role(of: context.userID) == .admin else {
            throw DomainError.forbidden("admins_only", Sentence("Only an admin may do this."))
        }
    }

    private static func action(_ text: String?, allowed: [ModerationAction]) throws -> ModerationAction {
        guard let text, let action = ModerationAction(rawValue: text), allowed.contains(action) else {
            throw DomainError.invalidParameter("action", Sentence("must be one of \(allowed.map(\.rawValue).joined(separator: ", "))"))
        }
        return action
    }
}

// MARK: Handlers

extension StaffController {
    /// `GET /v1/staff/reports`
    @Sendable func queue(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 200)
        try q.throwIfInvalid()
        let groups = try await moderation.queue(limit: limit)
        return JSONResponse(Page(items: groups.map { ReportGroupRepresentation(group: $0, links: links) }, nextCursor: nil))
    }

    /// `POST /v1/staff/reports/decisions`
    @Sendable func decide(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(DecisionInput.self, from: request, context: context)
        var v = Validator()
        if !PeopleService.reportTargets.contains(input.targetType ?? "") {
            v.fail("target_type", Sentence("must be one of \(PeopleService.reportTargets.joined(separator: ", "))"))
        }
        let target = input.targetId.flatMap { UUID(text: $0) }
        if target == nil { v.fail("target_id", Sentence("must be the reported thing's id")) }
        try v.throwIfInvalid()
        let action = try Self.action(input.action, allowed: [.dismiss, .remove, .warn, .limit, .suspend])
        guard let targetType = input.targetType, let target else { throw DomainError.validation(v.fields) }
        let decision = try await moderation.decide(
            targetType: targetType, targetID: target, action: action, reason: input.reason, days: input.days, by: actor(context))
        return JSONResponse(DecisionRepresentation(decision: decision))
    }

    /// `GET /v1/staff/accounts?q=`: by id, email or a part of the name.
    @Sendable func searchAccounts(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 20, max: 50)
        try q.throwIfInvalid()
        let found = try await moderation.search(q.raw("q"), limit: limit)
        return JSONResponse(Page(items: found.map { ModeratedPersonRepresentation(person: $0) }, nextCursor: nil))
    }

    /// `POST /v1/staff/accounts/{id}/erase` (admins): the account deleted on its owner's written request.
    @Sendable func eraseAccount(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let person = try context.uuid("id", .account)
        let input = try await RequestBody.decode(ReasonInput.self, from: request, context: context)
        return JSONResponse(AuditEntryRepresentation(entry: try await moderation.erase(person, by: actor(context), reason: input.reason)))
    }

    /// `GET /v1/staff/jobs` (admins)
    @Sendable func jobOverview(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await requireAdmin(context)
        return JSONResponse(JobOverviewRepresentation(overview: try await jobs.overview()))
    }

    /// `POST /v1/staff/jobs/retry` (admins)
    @Sendable func retryJobs(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await settle(request, context, retry: true)
    }

    /// `POST /v1/staff/jobs/drop` (admins)
    @Sendable func dropJobs(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await settle(request, context, retry: false)
    }

    private func settle(_ request: Request, _ context: AuthenticatedContext, retry: Bool) async throws -> JSONResponse {
        let input = try await RequestBody.decode(JobsInput.self, from: request, context: context)
        let (count, entry) = try await jobs.settleDead(kind: input.kind, retry: retry, by: actor(context), reason: input.reason)
        return JSONResponse(SettledRepresentation(count: count, entry: entry))
    }

    /// `GET /v1/staff/accounts/{id}`
    @Sendable func account(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(ModeratedPersonRepresentation(person: try await moderation.person(try context.uuid("id", .account))))
    }

    /// `POST /v1/staff/accounts/{id}/actions`
    @Sendable func act(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let person = try context.uuid("id", .account)
        let input = try await RequestBody.decode(DecisionInput.self, from: request, context: context)
        let action = try Self.action(input.action, allowed: [.warn, .limit, .suspend, .lift])
        let entry = try await moderation.act(on: person, action, reason: input.reason, days: input.days, by: actor(context))
        return JSONResponse(AuditEntryRepresentation(entry: entry))
    }

    /// `POST /v1/staff/accounts/{id}/export` (admins): the person's export, on their
    /// written request; the link comes to them as to anyone who asks for their own.
    @Sendable func exportAccount(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let person = try context.uuid("id", .account)
        let input = try await RequestBody.decode(ReasonInput.self, from: request, context: context)
        let (export, _) = try await exports.request(for: person, by: actor(context), reason: input.reason)
        return JSONResponse(status: .accepted, ExportRepresentation(export: export, path: nil))
    }

    /// `GET /v1/staff/appeals`
    @Sendable func appeals(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 200)
        try q.throwIfInvalid()
        let cases = try await moderation.appeals(limit: limit)
        return JSONResponse(Page(items: cases.map { AppealCaseRepresentation(appealCase: $0) }, nextCursor: nil))
    }

    /// `POST /v1/staff/appeals/{id}/decision`
    @Sendable func decideAppeal(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .openAppeal)
        let input = try await RequestBody.decode(AppealDecisionInput.self, from: request, context: context)
        guard let decision = input.decision, ["uphold", "reverse"].contains(decision) else {
            throw DomainError.invalidParameter("decision", Sentence("must be uphold or reverse"))
        }
        let entry = try await moderation.decideAppeal(id, reverse: decision == "reverse", reason: input.reason, by: actor(context))
        return JSONResponse(AuditEntryRepresentation(entry: entry))
    }

    /// `GET /v1/staff/audit`
    @Sendable func audit(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 100, max: 1_000)
        let action = q.raw("action")
        let target = q.raw("target_id")
        if let action, action.utf8.count > 64 { q.validator.fail("action", Sentence("must be at most 64 bytes")) }
        if let target, target.utf8.count > 64 { q.validator.fail("target_id", Sentence("must be at most 64 bytes")) }
        try q.throwIfInvalid()
        let entries = try await staff.log(action: action, targetID: target?.lowercased(), limit: limit)
        return JSONResponse(Page(items: entries.map { AuditEntryRepresentation(entry: $0) }, nextCursor: nil))
    }

    /// `GET /v1/staff/members` (admins)
    @Sendable func members(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await requireAdmin(context)
        let members = try await staff.staff()
        return JSONResponse(
            Page(
                items: members.map { StaffMemberRepresentation(id: $0.id, name: $0.name, email: $0.email, role: $0.role) }, nextCursor: nil)
        )
    }

    /// `PUT /v1/staff/members` (admins): gives the account with that email a role, or
    /// takes its role away (`role: null`).
    @Sendable func setRole(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await requireAdmin(context)
        let input = try await RequestBody.decode(RoleInput.self, from: request, context: context)
        var v = Validator()
        if (input.email ?? "").isEmpty || (input.email ?? "").utf8.count > 320 { v.fail("email", Sentence("is required")) }
        var role: StaffRole?
        if let text = input.role {
            role = StaffRole(rawValue: text)
            if role == nil { v.fail("role", Sentence("must be moderator, admin or null")) }
        }
        try v.throwIfInvalid()
        let email = input.email ?? ""
        let entry =
            if let role {
                try await staff.grant(role, to: email, by: actor(context), reason: input.reason ?? "")
            } else {
                try await staff.revoke(from: email, by: actor(context), reason: input.reason ?? "")
            }
        return JSONResponse(AuditEntryRepresentation(entry: entry))
    }
}

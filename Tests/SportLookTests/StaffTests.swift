import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Staff roles and the audit log")
struct StaffTests {
    @Test(
        "roles are given and taken from the command line and by admins alone, each with a reason in the audit log; taking one ends the sessions",
        arguments: engines)
    func grantAndRevoke(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let ada = try await api.register("Ada", email: "ada@example.com")
            let ben = try await api.register("Ben", email: "ben@example.com")
            _ = try await api.register("Cy", email: "cy@example.com")
            _ = try await api.register("Dee", email: "dee@example.com")
            let staff = services.staff
            // A role goes only to an account whose email is verified: someone who signed
            // up first with a future moderator's address does not get it.
            await #expect(
                throws: DomainError.conflict(
                    "email_not_verified", Sentence("A staff role goes only to an account whose email is verified."))
            ) { try await staff.grant(.admin, to: "ada@example.com", by: .commandLine, reason: "founder") }
            try await Self.verify(["ada@example.com", "ben@example.com", "cy@example.com"], services)

            // The command line makes Ada an admin (the email as written in any case).
            let first = try await staff.grant(.admin, to: "ADA@example.com", by: .commandLine, reason: "founder")
            #expect(first.action == "staff_granted" && first.actor == "command line" && first.actorID == nil)
            #expect(first.targetID == ada.id.lowercased() && first.reason == "founder")
            #expect(first.details == #"{"role":"admin","was":"none"}"#)

            // Ada makes Ben a moderator; Ben, a moderator, may not make Cy one.
            let adaActs = AuditActor.person(try #require(UUID(uuidString: ada.id)), name: "Ada")
            let benActs = AuditActor.person(try #require(UUID(uuidString: ben.id)), name: "Ben")
            clock.advance(by: 60)
            try await staff.grant(.moderator, to: "ben@example.com", by: adaActs, reason: "runs the Tuesday game")
            await #expect(throws: DomainError.forbidden("admins_only", Sentence("Only an admin gives or takes staff roles."))) {
                try await staff.grant(.moderator, to: "cy@example.com", by: benActs, reason: "friend")
            }
            // What cannot be done leaves no row: no reason, no such account, no change.
            await #expect(
                throws: DomainError.invalidParameter("reason", Sentence("must say why, in at most 1,000 bytes, without control characters"))
            ) {
                try await staff.grant(.moderator, to: "cy@example.com", by: adaActs, reason: " ")
            }
            await #expect(throws: DomainError.notFound(.account)) {
                try await staff.grant(.moderator, to: "nobody@example.com", by: adaActs, reason: "x")
            }
            await #expect(throws: DomainError.conflict("unchanged", Sentence("The account has that role already."))) {
                try await staff.grant(.moderator, to: "ben@example.com", by: adaActs, reason: "again")
            }
            await #expect(throws: DomainError.conflict("not_staff", Sentence("The account has no staff role."))) {
                try await staff.revoke(from: "cy@example.com", by: adaActs, reason: "never was")
            }
            #expect(try await staff.staff().map { "\($0.name) \($0.role.rawValue)" } == ["Ada admin", "Ben moderator"])

            // Ben's session works until his role is taken; then it ends at once.
            #expect(try await api.get("/v1/me", token: ben.token).status == .ok)
            clock.advance(by: 60)
            try await staff.revoke(from: "ben@example.com", by: adaActs, reason: "stepped down")
            #expect(try await api.get("/v1/me", token: ben.token).status == .unauthorized)
            #expect(try await api.get("/v1/me", token: ada.token).status == .ok, "only Ben's sessions end")
            #expect(try await staff.staff().map(\.name) == ["Ada"])

            // Raised to admin, sessions go on; lowered from admin, they end.
            clock.advance(by: 60)
            try await staff.grant(.moderator, to: "ben@example.com", by: adaActs, reason: "back")
            let benAgain = try await api.login("ben@example.com", password: "correct horse battery").accessToken
            clock.advance(by: 60)
            try await staff.grant(.admin, to: "ben@example.com", by: adaActs, reason: "co-admin")
            #expect(try await api.get("/v1/me", token: benAgain).status == .ok)
            clock.advance(by: 60)
            try await staff.grant(.moderator, to: "ben@example.com", by: adaActs, reason: "less time")
            #expect(try await api.get("/v1/me", token: benAgain).status == .unauthorized)
            clock.advance(by: 60)
            try await staff.revoke(from: "ben@example.com", by: adaActs, reason: "stepped down again")

            // The log, newest first: who, what, on whom, why.
            let log = Array(try await staff.log().dropFirst(4))
            #expect(log.map(\.action) == ["staff_revoked", "staff_granted", "staff_granted"])
            #expect(log.map(\.actor) == ["Ada", "Ada", "command line"])
            #expect(log.map(\.reason) == ["stepped down", "runs the Tuesday game", "founder"])
            #expect(log[0].details == #"{"role":"none","was":"moderator"}"# && log[0].targetID == ben.id.lowercased())
            #expect(try await staff.log(action: "staff_granted").count == 5)
            #expect(try await staff.log(targetID: ben.id.lowercased()).count == 6)

            // The command line's own words for the same log.
            let tool = AdminTool(
                database: services.database, resources: services.resources, logger: services.logger, configuration: services.configuration)
            let granted = try await tool.grantStaff("moderator", to: "cy@example.com", reason: "helps with reports")
            #expect(
                granted.contains("command line  staff_granted  user \(try #require(UUID(uuidString: try await cyID(services))).lowercased)")
            )
            #expect(try await tool.auditLog(action: nil, target: nil, limit: 1) == [granted])
            await #expect(throws: DomainError.self) { _ = try await tool.grantStaff("owner", to: "cy@example.com", reason: "x") }
        }
    }

    @Test("no one changes or removes a row of the audit log, not even with SQL", arguments: engines)
    func appendOnly(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            _ = try await api.register("Ada", email: "ada@example.com")
            try await Self.verify(["ada@example.com"], services)
            let entry = try await services.staff.grant(.admin, to: "ada@example.com", by: .commandLine, reason: "founder")
            var statements = ["UPDATE audit_log SET reason = 'nothing'", "DELETE FROM audit_log"]
            statements.append(
                engine == .postgres
                    ? "TRUNCATE audit_log"
                    : "INSERT OR REPLACE INTO audit_log (id, at, actor, action, target_type, target_id, reason) "
                        + "SELECT id, at, actor, action, target_type, target_id, 'nothing' FROM audit_log")
            for statement in statements {
                do {
                    try await services.database.transaction { sql in try await sql.raw(SQLQueryString(statement)).run() }
                    Issue.record("\(statement) was not refused")
                } catch {
                    #expect(String(reflecting: error).contains("append-only"), "\(statement): \(String(reflecting: error))")
                }
            }
            #expect(entry.id == (try await services.staff.log()).first?.id)
            let log = try await services.staff.log()
            #expect(log.count == 1 && log[0].reason == "founder")
        }
    }

    /// Marks these accounts' emails verified (as a mailed code would).
    static func verify(_ emails: [String], _ services: AppServices) async throws {
        try await services.database.transaction { sql in
            for email in emails { try await sql.raw("UPDATE users SET email_verified = \(bind: true) WHERE email = \(bind: email)").run() }
        }
    }

    private func cyID(_ services: AppServices) async throws -> String {
        try await services.database.read { sql in
            try await sql.raw("SELECT id FROM users WHERE email = 'cy@example.com'").first()?.decode(column: "id", as: String.self) ?? ""
        }
    }
}

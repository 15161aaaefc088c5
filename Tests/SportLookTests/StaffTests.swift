import Foundation
import HTTPTypes
import SQLKit
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
            let staff = services.staff

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
            await #expect(throws: DomainError.forbidden("admins_only", "Only an admin gives or takes staff roles.")) {
                try await staff.grant(.moderator, to: "cy@example.com", by: benActs, reason: "friend")
            }
            // What cannot be done leaves no row: no reason, no such account, no change.
            await #expect(throws: DomainError.self) { try await staff.grant(.moderator, to: "cy@example.com", by: adaActs, reason: " ") }
            await #expect(throws: DomainError.notFound("account")) {
                try await staff.grant(.moderator, to: "nobody@example.com", by: adaActs, reason: "x")
            }
            await #expect(throws: DomainError.self) {
                try await staff.grant(.moderator, to: "ben@example.com", by: adaActs, reason: "again")
            }
            #expect(try await staff.staff().map { "\($0.name) \($0.role.rawValue)" } == ["Ada admin", "Ben moderator"])

            // Ben's session works until his role is taken; then it ends at once.
            #expect(try await api.get("/v1/me", token: ben.token).status == .ok)
            clock.advance(by: 60)
            try await staff.revoke(from: "ben@example.com", by: adaActs, reason: "stepped down")
            #expect(try await api.get("/v1/me", token: ben.token).status == .unauthorized)
            #expect(try await api.get("/v1/me", token: ada.token).status == .ok, "only Ben's sessions end")
            #expect(try await staff.staff().map(\.name) == ["Ada"])

            // The log, newest first: who, what, on whom, why.
            let log = try await staff.log()
            #expect(log.map(\.action) == ["staff_revoked", "staff_granted", "staff_granted"])
            #expect(log.map(\.actor) == ["Ada", "Ada", "command line"])
            #expect(log.map(\.reason) == ["stepped down", "runs the Tuesday game", "founder"])
            #expect(log[0].details == #"{"role":"none","was":"moderator"}"# && log[0].targetID == ben.id.lowercased())
            #expect(try await staff.log(action: "staff_granted").count == 2)
            #expect(try await staff.log(targetID: ben.id.lowercased()).count == 2)

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
            try await services.staff.grant(.admin, to: "ada@example.com", by: .commandLine, reason: "founder")
            for statement in ["UPDATE audit_log SET reason = 'nothing'", "DELETE FROM audit_log"] {
                await #expect(throws: (any Error).self, "\(statement)") {
                    try await services.database.transaction { sql in try await sql.raw(SQLQueryString(statement)).run() }
                }
            }
            let log = try await services.staff.log()
            #expect(log.count == 1 && log[0].reason == "founder")
        }
    }

    private func cyID(_ services: AppServices) async throws -> String {
        try await services.database.read { sql in
            try await sql.raw("SELECT id FROM users WHERE email = 'cy@example.com'").first()?.decode(column: "id", as: String.self) ?? ""
        }
    }
}

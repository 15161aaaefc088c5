import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import Testing

@testable import SportLook

/// Finding accounts, erasing one, the job queue, and every staff route's refusals.
extension ModerationTests {
    @Test(
        "staff find accounts by id, email or name and see their standing; admins erase one on request and settle dead jobs, each in the audit log",
        arguments: engines)
    func accountsAndJobs(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (ada, mo) = try await Self.staff(api, services)
            let sam = try await api.register("Samuel Ørsted", email: "sam@example.com")
            _ = try await api.register("Samantha", email: "samantha@example.com")
            _ = try await api.register("100%_real")
            try await api.createEvent(sam.token, now: clock.now())
            func found(_ query: String) async throws -> [String] {
                let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
                return try await api.page(API.ModeratedAccount.self, "/v1/staff/accounts?q=\(q)", token: mo.token).items.map(\.name)
            }
            #expect(try await found("sam") == ["Samantha", "Samuel Ørsted"])
            #expect(try await found("SAM@example.com") == ["Samuel Ørsted"])
            #expect(try await found(sam.id.uppercased()) == ["Samuel Ørsted"])
            #expect(try await found("%_") == ["100%_real"], "a pattern's characters match only themselves")
            #expect(try await api.get("/v1/staff/accounts?q=s", token: mo.token).status == .unprocessableContent)
            let details = try await api.get("/v1/staff/accounts/\(sam.id)", token: mo.token).decode(JSONValue.self)
            #expect(details["email"]?.string == "sam@example.com" && details["games_organised"]?.int == 1)
            #expect(details["live_sessions"]?.int == 1)

            // The queue's dead jobs: admins alone see, retry and drop them.
            try await services.database.write { sql in
                try await sql.raw(
                    """
                    INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at, last_error, finished_at)
                    VALUES (\(bind: UUID()), 'push', '{}', 'dead:1', 'dead', 5, \(bind: clock.now()), \(bind: clock.now()), 'gateway said no', \(bind: clock.now()))
                    """
                ).run()
            }
            #expect(try await api.get("/v1/staff/jobs", token: mo.token).status == .forbidden)
            let overview = try await api.get("/v1/staff/jobs", token: ada.token).decode(JSONValue.self)
            #expect(overview["dead"]?.array?.first?["last_error"]?.string == "gateway said no")
            let dropped = try await api.post(
                "/v1/staff/jobs/drop", token: ada.token, json: ["kind": "push", "reason": "the test device is gone"]
            )
            .decode(JSONValue.self)
            #expect(dropped["count"]?.int == 1 && dropped["action"]?["action"]?.string == "jobs_dropped")
            #expect(try await api.get("/v1/staff/jobs", token: ada.token).decode(JSONValue.self)["dead"]?.array?.isEmpty == true)

            // Erasing on request: admins only; the account is gone as if deleted by its owner.
            let byMo = try await api.post("/v1/staff/accounts/\(sam.id)/erase", token: mo.token, json: ["reason": "his letter"])
            #expect(try byMo.status == .forbidden && Self.code(byMo) == "admins_only")
            #expect(try await api.get("/v1/me", token: sam.token).status == .ok, "a refused erase changed nothing")
            let erased = try await api.post(
                "/v1/staff/accounts/\(sam.id)/erase", token: ada.token, json: ["reason": "his letter of 28 Nov"]
            )
            .decode(API.AuditRow.self, expecting: .ok)
            #expect(erased.action == "account_erased" && erased.targetId == sam.id)
            #expect(try await api.get("/v1/me", token: sam.token).status == .unauthorized)
            #expect(try await found("sam@example.com").isEmpty)
        }
    }

    /// The staff routes only admins may use (the rest are for moderators too).
    static let adminRoutes: Set<String> = [
        "GET /v1/staff/members", "PUT /v1/staff/members", "GET /v1/staff/jobs", "POST /v1/staff/jobs/retry", "POST /v1/staff/jobs/drop",
        "POST /v1/staff/accounts/:id/export", "POST /v1/staff/accounts/:id/erase", "POST /v1/staff/abuse/blocks",
        "POST /v1/staff/abuse/blocks/:id/lift",
    ]

    @Test("every staff route is no route to someone who is not staff, and refuses a moderator where only admins may", arguments: engines)
    func everyStaffRoute(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let (_, mo) = try await Self.staff(api, services)
            let rita = try await api.register("Rita")
            let routes = services.routes.all.filter { $0.path.hasPrefix("/v1/staff/") }
            #expect(routes.count >= 15, "\(routes.map(\.path))")
            #expect(Set(routes.map { "\($0.method) \($0.path)" }).isSuperset(of: Self.adminRoutes))
            for route in routes {
                let path = route.path.replacingOccurrences(of: ":id", with: rita.id)
                let body: [String: Any]? = route.method == .get ? nil : ["reason": "checking every route", "action": "warn"]
                let refused = try await api.request(route.method, path, token: rita.token, json: body)
                #expect(refused.status == .notFound, "\(route.method) \(path)")
                #expect(refused.text.contains("No route for \(route.method) \(path)"), "\(route.method) \(path): \(refused.text)")
                if Self.adminRoutes.contains("\(route.method) \(route.path)") {
                    let moderator = try await api.request(route.method, path, token: mo.token, json: body)
                    #expect(try moderator.status == .forbidden && Self.code(moderator) == "admins_only", "\(route.method) \(path)")
                }
            }
        }
    }
}

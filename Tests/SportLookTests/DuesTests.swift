import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// What a client reads of a group's ledger, beside a game's.
struct GroupLedgerBody: Decodable, Sendable {
    struct Dues: Decodable, Sendable {
        var amount: Int
        var currency: String
        var period: String
        var timeZone: String
        enum CodingKeys: String, CodingKey { case amount, currency, period, timeZone = "time_zone" }
    }
    struct Entry: Decodable, Sendable {
        var user: API.UserSummary
        var kind: String
        var reason: String
        var amount: Int
        @Nullable var period: String?
    }
    var groupId: String
    @Nullable var dues: Dues?
    var organiserView: Bool
    var payByCard: Bool
    var lines: [LedgerSheetBody.Line]
    var total: LedgerSheetBody.Total
    var entries: [Entry]
    var claims: [LedgerSheetBody.Claim]
    enum CodingKeys: String, CodingKey {
        case groupId = "group_id", dues, organiserView = "organiser_view", payByCard = "pay_by_card", lines, total, entries, claims
    }

    func line(_ id: String) -> LedgerSheetBody.Line? { lines.first { $0.user.id == id } }
    func balance(_ id: String) -> Int { line(id)?.balance ?? 0 }
}

@Suite("Group dues: each period's dues owed once by each member, kept by the group's owner and admins", .timeLimit(.minutes(10)))
struct DuesTests {
    struct GroupBalances: Decodable, Sendable {
        struct Item: Decodable, Sendable {
            var groupId: String
            var name: String
            var amount: Int
            enum CodingKeys: String, CodingKey { case groupId = "group_id", name, amount }
        }
        var groups: [Item]
    }

    /// 20 October 2026, noon in Copenhagen (summer time until the 25th).
    static let october20 = Date(timeIntervalSince1970: 1_792_490_400)
    nonisolated(unsafe) static let monthly: [String: Any] = [
        "amount": 10_000, "currency": "DKK", "period": "month", "time_zone": "Europe/Copenhagen",
    ]

    static func sheet(_ api: API, _ group: String, _ token: String) async throws -> GroupLedgerBody {
        try await api.get("/v1/groups/\(group)/ledger", token: token).decode(GroupLedgerBody.self, expecting: .ok)
    }

    static func join(_ api: API, _ group: String, _ token: String) async throws {
        #expect(try await api.post("/v1/groups/\(group)/membership", token: token).status == .ok)
    }

    @Test(
        "members but the owner owe each month's dues from its first midnight in the group's zone, across a change of clocks, once each however often the period's work runs or they rejoin",
        arguments: engines)
    func periods(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Self.october20)
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let owner = try await api.register("Owner")
            let (a, b) = (try await api.register("Ann"), try await api.register("Ben"))
            let group = try await GroupsTests.create(api, owner.token, policy: "public", extra: ["dues": Self.monthly])
            let groupID = try #require(UUID(uuidString: group.id))
            for person in [a, b] { try await Self.join(api, group.id, person.token) }
            var sheet = try await Self.sheet(api, group.id, owner.token)
            #expect(sheet.organiserView && !sheet.payByCard && sheet.dues?.period == "month")
            #expect(sheet.balance(a.id) == 10_000 && sheet.balance(b.id) == 10_000 && sheet.line(owner.id) == nil)
            #expect(sheet.entries.allSatisfy { $0.period == "2026-10-01" && $0.reason == "dues" })

            // Leaving and joining again in the same month owes nothing more.
            #expect(try await api.delete("/v1/groups/\(group.id)/membership", token: b.token).status == .noContent)
            try await Self.join(api, group.id, b.token)
            #expect(try await Self.sheet(api, group.id, owner.token).balance(b.id) == 10_000)

            // November starts at midnight in Copenhagen: 23:00 UTC, the clocks having gone back on the 25th.
            let november = Date(timeIntervalSince1970: 1_793_487_600)
            clock.advance(by: november.timeIntervalSince(clock.now()) - 1)
            try await services.runDueJobs()
            #expect(try await count(services, "ledger_entries", where: "period = '2026-11-01'") == 0)
            clock.advance(by: 2)
            try await services.runDueJobs()
            // The same period's work again, twice at once (two instances): nothing more.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<2 { tasks.addTask { try await services.ledger.duesDue(groupID, startsAt: november) } }
                try await tasks.waitForAll()
            }
            try await services.runDueJobs()
            #expect(try await count(services, "ledger_entries", where: "period = '2026-11-01'") == 2)
            sheet = try await Self.sheet(api, group.id, owner.token)
            #expect(sheet.balance(a.id) == 20_000 && sheet.total.balance == 40_000)

            // What Ann owes across her groups.
            let balances = try await api.get("/v1/me/balances", token: a.token).decode(GroupBalances.self, expecting: .ok)
            #expect(balances.groups.map(\.amount) == [20_000] && balances.groups.first?.groupId == group.id)

            // Dues changed during November stand from December: November is not priced twice.
            var dearer = Self.monthly
            dearer["amount"] = 12_000
            #expect(try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["dues": dearer]).status == .ok)
            #expect(try await count(services, "ledger_entries", where: "period = '2026-11-01'") == 2)
            // A late run (the service down over December's start) makes up the month it missed.
            clock.advance(by: 62 * 86_400)
            try await services.runDueJobs()
            for month in ["2026-12-01", "2027-01-01"] {
                #expect(try await count(services, "ledger_entries", where: "period = '\(month)' AND amount = 12000") == 2, "\(month)")
            }

            // Dues taken off stop the next month's; the rows stand.
            let off = try JSONDecoder().decode(GroupService.Input.self, from: Data(#"{"dues": null}"#.utf8))
            #expect(try await services.groups.update(groupID, by: try #require(UUID(uuidString: owner.id)), off).dues == nil)
            let rows = try await count(services, "ledger_entries")
            clock.advance(by: 31 * 86_400)
            try await services.runDueJobs()
            #expect(try await count(services, "ledger_entries", where: "period = '2027-02-01'") == 0)
            #expect(try await count(services, "ledger_entries") == rows)

            // A group's rows are as append-only as a game's.
            await #expect(throws: (any Error).self) {
                try await services.database.write { sql in
                    try await sql.raw("UPDATE ledger_entries SET amount = 0 WHERE group_id IS NOT NULL").run()
                }
            }
        }
    }

    @Test(
        "a group's owner and admins keep its dues (paid, waived, confirmed claims, CSV); a member sees their own rows; anyone else finds no ledger; bad dues are refused",
        arguments: engines)
    func keepers(engine: DatabaseEngine) async throws {
        let clock = ManualClock(Self.october20)
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let owner = try await api.register("Owner")
            let (a, b, admin, stranger) = (
                try await api.register("Ann"), try await api.register("Ben"), try await api.register("Adi"), try await api.register("Stu")
            )
            let group = try await GroupsTests.create(api, owner.token, policy: "public", name: "Dues club")
            for bad in [
                ["amount": 0, "currency": "DKK", "period": "month"], ["amount": 100, "currency": "XXX", "period": "month"],
                ["amount": 100, "currency": "DKK", "period": "day"],
                ["amount": 100, "currency": "DKK", "period": "week", "time_zone": "Mars/Olympus"],
            ] as [[String: Any]] {
                let reply = try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["dues": bad])
                #expect(reply.status == .unprocessableContent, "\(bad)")
            }
            // No dues yet: nothing to keep.
            let none = try await api.post(
                "/v1/groups/\(group.id)/ledger/payments", token: owner.token, json: ["user_ids": [a.id], "means": "cash"])
            #expect(none.status == .conflict)
            #expect(try none.errorCode == "no_dues")
            for person in [a, b, admin] { try await Self.join(api, group.id, person.token) }
            #expect(try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["dues": Self.monthly]).status == .ok)
            #expect(
                try await api.patch("/v1/groups/\(group.id)/members/\(admin.id)", token: owner.token, json: ["role": "admin"]).status
                    == .noContent)

            // The admin keeps it as the owner does: a payment in part, a waiver.
            var sheet = try await api.post(
                "/v1/groups/\(group.id)/ledger/payments", token: admin.token,
                json: ["user_ids": [b.id], "means": "transfer", "amount": 4_000]
            ).decode(GroupLedgerBody.self, expecting: .ok)
            #expect(sheet.balance(b.id) == 6_000 && sheet.line(admin.id)?.balance == 10_000)
            // An admin owes dues as members do: their own line is for another keeper.
            let own = try await api.post(
                "/v1/groups/\(group.id)/ledger/payments", token: admin.token, json: ["user_ids": [admin.id], "means": "cash"])
            #expect(own.status == .forbidden)
            #expect(try own.errorCode == "own_dues")
            sheet = try await api.post("/v1/groups/\(group.id)/ledger/waivers", token: owner.token, json: ["user_id": admin.id])
                .decode(GroupLedgerBody.self, expecting: .ok)
            #expect(sheet.balance(admin.id) == 0 && sheet.line(admin.id)?.waived == 10_000)

            // Ann says she paid; the owner is told and confirms.
            let claim = try await api.post("/v1/groups/\(group.id)/ledger/claims", token: a.token, json: ["means": "cash"])
            #expect(claim.status == .created)
            try await services.runDueJobs()
            let told = try await api.notifications(owner.token).filter { $0.kind == .paymentClaimed }
            #expect(told.count == 1)
            let mine = try await Self.sheet(api, group.id, a.token)
            #expect(!mine.organiserView && mine.lines.map(\.user.id) == [a.id] && mine.claims.count == 1)
            let claimID = try #require(mine.claims.first?.id)
            #expect(try await api.post("/v1/payment-claims/\(claimID)/confirm", token: b.token).status == .notFound)
            sheet = try await api.post("/v1/payment-claims/\(claimID)/confirm", token: owner.token).decode(
                GroupLedgerBody.self, expecting: .ok)
            #expect(sheet.balance(a.id) == 0 && sheet.claims.isEmpty)

            // A member may not keep it; a stranger finds no ledger.
            for (method, path, body) in [
                (HTTPRequest.Method.get, "/v1/groups/\(group.id)/ledger.csv", nil),
                (.post, "/v1/groups/\(group.id)/ledger/payments", ["user_ids": [b.id], "means": "cash"] as [String: Any]),
                (.post, "/v1/groups/\(group.id)/ledger/waivers", ["user_id": b.id]),
                (.post, "/v1/groups/\(group.id)/ledger/refunds", ["user_id": a.id, "amount": 1, "means": "cash"]),
            ] {
                #expect(try await api.request(method, path, token: a.token, json: body).status == .forbidden, "\(path)")
                #expect(try await api.request(method, path, token: stranger.token, json: body).status == .notFound, "\(path)")
            }
            #expect(try await api.get("/v1/groups/\(group.id)/ledger", token: stranger.token).status == .notFound)
            let strangerClaim = try await api.post("/v1/groups/\(group.id)/ledger/claims", token: stranger.token, json: ["means": "cash"])
            #expect(strangerClaim.status == .notFound)

            // The dues stay in their currency while rows exist.
            var euros = Self.monthly
            euros["currency"] = "EUR"
            let changed = try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["dues": euros])
            #expect(changed.status == .conflict)
            #expect(try changed.errorCode == "currency_fixed")

            // The CSV, for the keepers.
            let csv = try await api.get("/v1/groups/\(group.id)/ledger.csv", token: admin.token)
            #expect(csv.status == .ok)
            let lines = String(decoding: csv.body, as: UTF8.self).split(separator: "\r\n")
            #expect(lines.first.map(String.init) == Ledger.groupCSVHeader)
            #expect(lines.count == 1 + (try await count(services, "ledger_entries")))
            #expect(lines.dropFirst().allSatisfy { $0.contains("Dues club") })

            // Reminders three days into the month reach who still owes, in the group's name.
            clock.advance(by: 11 * 86_400)
            try await services.runDueJobs()
            let due = try await api.notifications(b.token).filter { $0.kind == .paymentDue }
            #expect(due.count == 1)
            #expect(due.first?.title == "You owe DKK 60.00 in dues to Dues club")
            #expect(try await api.notifications(a.token).filter { $0.kind == .paymentDue }.isEmpty, "paid: no reminder")

            // Handed over, the owner owes the month as a member; the group ended, what is owed is let off.
            #expect(try await api.post("/v1/groups/\(group.id)/owner", token: owner.token, json: ["user_id": admin.id]).status == .ok)
            let handed = try await Self.sheet(api, group.id, admin.token)
            #expect(handed.balance(owner.id) == 10_000 && handed.balance(b.id) == 6_000)
            #expect(try await api.delete("/v1/groups/\(group.id)", token: admin.token).status == .noContent)
            let left = try await api.get("/v1/me/balances", token: b.token).decode(GroupBalances.self, expecting: .ok)
            #expect(left.groups.isEmpty)
            #expect(try await count(services, "ledger_entries", where: "kind = 'waived' AND note = 'The group ended.'") == 2)
        }
    }
}

import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Moderation: the reports queue and staff's actions", .timeLimit(.minutes(10)))
struct ModerationTests {
    /// An admin (Ada) and a moderator (Mo), made from the command line.
    static func staff(_ api: API, _ services: AppServices) async throws -> (
        admin: (token: String, id: String), moderator: (token: String, id: String)
    ) {
        let ada = try await api.register("Ada", email: "ada@example.com")
        let mo = try await api.register("Mo", email: "mo@example.com")
        try await StaffTests.verify(["ada@example.com", "mo@example.com"], services)
        try await services.staff.grant(.admin, to: "ada@example.com", by: .commandLine, reason: "founder")
        try await services.staff.grant(.moderator, to: "mo@example.com", by: .commandLine, reason: "helps")
        return (ada, mo)
    }

    static func code(_ reply: Reply) throws -> String { try reply.decode(API.ErrorBody.self).error.code }

    @Test(
        "a reported message and event: the queue shows them in context; the message is removed, its sender suspended, the event report dismissed; everyone concerned is told; the audit log has each step",
        arguments: engines)
    func queueAndActions(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (ada, mo) = try await Self.staff(api, services)
            let sam = try await api.register("Sam", email: "sam@example.com")
            let rita = try await api.register("Rita")
            let game = try await api.createEvent(sam.token, title: "Rough game", now: clock.now()).id
            try await api.join(game, token: rita.token)
            for (n, text) in ["hello", "you are all useless", "see you"].enumerated() {
                clock.advance(by: 1)
                try await api.sendMessage(text, clientID: "s-\(n)", to: game, token: sam.token)
            }
            let rude = try #require(try await api.messages(game, token: rita.token).first { $0.seq == 2 })
            clock.advance(by: 60)
            #expect(
                try await api.post(
                    "/v1/reports", token: rita.token, json: ["target_type": "message", "target_id": rude.id, "reason": "harassment"]
                )
                .status == .created)
            clock.advance(by: 60)
            #expect(
                try await api.post(
                    "/v1/reports", token: rita.token,
                    json: ["target_type": "event", "target_id": game, "reason": "other", "details": "odd"]
                ).status == .created)

            // Nobody but staff finds a staff route; a moderator is refused what admins do.
            let unknown = try await api.get("/v1/staff/nothing-here", token: rita.token)
            for path in ["/v1/staff/reports", "/v1/staff/audit", "/v1/staff/members", "/v1/staff/accounts/\(sam.id)"] {
                let refused = try await api.get(path, token: rita.token)
                #expect(refused.status == .notFound, "\(path)")
                #expect(try Self.code(refused) == "not_found" && refused.text.contains("No route for GET"), "\(path)")
            }
            #expect(unknown.status == .notFound)
            let decisionByRita = try await api.post(
                "/v1/staff/reports/decisions", token: rita.token,
                json: ["target_type": "message", "target_id": rude.id, "action": "dismiss", "reason": "mine"])
            #expect(decisionByRita.status == .notFound)
            let members = try await api.get("/v1/staff/members", token: mo.token)
            #expect(try members.status == .forbidden && Self.code(members) == "admins_only")
            let promote = try await api.put(
                "/v1/staff/members", token: mo.token, json: ["email": "rita@example.com", "role": "moderator", "reason": "x"])
            #expect(promote.status == .forbidden)

            // The queue: the message first (reported first), in context, then the event.
            let queue = try await api.get("/v1/staff/reports", token: mo.token).decode(API.Page<API.ReportGroup>.self, expecting: .ok).items
            #expect(queue.map(\.targetType) == [.message, .event])
            let message = try #require(queue.first)
            #expect(message.subject?.value1 == API.StaffPerson(id: sam.id, name: "Sam"))
            #expect(message.reports.map(\.reporter.name) == ["Rita"] && message.reports.first?.reason == "harassment")
            #expect(message.context.kind == .message && message.context.message?.body == "you are all useless")
            #expect(message.context.around?.map(\.body) == ["hello", "see you"])
            // The message as it was reported: an open object in the contract, read as JSON.
            let asReported = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(message.context.asReported))
            #expect(asReported["body"]?.string == "you are all useless")
            #expect(message.dueAt == message.oldestAt.addingTimeInterval(86_400))
            #expect(queue[1].context.event?.organiser.name == "Sam" && queue[1].context.event?.title == "Rough game")

            // Remove the message: a tombstone for everyone; a second decision finds nothing open.
            let removed = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "message", "target_id": rude.id, "action": "remove", "reason": "insults"]
            ).decode(API.ReportDecision.self, expecting: .ok)
            #expect(removed.resolved == 1 && removed.action.action == "message_removed" && removed.action.actor == "Mo")
            let after = try await api.messages(game, token: rita.token)
            #expect(after.first { $0.seq == 2 }?.deleted == true && after.first { $0.seq == 2 }?.body == "")
            let again = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "message", "target_id": rude.id, "action": "remove", "reason": "again"])
            #expect(again.status == .notFound)

            // Bad decisions are refused, with nothing done.
            for (body, field) in [
                (["target_type": "event", "target_id": game, "action": "dismiss", "reason": " "], "reason"),
                (["target_type": "event", "target_id": game, "action": "explode", "reason": "x"], "action"),
                (["target_type": "planet", "target_id": game, "action": "dismiss", "reason": "x"], "target_type"),
                (["target_type": "event", "target_id": "nope", "action": "dismiss", "reason": "x"], "target_id"),
            ] {
                let refused = try await api.post("/v1/staff/reports/decisions", token: mo.token, json: body)
                #expect(refused.status == .unprocessableContent, "\(body)")
                #expect(try refused.decode(API.ErrorBody.self).error.fields?[field] != nil, "\(body)")
            }
            let tooLong = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "event", "target_id": game, "action": "suspend", "reason": "x", "days": 4_000])
            #expect(tooLong.status == .unprocessableContent)

            // Suspend Sam for a day: his session ends, and says why; he cannot sign in.
            let samSocketToken = sam.token
            let suspended = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "suspend", "reason": "insults", "days": 1]
            ).decode(API.AuditRow.self, expecting: .ok)
            #expect(suspended.action == "user_suspended" && suspended.details.additionalProperties["until"] != nil)
            let refused = try await api.get("/v1/me", token: samSocketToken)
            #expect(try refused.status == .forbidden && Self.code(refused) == "account_suspended")
            let login = try await api.post("/v1/auth/login", json: ["email": "sam@example.com", "password": "correct horse battery"])
            #expect(try login.status == .forbidden && Self.code(login) == "account_suspended")
            // His game is cancelled, as on a deletion; a moderator may not suspend staff.
            #expect(try await api.event(game, token: rita.token).status == .cancelled)
            let onStaff = try await api.post(
                "/v1/staff/accounts/\(ada.id)/actions", token: mo.token, json: ["action": "suspend", "reason": "coup"])
            #expect(try onStaff.status == .forbidden && Self.code(onStaff) == "staff_account")
            let onSelf = try await api.post(
                "/v1/staff/accounts/\(mo.id)/actions", token: mo.token, json: ["action": "warn", "reason": "me"])
            #expect(try onSelf.status == .conflict && Self.code(onSelf) == "own_account")

            // Dismiss the event's report.
            let dismissed = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "event", "target_id": game, "action": "dismiss", "reason": "a game can be rough"]
            ).decode(API.ReportDecision.self, expecting: .ok)
            #expect(dismissed.resolved == 1 && dismissed.action.action == "report_dismissed")
            #expect(try await api.page(API.ReportGroup.self, "/v1/staff/reports", token: mo.token).items.isEmpty)

            // Rita learns both outcomes; Sam what was done and why (read from his inbox: he cannot sign in).
            try await services.runDueJobs()
            let told = try await api.notifications(rita.token).filter { $0.kind == .reportOutcome }
            #expect(Set(told.compactMap { $0.data.outcome?.rawValue }) == ["acted", "dismissed"])
            let samID = try #require(UUID(uuidString: sam.id))
            let notices = try await services.inbox.list(user: samID, unreadOnly: false, cursor: nil, limit: 20).items.filter {
                $0.kind == "moderation"
            }.map { try JSONDecoder().decode([String: JSONValue].self, from: Data($0.data.utf8)) }
            #expect(Set(notices.compactMap { $0["action"]?.string }) == ["remove", "suspend"])
            #expect(notices.allSatisfy { $0["reason"]?.string == "insults" })

            // The audit log shows every step, newest first, and filters.
            let log = try await api.page(API.AuditRow.self, "/v1/staff/audit", token: mo.token).items
            #expect(
                log.map(\.action) == ["report_dismissed", "user_suspended", "message_removed", "staff_granted", "staff_granted"])
            #expect(log.first?.targetId == game && log.first?.reason == "a game can be rough")
            let aboutSam = try await api.page(API.AuditRow.self, "/v1/staff/audit?target_id=\(sam.id.uppercased())", token: mo.token).items
            #expect(aboutSam.map(\.action) == ["user_suspended"])
            let account = try await api.get("/v1/staff/accounts/\(sam.id)", token: mo.token).decode(
                API.ModeratedAccount.self, expecting: .ok)
            #expect(account.suspendedUntil != nil && account.reportsReceived == 2 && account.reportsMade == 0)

            // Sam appeals, signing with his password (he has no session); once only.
            let wrong = try await api.post(
                "/v1/appeals", json: ["email": "sam@example.com", "password": "not his", "statement": "let me back"])
            #expect(wrong.status == .unauthorized)
            let appeal = try await api.post(
                "/v1/appeals", json: ["email": "sam@example.com", "password": "correct horse battery", "statement": "I was angry; sorry."])
            #expect(appeal.status == .created)
            let appealID = try #require(try appeal.decode(JSONValue.self)["id"]?.string)
            #expect(try appeal.decode(JSONValue.self)["action_id"]?.string == suspended.id)
            let twice = try await api.post(
                "/v1/appeals",
                json: ["email": "sam@example.com", "password": "correct horse battery", "statement": "again", "action_id": suspended.id])
            #expect(try twice.status == .conflict && Self.code(twice) == "already_appealed")
            // It waits for staff with the action and the person; Mo, who acted, does not decide it.
            let open = try await api.get("/v1/staff/appeals", token: mo.token).decode(JSONValue.self)
            #expect(open["items"]?.array?.count == 1)
            #expect(open["items"]?.array?.first?["action"]?["action"]?.string == "user_suspended")
            #expect(open["items"]?.array?.first?["person"]?["name"]?.string == "Sam")
            let byMo = try await api.post(
                "/v1/staff/appeals/\(appealID)/decision", token: mo.token, json: ["decision": "reverse", "reason": "fair"])
            #expect(try byMo.status == .conflict && Self.code(byMo) == "same_staff")
            let reversed = try await api.post(
                "/v1/staff/appeals/\(appealID)/decision", token: ada.token, json: ["decision": "reverse", "reason": "first offence"]
            ).decode(API.AuditRow.self, expecting: .ok)
            #expect(reversed.action == "appeal_reversed" && reversed.actor == "Ada")
            let back = try await api.post("/v1/auth/login", json: ["email": "sam@example.com", "password": "correct horse battery"])
            #expect(back.status == .ok)
            let samToken = try #require(try back.decode(JSONValue.self)["access_token"]?.string)
            try await services.runDueJobs()
            let decided = try await api.notifications(samToken).filter { $0.kind == .appealDecided }
            #expect(decided.map { $0.data.decision?.rawValue } == ["reversed"])
            #expect(try await api.get("/v1/staff/appeals", token: ada.token).decode(JSONValue.self)["items"]?.array?.isEmpty == true)
            let trail = try await api.page(API.AuditRow.self, "/v1/staff/audit?limit=4", token: mo.token).items.map(\.action)
            #expect(trail == ["appeal_reversed", "appeal_filed", "report_dismissed", "user_suspended"])

            // Admins manage staff over HTTP too.
            let staffList = try await api.get("/v1/staff/members", token: ada.token).decode(API.Page<API.StaffMember>.self, expecting: .ok)
            #expect(staffList.items.map(\.name) == ["Ada", "Mo"])
            let demoted = try await api.put(
                "/v1/staff/members", token: ada.token, json: ["email": "mo@example.com", "role": NSNull(), "reason": "rest"])
            #expect(demoted.status == .ok)
            #expect(try await api.get("/v1/staff/reports", token: mo.token).status == .unauthorized, "taking the role ended Mo's session")
        }
    }

    @Test(
        "a limited person is out of people nearby and their invitations reach no one; lifted, they are back",
        arguments: engines)
    func limitAndLift(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (_, mo) = try await Self.staff(api, services)
            let (lat, lon) = (48.8566, 2.3522)
            let sam = try await api.register("Sam", email: "sam@example.com")
            let rita = try await api.register("Rita")
            for person in [sam, rita] {
                #expect(
                    try await api.patch(
                        "/v1/me", token: person.token,
                        json: ["sports": ["tennis"], "discoverable": true, "location": ["lat": lat, "lon": lon]]
                    ).status == .ok)
            }
            let nearby = "/v1/users/nearby?lat=\(lat)&lon=\(lon)&radius_km=5"
            try await eventually("Sam nearby") {
                try await api.page(API.PersonNearby.self, nearby, token: rita.token).items.map(\.id) == [sam.id]
            }

            let limited = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "limit", "reason": "spam"])
            #expect(limited.status == .ok)
            let twice = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "limit", "reason": "spam"])
            #expect(try twice.status == .conflict && Self.code(twice) == "already_limited")
            try await eventually("Sam gone from people nearby") {
                try await api.page(API.PersonNearby.self, nearby, token: rita.token).items.isEmpty
            }
            // His own profile still shows his own setting; he still uses the service.
            #expect(try await api.get("/v1/me", token: sam.token).status == .ok)
            // His invitation looks sent to him; Rita never sees it.
            let game = try await api.createEvent(sam.token, now: clock.now()).id
            let invited = try await api.post("/v1/events/\(game)/invitations", token: sam.token, json: ["user_ids": [rita.id]])
            #expect(invited.status == .created || invited.status == .ok)
            try await services.runDueJobs()
            #expect(try await api.invitations(rita.token).isEmpty)
            #expect(try await api.notifications(rita.token).filter { $0.kind == .invitation }.isEmpty)

            // Lifted: back in people nearby.
            clock.advance(by: 60)
            let lifted = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "lift", "reason": "ok now"])
            #expect(lifted.status == .ok)
            try await eventually("Sam back nearby") {
                try await api.page(API.PersonNearby.self, nearby, token: rita.token).items.map(\.id) == [sam.id]
            }
            let nothing = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "lift", "reason": "x"])
            #expect(try nothing.status == .conflict && Self.code(nothing) == "not_restricted")
            try await services.runDueJobs()
            let notices = try await api.notifications(sam.token).filter { $0.kind == .moderation }
            #expect(notices.compactMap { $0.data.action } == ["lift", "limit"])

            // Suspended for a day, Sam signs in again once it has run out, by itself.
            clock.advance(by: 60)
            let suspended = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "suspend", "reason": "cool off", "days": 1])
            #expect(suspended.status == .ok)
            let signIn = ["email": "sam@example.com", "password": "correct horse battery"]
            #expect(try await api.post("/v1/auth/login", json: signIn).status == .forbidden)
            try await eventually("Sam gone from people nearby while suspended") {
                try await api.page(API.PersonNearby.self, nearby, token: rita.token).items.isEmpty
            }
            clock.advance(by: 86_401)
            try await services.runDueJobs()
            try await eventually("Sam back nearby once it ran out") {
                try await api.page(API.PersonNearby.self, nearby, token: rita.token).items.map(\.id) == [sam.id]
            }
            let account = try await api.get("/v1/staff/accounts/\(sam.id)", token: mo.token).decode(API.ModeratedAccount.self)
            #expect(account.suspendedAt == nil && account.suspendedUntil == nil)
            #expect(try await api.post("/v1/auth/login", json: signIn).status == .ok)
        }
    }

    @Test("a suspension on one instance ends the person's socket and session on the other at once (two instances on one PostgreSQL)")
    func suspensionAcrossInstances() async throws {
        try await withTwoInstances { a, b, first, _ in
            let (_, mo) = try await Self.staff(b, first)
            let clock = ManualClock(Date())
            let (event, owner, people) = try await chatRoom(b, clock: clock, members: 1)
            let sam = people[0]
            // Sam is known to both instances: his token is in each one's cache.
            #expect(try await a.get("/v1/me", token: sam.token).status == .ok)
            #expect(try await b.get("/v1/me", token: sam.token).status == .ok)
            let socket = try await TestSocket.connect(try socketURL(a), token: sam.token)
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await socket.waitFor("subscribed") { $0.type == "subscribed" }

            let suspended = try await b.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "suspend", "reason": "threats"])
            #expect(suspended.status == .ok)
            try await eventually("the socket on the other instance to close") { socket.isClosed }
            #expect(socket.closedWith?.code == 4001)
            for api in [a, b] {
                let refused = try await api.get("/v1/me", token: sam.token)
                #expect(try refused.status == .forbidden && Self.code(refused) == "account_suspended")
                let byCookie = try await api.request(.get, "/v1/me", headers: [.cookie: "sportlook_session=\(sam.token)"])
                #expect(try byCookie.status == .forbidden && Self.code(byCookie) == "account_suspended")
            }
            // Sent after the suspension, nothing of his reaches the room.
            socket.send(["type": "message", "event_id": event, "body": "still here", "client_id": "late"])
            #expect(try await b.messages(event, token: owner.token).isEmpty)
        }
    }

    @Test("the console's page is served to staff alone, never cached, under the web client's policy; to anyone else it is no route")
    func consolePage() async throws {
        try await withApp(.sqlite) { api, services in
            let (_, mo) = try await Self.staff(api, services)
            let rita = try await api.register("Rita")
            for headers: HTTPFields in [[:], [.authorization: "Bearer \(rita.token)"], [.cookie: "sportlook_session=\(rita.token)"]] {
                let refused = try await api.request(.get, "/admin", headers: headers)
                #expect(refused.status == .notFound, "\(headers)")
                #expect(try Self.code(refused) == "not_found" && refused.text.contains("No route for GET /admin"))
            }
            let page = try await api.request(.get, "/admin", headers: [.cookie: "sportlook_session=\(mo.token)"])
            #expect(page.status == .ok)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            let build = try #require(page.text.firstMatch(of: /\/app\/([0-9a-f]{16})\/console\/console\.js/)?.1)
            #expect(try await api.get("/app/\(build)/console/queue.js").status == .ok)
            // A role taken away closes it at the next visit.
            try await services.staff.revoke(from: "mo@example.com", by: .commandLine, reason: "stepped down")
            #expect(try await api.request(.get, "/admin", headers: [.cookie: "sportlook_session=\(mo.token)"]).status == .notFound)
        }
    }

    @Test(
        "reversing an appeal undoes only the action appealed; nobody decides their own case; a reason with control characters is refused",
        arguments: engines)
    func ownCasesAndReversals(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (ada, mo) = try await Self.staff(api, services)
            let sam = try await api.register("Sam", email: "sam@example.com")
            let rita = try await api.register("Rita")
            // Rita reports Mo: Mo may not decide it; Ada may.
            #expect(
                try await api.post("/v1/reports", token: rita.token, json: ["target_type": "user", "target_id": mo.id, "reason": "spam"])
                    .status == .created)
            let own = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "user", "target_id": mo.id, "action": "dismiss", "reason": "nothing"])
            #expect(try own.status == .conflict && Self.code(own) == "own_account")
            let control = try await api.post(
                "/v1/staff/reports/decisions", token: ada.token,
                json: ["target_type": "user", "target_id": mo.id, "action": "dismiss", "reason": "fine\u{0}"])
            #expect(control.status == .unprocessableContent)
            #expect(
                try await api.post(
                    "/v1/staff/reports/decisions", token: ada.token,
                    json: ["target_type": "user", "target_id": mo.id, "action": "dismiss", "reason": "fine"]
                ).status == .ok)

            // Sam is limited, then suspended for good; he appeals the limit alone.
            clock.advance(by: 60)
            let limit = try await api.post(
                "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "limit", "reason": "spam"]
            ).decode(API.AuditRow.self, expecting: .ok)
            clock.advance(by: 60)
            #expect(
                try await api.post(
                    "/v1/staff/accounts/\(sam.id)/actions", token: mo.token, json: ["action": "suspend", "reason": "threats"]
                )
                .status == .ok)
            let appeal = try await api.post(
                "/v1/appeals",
                json: [
                    "email": "sam@example.com", "password": "correct horse battery", "statement": "the ads were mine",
                    "action_id": limit.id,
                ])
            #expect(appeal.status == .created)
            let appealID = try #require(try appeal.decode(JSONValue.self)["id"]?.string)
            let reversed = try await api.post(
                "/v1/staff/appeals/\(appealID)/decision", token: ada.token, json: ["decision": "reverse", "reason": "his own shop"])
            #expect(reversed.status == .ok)
            let account = try await api.get("/v1/staff/accounts/\(sam.id)", token: ada.token).decode(API.ModeratedAccount.self)
            #expect(!account.limited && account.suspendedAt != nil, "the suspension, not appealed, stays")
            let signIn = try await api.post("/v1/auth/login", json: ["email": "sam@example.com", "password": "correct horse battery"])
            #expect(signIn.status == .forbidden)
        }
    }
}

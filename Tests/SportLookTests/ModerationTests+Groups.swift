import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

extension ModerationTests {
    @Test(
        "a reported group: the queue shows it with its owner; closing it ends it as its owner would (its games cancelled, its members gone), its owner and reporter are told; a closed group is no more",
        arguments: engines)
    func reportedGroupClosed(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (ada, mo) = try await Self.staff(api, services)
            let olga = try await api.register("Olga")
            let rita = try await api.register("Rita")
            let group = try await GroupsTests.create(api, olga.token, policy: "public", name: "Night riders")
            #expect(try await api.post("/v1/groups/\(group.id)/membership", token: rita.token).status == .ok)
            let game = try await api.post(
                "/v1/events", token: olga.token,
                json: [
                    "title": "Members' padel", "sport": "padel", "starts_at": RFC3339.format(clock.now().addingTimeInterval(86_400)),
                    "location": ["lat": 55.6761, "lon": 12.5683], "group_id": group.id,
                ]
            ).decode(API.Event.self, expecting: .created)
            try await api.join(game.id, token: rita.token)

            // Reported by a member; a group that does not exist is no target, nor a bad type.
            clock.advance(by: 60)
            let report = ["target_type": "group", "target_id": group.id, "reason": "inappropriate", "details": "its name"]
            #expect(try await api.post("/v1/reports", token: rita.token, json: report).status == .created)
            #expect(try await api.post("/v1/reports", token: rita.token, json: report).status == .ok, "a repeat is the first report")
            let unknown = try await api.post(
                "/v1/reports", token: rita.token, json: ["target_type": "group", "target_id": UUID().uuidString, "reason": "spam"])
            #expect(unknown.status == .notFound)

            // The queue: the group with its owner, whom warn, limit and suspend reach.
            let queue = try await api.get("/v1/staff/reports", token: mo.token).decode(API.Page<API.ReportGroup>.self, expecting: .ok).items
            let queued = try #require(queue.first { $0.targetType == .group })
            #expect(queued.targetId == group.id && queued.subject?.value1 == API.StaffPerson(id: olga.id, name: "Olga"))
            #expect(queued.context.kind == .group && queued.context.group?.name == "Night riders")
            #expect(queued.context.group?.memberCount == 2 && queued.context.group?.owner.name == "Olga")

            // Closed by a moderator: the group is gone for everyone, Rita out of it (its game cancelled: below).
            let closed = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "group", "target_id": group.id, "action": "remove", "reason": "offensive name"]
            ).decode(API.ReportDecision.self, expecting: .ok)
            #expect(closed.resolved == 1 && closed.action.action == "group_removed" && closed.action.actor == "Mo")
            #expect(try await api.get("/v1/groups/\(group.id)", token: rita.token).status == .notFound)
            #expect(try await api.get("/v1/groups/\(group.id)", token: olga.token).status == .notFound)
            #expect(try await api.post("/v1/groups/\(group.id)/membership", token: ada.token).status == .notFound)
            let again = try await api.post(
                "/v1/staff/reports/decisions", token: mo.token,
                json: ["target_type": "group", "target_id": group.id, "action": "remove", "reason": "again"])
            #expect(again.status == .notFound, "nothing on it is open any more")
            #expect(
                try await api.post(
                    "/v1/reports", token: ada.token, json: ["target_type": "group", "target_id": group.id, "reason": "spam"]
                )
                .status == .notFound, "a closed group is no more there than an unknown one")

            // Olga is told what was done and why; Rita that her report was acted on; the audit log has it.
            try await services.runDueJobs()
            let notice = try #require(try await api.notifications(olga.token).first { $0.kind == .moderation })
            #expect(notice.data.action == "remove" && notice.data.targetType == "group")
            #expect(notice.body?.contains("Night riders") == true && notice.body?.contains("offensive name") == true)
            let told = try await api.notifications(rita.token).filter { $0.kind == .reportOutcome }
            #expect(told.count == 1)
            #expect(try await !api.told(rita.token, .eventCancelled, about: game.id).isEmpty)
            let audit = try await api.get("/v1/staff/audit?target_id=\(group.id)", token: ada.token).decode(
                API.Page<API.AuditRow>.self, expecting: .ok)
            #expect(audit.items.map(\.action) == ["group_removed"] && audit.items.first?.targetType == "group")
        }
    }
}

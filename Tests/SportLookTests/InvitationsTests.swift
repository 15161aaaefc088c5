import Crypto
import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Rows of a table, for checks that look under the API.
func count(_ services: AppServices, _ table: String, where condition: String = "1 = 1") async throws -> Int {
    try await services.database.read { sql in
        try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table) WHERE \(unsafeRaw: condition)").first()?.value("n") ?? 0
    }
}

@Suite("Invitations and notifications", .timeLimit(.minutes(10)))
struct InvitationsTests {
    @Test("every invitation rule", arguments: engines)
    func rules(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (owner, _) = try await api.register("Owner")
            let (friend, friendID) = try await api.register("Friend")
            let (stranger, strangerID) = try await api.register("Stranger")
            let (waiter, waiterID) = try await api.register("Waiter")
            let (late, lateID) = try await api.register("Late")
            let event = try await api.createEvent(owner, capacity: 1, now: clock.now()).id

            // The organiser invites; again is the same invitation.
            let sent = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [friendID]])
            #expect(sent.status == .created)
            let invitation = try #require(try sent.decode(API.Page<API.Invitation>.self).items.first)
            #expect(invitation.status == .pending)
            let again = try await api.invite([friendID], to: event, token: owner)
            #expect(again.first?.id == invitation.id)

            // Not attending, or only waitlisted: not allowed to invite.
            #expect(
                try await api.post("/v1/events/\(event)/invitations", token: stranger, json: ["user_ids": [friendID]]).status == .forbidden)
            // Only the invitee answers.
            let id = invitation.id
            #expect(try await api.post("/v1/invitations/\(id)/accept", token: stranger).status == .forbidden)
            // Accepting joins (going: the one place).
            let accepted = try await api.post("/v1/invitations/\(id)/accept", token: friend)
            #expect(accepted.status == .ok)
            let answer = try accepted.decode(API.Invitation.self)
            #expect(answer.status == .accepted)
            #expect(answer.attendance?.status == .going)
            #expect(try await api.post("/v1/invitations/\(id)/accept", token: friend).status == .ok)
            #expect(try await api.post("/v1/invitations/\(id)/decline", token: friend).status == .conflict)

            // Anyone going may invite; accepting into a full event waitlists.
            let second = try await api.post("/v1/events/\(event)/invitations", token: friend, json: ["user_ids": [waiterID]])
            #expect(second.status == .created)
            let waitlisted = try await api.accept(
                try #require(try second.decode(API.Page<API.Invitation>.self).items.first?.id), token: waiter)
            #expect(waitlisted.attendance?.status == .waitlisted)
            #expect(
                try await api.post("/v1/events/\(event)/invitations", token: waiter, json: ["user_ids": [strangerID]]).status == .forbidden)

            // Bad invitees.
            let ownerID = try await api.me(owner).id
            let yourself = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [ownerID]])
            #expect(yourself.status == .unprocessableContent)
            let ghost = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [UUID().uuidString]])
            #expect(ghost.status == .unprocessableContent)
            let malformed = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": ["nope"]])
            #expect(malformed.status == .unprocessableContent)
            #expect(
                try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": []]).status == .unprocessableContent)
            let attending = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [strangerID, friendID]])
            #expect(attending.status == .conflict)
            #expect(try attending.errorCode == "already_attending")
            // That rolled back: the stranger got no invitation, and no job was queued for them.
            #expect(try await api.invitations(stranger).isEmpty)
            #expect(try await count(services, "jobs", where: "kind = 'invitation' AND payload LIKE '%\(strangerID.lowercased())%'") == 0)

            // Decline records the answer.
            let third = try await api.invite([lateID], to: event, token: owner)
            let declined = try await api.decline(try #require(third.first?.id), token: late)
            #expect(declined.status == .declined)
            let listed = try await api.invitations(late, status: "declined")
            #expect(listed.count == 1)
            #expect(listed.first?.event?.id == event)

            // Cancelled and finished events take no invitations.
            _ = try await api.delete("/v1/events/\(event)", token: owner)
            #expect(
                try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [strangerID]]).status == .conflict)
            let short = try await api.createEvent(owner, startsIn: 60, duration: 600, now: clock.now()).id
            clock.advance(by: 1_000)
            #expect(
                try await api.post("/v1/events/\(short)/invitations", token: owner, json: ["user_ids": [strangerID]]).status == .conflict)
        }
    }

    @Test("notifications reach the inbox once, and can be marked read", arguments: engines)
    func inbox(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (owner, ownerID) = try await api.register("Owner")
            let (guest, guestID) = try await api.register("Guest")
            let (third, _) = try await api.register("Third")
            let event = try await api.createEvent(owner, capacity: 1, now: clock.now()).id
            let invitationID = try #require(try await api.invite([guestID], to: event, token: owner).first?.id)
            try await eventually("the invitation notification") { try await api.notifications(guest).count == 1 }
            let note = try #require(try await api.notifications(guest).first)
            #expect(note.kind == .invitation)
            // read_at is required: the decode fails if it is absent, so nil means null.
            #expect(note.readAt == nil)
            #expect(note.data.invitationId == invitationID)
            #expect(note.data.inviter?.id == ownerID)

            _ = try await api.post("/v1/invitations/\(invitationID)/accept", token: guest)
            try await eventually("invitation_accepted") { try await api.notifications(owner).contains { $0.kind == .invitationAccepted } }

            // The third joins the waitlist; the guest leaves; the third is promoted.
            _ = try await api.post("/v1/events/\(event)/attendance", token: third)
            _ = try await api.delete("/v1/events/\(event)/attendance", token: guest)
            try await eventually("waitlist_promoted") { try await api.notifications(third).contains { $0.kind == .waitlistPromoted } }

            // Time changed: attendees hear of it; then the cancellation.
            _ = try await api.patch(
                "/v1/events/\(event)", token: owner, json: ["starts_at": RFC3339.format(clock.now().addingTimeInterval(2 * 86_400))])
            try await eventually("event_updated") { try await api.notifications(third).contains { $0.kind == .eventUpdated } }
            _ = try await api.delete("/v1/events/\(event)", token: owner)
            try await eventually("event_cancelled") { try await api.notifications(third).contains { $0.kind == .eventCancelled } }
            #expect(try await api.notifications(owner).allSatisfy { $0.kind != .eventCancelled })

            // Reading.
            let mine = try await api.notifications(third)
            #expect(mine.count == 3)
            let firstID = try #require(mine.last?.id)
            #expect(try await api.post("/v1/me/notifications/read", token: third, json: ["ids": [firstID]]).status == .noContent)
            #expect(try await api.notifications(third, unread: true).count == 2)
            #expect(try await api.post("/v1/me/notifications/read", token: third, json: ["all": true]).status == .noContent)
            #expect(try await api.notifications(third, unread: true).isEmpty)
            #expect(try await api.post("/v1/me/notifications/read", token: third, json: [:]).status == .unprocessableContent)
            #expect(try await api.post("/v1/me/notifications/read", token: third, json: ["ids": ["x"]]).status == .unprocessableContent)
            // Exactly one inbox row per job.
            #expect(try await count(services, "notifications") == (try await count(services, "jobs", where: "state = 'done'")))
        }
    }

    @Test("a gateway failing twice gets three POSTs with one key; the inbox holds one row", arguments: engines)
    func retries(engine: DatabaseEngine) async throws {
        let gateway = TestGateway { n, _ in n <= 2 ? (.internalServerError, nil) : (.ok, nil) }
        let url = try await gateway.start()
        defer { gateway.stop() }
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock,
            configure: { c in
                c.pushGatewayURL = url
                c.pushGatewaySecret = "s3cret"
                c.jobRetryBase = 0.01
            }
        ) { api, services in
            let (owner, _) = try await api.register("Owner")
            let (guest, guestID) = try await api.register("Guest")
            #expect(
                try await api.post("/v1/me/devices", token: guest, json: ["platform": "ios", "token": String(repeating: "d1", count: 32)])
                    .status == .created)
            let event = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [guestID]])
            try await eventually("three attempts") { gateway.requests.count >= 3 }
            try await eventually("the job to finish") { try await count(services, "jobs", where: "state = 'done'") == 1 }
            let requests = gateway.requests
            #expect(requests.count == 3)
            #expect(Set(requests.map(\.idempotencyKey)).count == 1)
            for request in requests {
                // t=<unix seconds>,v1=<HMAC-SHA256 of "<t>." + body>, t close to now.
                let parts = Dictionary(
                    uniqueKeysWithValues: request.signature.split(separator: ",").compactMap { part -> (String, String)? in
                        let kv = part.split(separator: "=", maxSplits: 1)
                        return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
                    })
                let t = try #require(parts["t"])
                #expect(abs(Double(t)! - Date().timeIntervalSince1970) < 60)
                let signed = Array((t + ".").utf8) + Array(request.body)
                let expected = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data("s3cret".utf8))).map {
                    String(format: "%02x", $0)
                }.joined()
                #expect(parts["v1"] == expected)
                // The body alone, or another time, does not verify.
                let bodyOnly = HMAC<SHA256>.authenticationCode(for: Array(request.body), using: SymmetricKey(data: Data("s3cret".utf8))).map
                { String(format: "%02x", $0) }.joined()
                #expect(parts["v1"] != bodyOnly)
            }
            let push = try requests[0].push()
            #expect(push.devices.first?.token == String(repeating: "d1", count: 32))
            #expect(push.notification.kind == "invitation")
            #expect(try await count(services, "notifications") == 1)
            #expect(try await api.notifications(guest).count == 1)
        }
    }

    @Test("a gateway that always fails leaves the job dead with its last error; 410 removes the device", arguments: engines)
    func deadAndGone(engine: DatabaseEngine) async throws {
        let gateway = TestGateway { _, received in
            // A push that does not decode is refused for good: the job then dies with 400, not the 503 expected below.
            guard let tokens = try? received.push().devices.map(\.token) else { return (.badRequest, nil) }
            // It also names a token it was not sent: that one must stay.
            if tokens.contains("https://push.example.net/gone-device") {
                return (.gone, #"{"gone_tokens": ["https://push.example.net/gone-device", "failing-device-0001"]}"#)
            }
            return (.serviceUnavailable, nil)
        }
        let url = try await gateway.start()
        defer { gateway.stop() }
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock,
            configure: { c in
                c.pushGatewayURL = url
                c.pushGatewaySecret = "k"
                c.jobRetryBase = 0.01
                c.jobMaxAttempts = 4
            }
        ) { api, services in
            let (owner, _) = try await api.register("Owner")
            let (guest, guestID) = try await api.register("Guest")
            let (other, otherID) = try await api.register("Other")
            _ = try await api.post("/v1/me/devices", token: guest, json: ["platform": "android", "token": "failing-device-0001"])
            _ = try await api.post(
                "/v1/me/devices", token: other,
                json: ["platform": "web", "subscription": WebSubscription.make(endpoint: "https://push.example.net/gone-device").json])
            let event = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [guestID]])
            try await eventually("the job to die") { try await count(services, "jobs", where: "state = 'dead'") == 1 }
            let row = try await services.database.read { sql in
                try await sql.raw("SELECT attempts, last_error FROM jobs WHERE state = 'dead'").first()
            }
            #expect(try row?.value("attempts", as: Int.self) == 4)
            #expect(try row?.value("last_error", as: String.self).contains("503") == true)
            #expect(gateway.requests.count == 4)
            // The inbox got it anyway.
            #expect(try await api.notifications(guest).count == 1)
            // The dead can be queued again.
            let summary = try await services.jobStore.summary()
            #expect(summary.counts.contains { $0.state == "dead" && $0.kind == "invitation" && $0.count == 1 })
            #expect(try await services.jobStore.retryDead(kind: "invitation") == 1)

            _ = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [otherID]])
            try await eventually("the gone device to be removed") {
                try await count(services, "devices", where: "token = 'https://push.example.net/gone-device'") == 0
            }
            // Only what was in the request is removed.
            #expect(try await api.delete("/v1/me/devices/failing-device-0001", token: guest).status == .noContent)
            #expect(try await api.delete("/v1/me/devices/failing-device-0001", token: guest).status == .notFound)
            #expect(
                try await api.post("/v1/me/devices", token: guest, json: ["platform": "blackberry", "token": "x"]).status
                    == .unprocessableContent)
        }
    }

    @Test(
        "a job its worker puts back is queued again as it was, the claim not counted as an attempt; no other worker can put it back",
        arguments: engines)
    func release(engine: DatabaseEngine) async throws {
        // No worker of the app's own: only this test claims.
        try await withApp(engine, configure: { $0.jobWorkers = 0 }) { _, services in
            let jobs = services.jobStore
            let messages = (1...2).map {
                (
                    message: NotificationMessage(to: UUID(), .invitation, title: "Join us", body: "Football", data: [:]),
                    dedupeKey: "release-\($0)"
                )
            }
            let queued = try await services.database.transaction { sql in try await jobs.enqueue(messages, on: sql) }
            #expect(queued == 2)
            let now = jobs.clock.now()
            let claimed = try await jobs.claim(limit: 10, worker: "first", now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(claimed.count == 2)
            try await jobs.release(claimed.map(\.id), worker: "another")
            #expect(try await count(services, "jobs", where: "state = 'running'") == 2, "only the worker holding a job puts it back")
            try await jobs.release([claimed[0].id], worker: "first")
            #expect(try await count(services, "jobs", where: "state = 'queued' AND attempts = 0 AND lease_until IS NULL") == 1)
            let again = try await jobs.claim(limit: 10, worker: "second", now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(again.map(\.id) == [claimed[0].id], "the job put back is claimed again; the other is still held")
            #expect(again.first?.attempts == 1, "the claim put back was not an attempt")
        }
    }
}

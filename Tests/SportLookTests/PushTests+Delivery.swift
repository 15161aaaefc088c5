import Crypto
import Foundation
import HTTPTypes
import NIOSSL
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// Devices, and pushes delivered through each service's answers.
extension PushTests {
    @Test("devices by platform: formats checked, listed, removed, at most 20", arguments: engines)
    func registrations(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { c in c.push.vapidSubject = "mailto:ops@sportlook.test" }) { api, _ in
            let (token, _) = try await api.register("Devices")
            let apple = String(repeating: "ab", count: 32)
            let ios = try await api.post(
                "/v1/me/devices", token: token, json: ["platform": "ios", "token": apple.uppercased(), "environment": "sandbox"]
            ).decode(Device.self, expecting: .created)
            #expect(ios.token == apple)
            #expect(ios.environment == "sandbox")
            clock.advance(by: 1)
            let web = WebSubscription.make(endpoint: "https://fcm.googleapis.com/fcm/send/abc:def")
            let browser = try await api.post("/v1/me/devices", token: token, json: ["platform": "web", "subscription": web.json]).decode(
                Device.self, expecting: .created)
            #expect(browser.endpoint == web.endpoint)
            #expect(browser.keys == nil && browser.token == nil)

            func field(_ json: [String: Any]) async throws -> String? {
                let reply = try await api.post("/v1/me/devices", token: token, json: json)
                #expect(reply.status == .unprocessableContent, "\(json)")
                return try reply.errorFields.keys.sorted().first
            }
            #expect(try await field(["platform": "ios", "token": "xyz"]) == "token")
            #expect(try await field(["platform": "ios", "token": apple, "environment": "staging"]) == "environment")
            #expect(try await field(["platform": "android", "token": "has spaces in it, no"]) == "token")
            #expect(try await field(["platform": "web", "token": "abc"]) == "subscription.endpoint")
            var keys = web.json["keys"] as! [String: Any]
            keys["auth"] = "AAAA"
            #expect(
                try await field(["platform": "web", "subscription": ["endpoint": web.endpoint, "keys": keys]]) == "subscription.keys.auth")
            keys = web.json["keys"] as! [String: Any]
            keys["p256dh"] = Array(repeating: UInt8(4), count: 65).base64URLEncodedString()
            #expect(
                try await field(["platform": "web", "subscription": ["endpoint": web.endpoint, "keys": keys]]) == "subscription.keys.p256dh"
            )
            for endpoint in ["https://10.0.0.1/push", "https://[::1]/push", "http://push.example.com/x"] {
                #expect(
                    try await field(["platform": "web", "subscription": ["endpoint": endpoint, "keys": web.json["keys"]!]])
                        == "subscription.endpoint")
            }

            // Listed newest first; removed by id (or token); the oldest go beyond 20.
            let listed = try await api.get("/v1/me/devices", token: token).decode(API.Page<Device>.self, expecting: .ok).items
            #expect(listed.map(\.platform) == ["web", "ios"])
            let webID = try #require(listed.first?.id)
            #expect(try await api.delete("/v1/me/devices/\(webID)", token: token).status == .noContent)
            #expect(try await api.delete("/v1/me/devices/\(webID)", token: token).status == .notFound)
            for i in 0..<21 {
                clock.advance(by: 1)
                let reply = try await api.post(
                    "/v1/me/devices", token: token, json: ["platform": "android", "token": "android-token-\(String(format: "%04d", i))"])
                #expect(reply.status == .created)
            }
            let kept = try await api.get("/v1/me/devices", token: token).decode(API.Page<Device>.self, expecting: .ok).items
            #expect(kept.count == 20)
            #expect(!kept.contains { $0.token == apple })
            #expect(kept.first?.token == "android-token-0020")

            let key = try await api.get("/v1/push/vapid-public-key").decode(VapidKey.self, expecting: .ok).public_key
            #expect(Data(base64URLEncoded: key)?.count == 65)
        }
    }

    @Test(
        "one invitation reaches an iPhone, an Android phone and a browser once each; a failed channel is retried alone", arguments: engines)
    func everyPlatform(engine: DatabaseEngine) async throws {
        let server = try await PushServer()
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock,
            configure: { c in
                try! server.configure(&c)
                c.jobRetryBase = 0.05
                c.jobMaxAttempts = 3
            }
        ) { api, services in
            let (owner, _) = try await api.register("Owner")
            let (guest, guestID) = try await api.register("Guest")
            let iphone = String(repeating: "0a", count: 32)
            #expect(try await api.post("/v1/me/devices", token: guest, json: ["platform": "ios", "token": iphone]).status == .created)
            #expect(
                try await api.post("/v1/me/devices", token: guest, json: ["platform": "android", "token": "android:APA91bGuestPhone"])
                    .status == .created)
            let browser = try server.subscription("guest")
            #expect(
                try await api.post("/v1/me/devices", token: guest, json: ["platform": "web", "subscription": browser.json]).status
                    == .created)
            let vapid = try await api.get("/v1/push/vapid-public-key").decode(VapidKey.self, expecting: .ok).public_key

            // FCM fails once with 500: the retry goes to the Android phone alone.
            try server.script(["fcm": [500]])
            let event = try await api.createEvent(owner, now: clock.now()).id
            #expect(try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [guestID]]).status == .created)
            try await eventually("the job to finish") { try await count(services, "jobs", where: "state = 'done'") == 1 }
            #expect(server.requests("apns").count == 1)
            #expect(server.requests("webpush").count == 1)
            #expect(server.requests("fcm").map(\.status) == [500, 200])
            #expect(server.requests("token").count == 1, "one access token, shared")
            for request in server.requests { #expect(request.problems.isEmpty, "\(request.channel): \(request.problems)") }
            #expect(try await count(services, "push_receipts") == 0)

            // What each carried.
            let apns = server.requests("apns")[0].entry
            #expect(apns["http_version"] as? String == "2")
            #expect(apns["path"] as? String == "/3/device/\(iphone)")
            let aps = (apns["payload"] as? [String: Any])?["aps"] as? [String: Any]
            #expect((aps?["alert"] as? [String: Any])?["title"] != nil)
            #expect(aps?["badge"] as? Int == 1)
            #expect((apns["payload"] as? [String: Any])?["kind"] as? String == "invitation")
            let fcm = server.requests("fcm")[1].entry["message"] as? [String: Any]
            #expect(fcm?["token"] as? String == "android:APA91bGuestPhone")
            #expect((fcm?["data"] as? [String: Any])?["kind"] as? String == "invitation")
            let web = server.requests("webpush")[0].entry
            #expect((web["message"] as? [String: Any])?["kind"] as? String == "invitation")
            #expect(web["vapid_key"] as? String == vapid)
            #expect(web["urgency"] as? String == "high")

            // Expired credentials are renewed and the push tried once more; gone registrations are removed.
            try server.script(["apns": ["expired"], "fcm": ["expired"], "webpush": ["gone"]])
            let second = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.post("/v1/events/\(second)/invitations", token: owner, json: ["user_ids": [guestID]])
            try await eventually("the second job to finish") { try await count(services, "jobs", where: "state = 'done'") == 2 }
            let apnsTries = server.requests("apns").suffix(2)
            #expect(apnsTries.map(\.status) == [403, 200])
            #expect(apnsTries.first?.entry["jwt"] as? String != apnsTries.last?.entry["jwt"] as? String, "a new provider token")
            #expect(server.requests("fcm").suffix(2).map(\.status) == [401, 200])
            #expect(server.requests("token").count == 2, "the access token refreshed once")
            #expect(server.requests("webpush").last?.status == 410)
            let left = try await api.get("/v1/me/devices", token: guest).decode(API.Page<Device>.self, expecting: .ok).items
            #expect(Set(left.map(\.platform)) == ["ios", "android"])

            // 429 is retried; a final 4xx settles the device without retrying it.
            try server.script(["apns": [429], "fcm": ["bad"]])
            let third = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.post("/v1/events/\(third)/invitations", token: owner, json: ["user_ids": [guestID]])
            try await eventually("the third job to finish") { try await count(services, "jobs", where: "state = 'done'") == 3 }
            #expect(server.requests("apns").suffix(2).map(\.status) == [429, 200])
            #expect(server.requests("fcm").suffix(1).map(\.status) == [400])
            #expect(server.requests("fcm").count == 5)

            // A job dead for one device keeps what the others received: queued again, it
            // goes to that device alone, and is done with no receipts left.
            try server.script(["fcm": [500, 500, 500]])
            let fcmBefore = server.requests("fcm").count
            let fourth = try await api.createEvent(owner, now: clock.now()).id
            _ = try await api.post("/v1/events/\(fourth)/invitations", token: owner, json: ["user_ids": [guestID]])
            try await eventually("the fourth job to die") { try await count(services, "jobs", where: "state = 'dead'") == 1 }
            // Three attempts at most, each refused (an attempt that could not reach the service on a loaded machine sends nothing).
            let refused = server.requests("fcm").dropFirst(fcmBefore)
            #expect((1...3).contains(refused.count) && refused.allSatisfy { $0.status == 500 }, "\(refused.map(\.status))")
            let apnsBefore = server.requests("apns").count
            #expect(try await count(services, "push_receipts") == 1)
            try server.script(["fcm": []])
            #expect(try await services.jobStore.retryDead(kind: "invitation") == 1)
            try await eventually("the fourth job to finish") { try await count(services, "jobs", where: "state = 'done'") == 4 }
            #expect(server.requests("fcm").last?.status == 200)
            #expect(server.requests("apns").count == apnsBefore, "the iPhone had it already")
            #expect(try await count(services, "push_receipts") == 0)
            for request in server.requests { #expect(request.problems.isEmpty, "\(request.channel): \(request.problems)") }
        }
    }

    @Test("`sportlook push test` sends to each device and says how each service answered", arguments: engines)
    func pushTestCommand(engine: DatabaseEngine) async throws {
        let server = try await PushServer()
        try await withApp(engine, configure: { c in try! server.configure(&c) }) { api, services in
            let (token, id) = try await api.register("Operator")
            let iphone = String(repeating: "be", count: 32)
            _ = try await api.post("/v1/me/devices", token: token, json: ["platform": "ios", "token": iphone, "environment": "sandbox"])
            _ = try await api.post("/v1/me/devices", token: token, json: ["platform": "android", "token": "android:APA91bOperator"])
            _ = try await api.post(
                "/v1/me/devices", token: token, json: ["platform": "web", "subscription": try server.subscription("operator").json])
            let tool = AdminTool(
                database: services.database, resources: services.resources, logger: services.logger, configuration: services.configuration)
            let user = try #require(UUID(uuidString: id))
            let lines = try await tool.pushTest(user: user)
            #expect(lines.count == 3)
            for channel in ["apns", "fcm", "webpush"] {
                #expect(lines.contains { $0.contains("via \(channel): delivered") }, "\(lines)")
            }
            #expect(
                server.requests("webpush").first?.entry["message"].flatMap { ($0 as? [String: Any])?["kind"] as? String } == "push_test")
            try server.script(["apns": ["gone"], "fcm": ["bad"]])
            let again = try await tool.pushTest(user: user)
            #expect(again.contains { $0.hasPrefix("ios ") && $0.contains("gone") }, "\(again)")
            #expect(again.contains { $0.hasPrefix("android ") && $0.contains("refused (400)") }, "\(again)")
            #expect(try await count(services, "devices") == 2)
            for request in server.requests { #expect(request.problems.isEmpty, "\(request.channel): \(request.problems)") }
        }
    }

    @Test(
        "every service's answers: 500 and 429 retried, expired credentials renewed, a final refusal kept, gone removed", arguments: engines)
    func everyAnswer(engine: DatabaseEngine) async throws {
        let server = try await PushServer()
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock,
            configure: { c in
                try! server.configure(&c)
                c.jobRetryBase = 0.05
            }
        ) { api, services in
            let (owner, _) = try await api.register("Owner")
            let (guest, guestID) = try await api.register("Guest")
            var done = 0
            let cases: [(channel: String, device: [String: Any], steps: [(answers: [Any], statuses: [Int])], gone: Any)] = [
                (
                    "apns", ["platform": "ios", "token": String(repeating: "c3", count: 32)],
                    [([500], [500, 200]), ([429], [429, 200]), (["expired"], [403, 200]), (["bad"], [400])], "badtoken"
                ),
                (
                    "fcm", ["platform": "android", "token": "android:APA91bEveryAnswer"],
                    [([500], [500, 200]), ([429], [429, 200]), (["expired"], [401, 200]), (["bad"], [400])], "gone"
                ),
                (
                    "webpush", ["platform": "web", "subscription": try server.subscription("every").json],
                    [([500], [500, 201]), ([429], [429, 201]), (["bad"], [400])], "gone"
                ),
            ]
            for (channel, device, steps, gone) in cases {
                #expect(try await api.post("/v1/me/devices", token: guest, json: device).status == .created)
                for (answers, statuses) in steps + [([gone], [channel == "apns" ? 400 : channel == "fcm" ? 404 : 410])] {
                    try server.script([channel: answers])
                    let before = server.requests(channel).count
                    let event = try await api.createEvent(owner, now: clock.now()).id
                    _ = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [guestID]])
                    done += 1
                    let finished = done
                    try await eventually("\(channel) \(answers): the job done") {
                        try await count(services, "jobs", where: "state = 'done'") == finished
                    }
                    #expect(server.requests(channel).dropFirst(before).map(\.status) == statuses, "\(channel) answering \(answers)")
                    let registered = try await api.get("/v1/me/devices", token: guest).decode(API.Page<Device>.self, expecting: .ok).items
                    // Only a gone answer removes the registration; a final refusal keeps it.
                    let removed = answers.first as? String == gone as? String
                    #expect(registered.count == (removed ? 0 : 1), "\(channel) answering \(answers)")
                }
                #expect(try await count(services, "push_receipts") == 0)
            }
            for request in server.requests { #expect(request.problems.isEmpty, "\(request.channel): \(request.problems)") }
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// One letter and 30,000 combining accents: one character, about 60 KB.
let oneHeavyCharacter = "a" + String(repeating: "\u{301}", count: 30_000)

@Suite("Bounds on what strangers send: text, frames, invitations, metrics, settings", .timeLimit(.minutes(10)))
struct BoundsTests {
    @Test("text fields are bounded in bytes as well as characters, normalised to NFC, free of control characters", arguments: engines)
    func textLimits(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let heavy = oneHeavyCharacter
            #expect(heavy.count == 1)
            let registered = try await api.post(
                "/v1/auth/register", json: ["name": heavy, "email": "heavy@example.com", "password": "correct horse battery"])
            #expect(registered.status == .unprocessableContent)
            #expect(try registered.errorFields["name"] != nil)
            let (token, _) = try await api.register("Nell")
            for field in ["name", "bio"] {
                let reply = try await api.patch("/v1/me", token: token, json: [field: heavy])
                #expect(reply.status == .unprocessableContent, "\(field)")
                #expect(try reply.errorFields[field]?.contains("bytes") == true, "\(field)")
            }
            let start = RFC3339.format(clock.now().addingTimeInterval(86_400))
            let base: [String: Any] = ["title": "Run", "sport": "running", "starts_at": start, "location": ["lat": 48.85, "lon": 2.35]]
            for (field, value) in [
                ("title", heavy), ("description", heavy), ("address", heavy), ("title", "Tab\there"), ("title", "Bell\u{7}"),
                ("title", "evil\u{202E}gpj.exe"),
            ] {
                var body = base
                body[field] = value
                let reply = try await api.post("/v1/events", token: token, json: body)
                #expect(reply.status == .unprocessableContent, "\(field)")
                #expect(try reply.errorFields[field] != nil, "\(field)")
            }
            // Measured as sent, as the contract's maxLength counts code points: one space more is one too many.
            var padded = base
            padded["title"] = " " + String(repeating: "t", count: 120)
            let tooLong = try await api.post("/v1/events", token: token, json: padded)
            #expect(tooLong.status == .unprocessableContent)
            #expect(try tooLong.errorFields["title"] != nil)
            // Line breaks belong in a description; text is stored composed (NFC).
            var body = base
            body["title"] = "Cafe\u{301} run"
            body["description"] = "Meet at the gate.\nBring water."
            let created = try await api.post("/v1/events", token: token, json: body)
            #expect(created.status == .created)
            let stored = try created.decode(API.Event.self)
            #expect(stored.title == "Caf\u{E9} run")
            #expect(stored.description == "Meet at the gate.\nBring water.")
            let event = stored.id
            let message = try await api.post("/v1/events/\(event)/messages", token: token, json: ["body": heavy, "client_id": "heavy"])
            #expect(message.status == .unprocessableContent)
            #expect(try message.errorFields["body"] != nil)
            #expect(try await api.messages(event, token: token).isEmpty)
            // Many multi-byte characters within the character limit still pass.
            let hanzi = String(repeating: "\u{8DD1}", count: 120)
            #expect(try await api.patch("/v1/events/\(event)", token: token, json: ["title": hanzi]).status == .ok)
        }
    }

    @Test(
        "names refuse invisible and format characters, at registration and on the profile; joiners that scripts and emoji need stay",
        arguments: engines)
    func invisibleNames(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let hidden: [Unicode.Scalar] = [
                "\u{2060}", "\u{00AD}", "\u{3164}", "\u{2800}", "\u{180E}", "\u{FEFF}", "\u{200E}", "\u{200F}", "\u{061C}",
                "\u{E0041}", "\u{E007F}", "\u{2028}", "\u{2029}", "\u{200B}", "\u{115F}", "\u{FFA0}",
                // Ignorable by default, and joiners where nothing needs them (between Latin letters).
                "\u{034F}", "\u{FE00}", "\u{E0100}", "\u{17B4}", "\u{200D}", "\u{200C}", "\u{FE0F}",
            ]
            let (token, _) = try await api.register("Vera")
            for scalar in hidden {
                let name = "Ve\(Character(scalar))ra"
                let registered = try await api.post(
                    "/v1/auth/register", json: ["name": name, "email": "v\(scalar.value)@example.com", "password": "correct horse battery"])
                #expect(registered.status == .unprocessableContent, "U+\(String(scalar.value, radix: 16))")
                #expect(try registered.errorFields["name"]?.contains("invisible") == true, "U+\(String(scalar.value, radix: 16))")
                let patched = try await api.patch("/v1/me", token: token, json: ["name": name])
                #expect(patched.status == .unprocessableContent, "U+\(String(scalar.value, radix: 16))")
            }
            // A name made only of a filler is refused too, not stored as a blank.
            #expect(try await api.patch("/v1/me", token: token, json: ["name": "\u{3164}"]).status == .unprocessableContent)
            #expect(try await api.me(token).name == "Vera")
            // Nothing to see is no name.
            for blank in ["\u{200D}", " \u{034F} ", "\u{FE0F}", "\u{3164}\u{3164}"] {
                #expect(
                    try await api.patch("/v1/me", token: token, json: ["name": blank]).status == .unprocessableContent,
                    "\(blank.unicodeScalars.map { $0.value })")
            }
            // A family emoji (zero-width joiners), a heart with its emoji selector, England's flag
            // (tag characters) and Persian with a zero-width non-joiner are names.
            for name in [
                "Team \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{2764}\u{FE0F} Vera",
                "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} Vera",
                "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0645}",
            ] {
                #expect(try await api.patch("/v1/me", token: token, json: ["name": name]).status == .ok, "\(name)")
            }
        }
    }

    @Test(
        "names that mix look-alike scripts inside a word are accepted and flagged for moderators; a clean name clears the flag",
        arguments: engines)
    func lookAlikeNames(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let flags = AccountStore(database: services.database)
            // "Аlex" with a Cyrillic А, "Pаul" with one inside, Greek ο in "Bοb".
            let (token, id) = try await api.register("\u{0410}lex")
            let other = try await api.register("Maria").token
            #expect(try await api.me(token).name == "\u{0410}lex")
            var flagged = try await flags.flaggedNames(limit: 10)
            #expect(flagged.map(\.userID.lowercased) == [id])
            #expect(flagged.first?.scripts == "Latin+Cyrillic")
            #expect(try await api.patch("/v1/me", token: other, json: ["name": "B\u{03BF}b"]).status == .ok)
            flagged = try await flags.flaggedNames(limit: 10)
            #expect(Set(flagged.map(\.scripts)) == ["Latin+Cyrillic", "Latin+Greek"])
            // A name in one script per word is not flagged: Cyrillic alone, or a Latin and a Cyrillic word side by side.
            for name in [
                "\u{0418}\u{0432}\u{0430}\u{043D}", "Ivan \u{0418}\u{0432}\u{0430}\u{043D}\u{043E}\u{0432}", "Zoë Ångström", "Ψ 2",
            ] {
                #expect(LookAlikeScripts.mixed(in: name) == nil, "\(name)")
            }
            #expect(try await api.patch("/v1/me", token: token, json: ["name": "Alex"]).status == .ok)
            #expect(try await flags.flaggedNames(limit: 10).count == 1)
            // Deleting the account clears its flag too.
            #expect(try await api.delete("/v1/me", token: other).status == .noContent)
            #expect(try await flags.flaggedNames(limit: 10).isEmpty)
        }
    }

    @Test("invitations per inviter per day are bounded", arguments: engines)
    func inviteLimit(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.inviteDailyLimit = 3 }) { api, _ in
            let (owner, _) = try await api.register("Inviter")
            let event = try await api.createEvent(owner, now: clock.now()).id
            var ids: [String] = []
            for i in 0..<4 { ids.append(try await api.register("Guest\(i)").id) }
            #expect(
                try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": Array(ids.prefix(3))]).status
                    == .created)
            let refused = try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [ids[3]]])
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.errorCode == "invite_limit")
            clock.advance(by: 86_401)
            #expect(try await api.post("/v1/events/\(event)/invitations", token: owner, json: ["user_ids": [ids[3]]]).status == .created)
        }
    }

    @Test(
        "a socket over its frame budget gets an error frame, then close 1008, counted on the abuse panel; read markers that do not move are not relayed",
        arguments: engines)
    func frameBudget(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                $0.webSocketFrameBurst = 20
                $0.webSocketFrameRate = 1
            }
        ) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            _ = try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["body": "one", "client_id": "one"])
            let url = try socketURL(api)
            let watcher = try await TestSocket.connect(url, token: owner.token)
            watcher.send(["type": "subscribe", "event_id": event, "after_seq": 1])
            try await watcher.waitFor("subscribed") { $0.type == "subscribed" }
            let reader = try await TestSocket.connect(url, token: people[0].token)
            reader.send(["type": "subscribe", "event_id": event, "after_seq": 1])
            try await reader.waitFor("subscribed") { $0.type == "subscribed" }
            reader.send(["type": "read", "event_id": event, "seq": 1])
            try await watcher.waitFor("the first read marker") { $0.type == "read" }
            for _ in 0..<3 { reader.send(["type": "read", "event_id": event, "seq": 1]) }
            reader.send(["type": "typing", "event_id": event])
            try await watcher.waitFor("typing after the repeated markers") { $0.type == "typing" }
            #expect(try watcher.frames.filter { $0.type == "read" }.count == 1)
            // A flood.
            for i in 0..<40 { reader.send(["type": "typing", "event_id": event, "n": i]) }
            try await eventually("the flooding socket to close") { reader.isClosed }
            #expect(reader.closedWith?.code == 1008)
            #expect(try reader.frames.contains { $0.error?.code == "rate_limited" })
            #expect(!watcher.isClosed)
            let (_, mo) = try await ModerationTests.staff(api, services)
            let panel = try await api.get("/v1/staff/abuse", token: mo.token).decode(JSONValue.self, expecting: .ok)
            #expect(panel["refusals"]?.array?.contains { $0["code"]?.string == "socket_rate_limited" && $0["count"]?.int == 1 } == true)
            await watcher.close()
        }
    }

    @Test("metrics answer only with METRICS_TOKEN on the main port; X-Forwarded-For counts only from trusted proxies")
    func operations() async throws {
        try await withApp(.sqlite, configure: { $0.metricsToken = "metrics-token-0123456789" }) { api, _ in
            #expect(try await api.get("/metrics").status == .notFound)
            #expect(try await api.get("/metrics", token: "wrong-token-0123456789ab").status == .notFound)
            let metrics = try await api.get("/metrics", token: "metrics-token-0123456789")
            #expect(metrics.status == .ok)
            #expect(metrics.text.contains("hb_requests"))
        }
        let resolver = ClientAddress(trustedProxies: [
            try #require(AddressRange(cidr: "10.0.0.0/8")), try #require(AddressRange(cidr: "::1")),
        ])
        #expect(resolver.resolve(peer: "10.1.2.3", forwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        #expect(resolver.resolve(peer: "10.1.2.3", forwardedFor: ["198.51.100.1, 203.0.113.7, 10.9.9.9"]) == "203.0.113.7")
        #expect(resolver.resolve(peer: "192.0.2.50", forwardedFor: ["203.0.113.7"]) == "192.0.2.50")
        #expect(resolver.resolve(peer: "::1", forwardedFor: ["not an address"]) == "::1")
        #expect(AddressRange(cidr: "10.0.0.0/33") == nil)
        #expect(ClientAddress.throttleKey("2001:db8:1:2:aaaa::1") == ClientAddress.throttleKey("2001:0db8:0001:0002:ffff::9"))
        #expect(ClientAddress.throttleKey("2001:db8:1:3::1") != ClientAddress.throttleKey("2001:db8:1:2::1"))
        #expect(ClientAddress.throttleKey("192.0.2.1") == "192.0.2.1")
        #expect(AddressRange(cidr: "fd00::/8")?.contains("fd12::1") == true)
        #expect(AddressRange(cidr: "fd00::/8")?.contains("fe80::1") == false)
        for (environment, setting) in [
            (["PUSH_GATEWAY_URL": "https://gw.example.com/push", "PUSH_GATEWAY_SECRET": "short"], "PUSH_GATEWAY_SECRET"),
            (
                ["PUSH_GATEWAY_URL": "http://gw.example.com/push", "PUSH_GATEWAY_SECRET": String(repeating: "k", count: 32)],
                "PUSH_GATEWAY_URL"
            ),
            (["TRUSTED_PROXIES": "10.0.0.0/8, nonsense"], "TRUSTED_PROXIES"), (["METRICS_TOKEN": "short"], "METRICS_TOKEN"),
        ] {
            #expect(throws: ConfigurationError.self, "\(setting)") { try AppConfiguration(environment: environment) }
        }
        #expect(throws: Never.self) {
            try AppConfiguration(environment: [
                "PUSH_GATEWAY_URL": "http://127.0.0.1:9/push", "PUSH_GATEWAY_SECRET": String(repeating: "k", count: 32),
            ])
        }
    }
}

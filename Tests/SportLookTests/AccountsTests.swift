import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Accounts and sessions", .timeLimit(.minutes(10)))
struct AccountsTests {
    @Test("register, login, me, logout round trip", arguments: engines)
    func roundTrip(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let registered = try await api.post(
                "/v1/auth/register", json: ["name": " Ann ", "email": "  Ann@Example.COM ", "password": "correct horse battery"])
            #expect(registered.status == .created)
            // The decode checks the shape: expires_at a string, location present (as null below).
            let auth = try registered.decode(API.AuthResult.self)
            let user = auth.user
            #expect(user.name == "Ann")
            #expect(user.email == "Ann@Example.COM")
            #expect(user.location == nil)
            #expect(auth.accessToken.count == 43)

            let login = try await api.post("/v1/auth/login", json: ["email": "ann@example.com", "password": "correct horse battery"])
            #expect(login.status == .ok)
            let token = try login.decode(API.AuthResult.self).accessToken
            #expect(token != auth.accessToken)

            let me = try await api.get("/v1/me", token: token)
            #expect(me.status == .ok)
            let profile = try me.decode(API.PrivateProfile.self)
            #expect(profile.id == user.id)
            #expect(profile.sports == [])

            let sessions = try await api.sessions(token)
            #expect(sessions.count == 2)
            #expect(sessions.filter(\.current).count == 1)

            #expect(try await api.post("/v1/auth/logout", token: token).status == .noContent)
            let after = try await api.get("/v1/me", token: token)
            #expect(after.status == .unauthorized)
            #expect(try after.errorCode == "unauthorized")
            // The other session lives on.
            #expect(try await api.get("/v1/me", token: auth.accessToken).status == .ok)
        }
    }

    @Test("an email is taken whatever its case", arguments: engines)
    func duplicateEmail(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            try await api.register("Bo", email: "bo@example.com")
            let again = try await api.post(
                "/v1/auth/register", json: ["name": "Bo2", "email": " BO@Example.com", "password": "another good one"])
            #expect(again.status == .conflict)
            #expect(try again.errorCode == "email_taken")
        }
    }

    @Test("every password rule", arguments: engines)
    func passwordRules(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let cases: [(String, Bool)] = [
                ("short7!", false),
                ("password123", false),  // common
                ("Password123", false),  // common, any case
                ("aaaaaaaaaa", false),  // one character
                ("with\u{0}nul-inside", false),
                (String(repeating: "é", count: 35) + "ab", true),  // 72 bytes exactly
                (String(repeating: "é", count: 35) + "abc", false),  // 73 bytes
                (String(repeating: "x", count: 72), false),  // one repeated character
                ("xy" + String(repeating: "z", count: 70), true),
                ("xy" + String(repeating: "z", count: 71), false),
                ("fine horse staple", true),
            ]
            for (i, (password, accepted)) in cases.enumerated() {
                let reply = try await api.post(
                    "/v1/auth/register", json: ["name": "P", "email": "p\(i)@example.com", "password": password])
                #expect(reply.status == (accepted ? .created : .unprocessableContent), "password #\(i)")
                if !accepted { #expect(try reply.errorFields["password"] != nil, "password #\(i)") }
            }
            let sameAsEmail = try await api.post(
                "/v1/auth/register", json: ["name": "P", "email": "mail@example.com", "password": "MAIL@example.com"])
            #expect(try sameAsEmail.errorFields["password"] != nil)
            let missing = try await api.post("/v1/auth/register", json: ["name": "", "email": "not-an-email"])
            #expect(missing.status == .unprocessableContent)
            #expect(try Set(missing.errorFields.keys) == ["name", "email", "password"])
        }
    }

    @Test("unknown email and wrong password get the same answer", arguments: engines)
    func sameAnswer(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            try await api.register("Cy", email: "cy@example.com")
            let wrong = try await api.post("/v1/auth/login", json: ["email": "cy@example.com", "password": "wrong password!"])
            let unknown = try await api.post("/v1/auth/login", json: ["email": "nobody@example.com", "password": "wrong password!"])
            #expect(wrong.status == .unauthorized)
            #expect(unknown.status == wrong.status)
            #expect(unknown.body == wrong.body)
            #expect(try wrong.errorCode == "invalid_credentials")
        }
    }

    @Test("failed logins are throttled, then allowed again after the window", arguments: engines)
    func throttling(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            try await api.register("Di", email: "di@example.com", password: "right horse battery")
            for _ in 0..<10 {
                #expect(
                    try await api.post("/v1/auth/login", json: ["email": "di@example.com", "password": "nope nope nope"]).status
                        == .unauthorized)
                clock.advance(by: 10)
            }
            let throttled = try await api.post("/v1/auth/login", json: ["email": "DI@example.com", "password": "right horse battery"])
            #expect(throttled.status == .tooManyRequests)
            #expect(try throttled.errorCode == "too_many_attempts")
            let retryAfter = try #require(throttled.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 15 * 60)
            clock.advance(by: TimeInterval(retryAfter))
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "di@example.com", "password": "right horse battery"]).status == .ok)
        }
    }

    @Test("expired and revoked tokens answer 401", arguments: engines)
    func deadTokens(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.tokenTTL = 3_600 }) { api, _ in
            let (token, _) = try await api.register("Ed")
            let email = try #require(await api.me(token).email)
            let other = try await api.login(email, password: "correct horse battery").accessToken
            let sessions = try await api.sessions(token)
            let otherID = try #require(sessions.first { !$0.current }?.id)
            #expect(try await api.delete("/v1/me/sessions/\(otherID)", token: token).status == .noContent)
            #expect(try await api.get("/v1/me", token: other).status == .unauthorized)
            #expect(try await api.delete("/v1/me/sessions/\(otherID)", token: token).status == .notFound)
            #expect(try await api.delete("/v1/me/sessions/not-a-uuid", token: token).status == .notFound)
            clock.advance(by: 3_601)
            #expect(try await api.get("/v1/me", token: token).status == .unauthorized)
            #expect(try await api.get("/v1/me", token: "garbage").status == .unauthorized)
            #expect(try await api.get("/v1/me").status == .unauthorized)
        }
    }

    @Test("PATCH /v1/me updates and validates", arguments: engines)
    func patchMe(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let (token, _) = try await api.register("Flo")
            let updated = try await api.patch(
                "/v1/me", token: token,
                json: [
                    "name": "Flo R", "bio": "Runs at dawn", "sports": ["running", "tennis"], "location": ["lat": 48.85661, "lon": 2.35222],
                    "discoverable": true,
                ])
            #expect(updated.status == .ok)
            let profile = try updated.decode(API.PrivateProfile.self)
            #expect(profile.name == "Flo R")
            #expect(Set(profile.sports) == ["running", "tennis"])
            #expect(profile.discoverable == true)
            let location = try #require(profile.location).value1
            // Stored snapped to ~500 m, never exactly.
            #expect(abs(location.lat - 48.85661) < 0.005 && location.lat != 48.85661)
            #expect(abs(location.lon - 2.35222) < 0.01)

            // location, image_url and image_urls are required: the decode fails if they are absent, so nil means null.
            let cleared = try await api.patch("/v1/me", token: token, json: ["location": NSNull(), "photo_id": NSNull()]).decode(
                API.PrivateProfile.self)
            #expect(cleared.location == nil)
            #expect(cleared.imageUrl == nil && cleared.imageUrls == nil)
            #expect(cleared.name == "Flo R")

            let bad = try await api.patch(
                "/v1/me", token: token,
                json: [
                    "location": ["lat": 91, "lon": 0], "sports": ["quidditch"], "name": String(repeating: "n", count: 81),
                    "bio": String(repeating: "b", count: 1_001), "image_url": "https://x.example/me.png",
                ])
            #expect(bad.status == .unprocessableContent)
            #expect(try Set(bad.errorFields.keys) == ["location.lat", "sports", "name", "bio", "image_url"])
            let badLon = try await api.patch("/v1/me", token: token, json: ["location": ["lat": 1, "lon": -180.5]])
            #expect(try badLon.errorFields.keys.contains("location.lon"))
            let wrongType = try await api.patch("/v1/me", token: token, json: ["discoverable": "yes"])
            #expect(wrongType.status == .unprocessableContent)
            #expect(try wrongType.errorFields["discoverable"] != nil)
            // Nothing of the rejected patches was written.
            let me = try await api.me(token)
            #expect(me.name == "Flo R")
            #expect(me.bio == "Runs at dawn")
        }
    }

    @Test("bad requests get clear JSON errors", arguments: engines)
    func badRequests(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let malformed = try await api.request(.post, "/v1/auth/register", raw: "{\"name\": ")
            #expect(malformed.status == .badRequest)
            #expect(try malformed.errorCode == "invalid_json")
            let unknown = try await api.get("/v1/no/such/route")
            #expect(unknown.status == .notFound)
            #expect(try unknown.errorCode == "not_found")
            let method = try await api.request(.put, "/v1/me")
            #expect(method.status == .methodNotAllowed)
            #expect(method.headers[.allow]?.contains("PATCH") == true)
            let big = try await api.request(
                .post, "/v1/auth/register", raw: "{\"name\": \"" + String(repeating: "x", count: 1_100_000) + "\"}")
            #expect(big.status == .contentTooLarge)
            #expect(try big.errorCode == "payload_too_large")
            let form = try await api.request(
                .post, "/v1/auth/login", raw: "email=a", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == .unsupportedMediaType)
            let deep = try await api.request(
                .post, "/v1/auth/login", raw: String(repeating: "[", count: 100) + String(repeating: "]", count: 100))
            #expect(deep.status == .badRequest)
            let array = try await api.request(.post, "/v1/auth/login", raw: "[]")
            #expect(array.status == .unprocessableContent)
            let sports = try await api.get("/v1/sports")
            #expect(sports.status == .ok)
            let catalogue = try sports.decode(API.Page<API.Sport>.self).items
            #expect(catalogue.count >= 40)
            #expect(catalogue.first?.slug == "football")
        }
    }

    @Test("last use of a token is recorded without a write per request", arguments: engines)
    func lastUsed(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (token, _) = try await api.register("Gus")
            clock.advance(by: 120)
            _ = try await api.get("/v1/me", token: token)
            let session = try #require(try await api.sessions(token).first)
            #expect(session.lastUsedAt.map(RFC3339.format) == RFC3339.format(clock.now()))
            let userID = try #require(UUID(uuidString: try await api.me(token).id))
            await services.tokens.flush()
            let stored = try await services.sessionStore.sessions(of: userID, at: clock.now())
            #expect(stored.first?.lastUsedAt == clock.now())
        }
    }

    @Test("token uses are written in bulk, over several statements, each to its own token, never moving a time back", arguments: engines)
    func tokenUsesInBulk(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            var people: [(user: UUID, token: UUID)] = []
            for name in ["Ada", "Bo", "Cy"] {
                let (token, _) = try await api.register(name)
                let user = try #require(UUID(uuidString: try await api.me(token).id))
                people.append((user, try #require(try await services.sessionStore.sessions(of: user, at: clock.now()).first).id))
            }
            await services.tokens.flush()
            func lastUse(_ n: Int) async throws -> Date? {
                try await services.sessionStore.sessions(of: people[n].user, at: clock.now()).first?.lastUsedAt
            }
            let untouched = try await lastUse(2)
            let start = clock.now()
            // More uses than one statement takes, mostly of tokens that are not there (as
            // revoked and deleted ones are not), the real ones wherever they fall among them.
            var uses = Dictionary(uniqueKeysWithValues: (0..<(SessionStore.usesPerStatement * 2 + 100)).map { _ in (UUID(), start) })
            uses[people[0].token] = start.addingTimeInterval(60)
            uses[people[1].token] = start.addingTimeInterval(120)
            try await services.sessionStore.recordTokenUse(uses)
            #expect(try await lastUse(0) == start.addingTimeInterval(60))
            #expect(try await lastUse(1) == start.addingTimeInterval(120))
            #expect(try await lastUse(2) == untouched)
            // A use seen late by another instance does not move the time back.
            try await services.sessionStore.recordTokenUse([
                people[0].token: start.addingTimeInterval(30), people[1].token: start.addingTimeInterval(180),
            ])
            #expect(try await lastUse(0) == start.addingTimeInterval(60))
            #expect(try await lastUse(1) == start.addingTimeInterval(180))
        }
    }
}

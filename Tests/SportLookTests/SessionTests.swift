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

@Suite("Sessions end everywhere: sockets, devices, other instances", .timeLimit(.minutes(10)))
struct SessionTests {
    @Test(
        "the web client's session is an HttpOnly, SameSite=Strict cookie: no token in any answer; writes need this site's Origin; the socket opens with it; signing out ends it",
        arguments: engines)
    func cookieSession(engine: DatabaseEngine) async throws {
        try await withApp(engine, setup: .live) { api, _ in
            // The live test client names its host `localhost`: a page of this server is http://localhost.
            let page = "http://localhost"
            let asWebClient: HTTPFields = [SessionCookie.requestHeader: "cookie", .origin: page]
            let registered = try await api.request(
                .post, "/v1/auth/register", json: ["name": "Webby", "email": "webby@example.com", "password": "correct horse battery"],
                headers: asWebClient)
            #expect(registered.status == .created)
            let setCookie = try #require(registered.headers[.setCookie])
            for attribute in ["\(SessionCookie.name)=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            #expect(!setCookie.contains("Secure"), "a page on plain http could keep no Secure cookie")
            let token = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            #expect(token.count == 43)
            #expect(!registered.text.contains(token) && !registered.text.contains("access_token"))
            let session = try registered.decode(API.CookieSession.self)
            #expect(session.user.name == "Webby" && session.deviceKey.count == 43)
            // A page served over https gets a Secure cookie; signing in without asking gets the token as before.
            let overTLS = try await api.request(
                .post, "/v1/auth/login", json: ["email": "webby@example.com", "password": "correct horse battery"],
                headers: [SessionCookie.requestHeader: "cookie", .origin: "https://localhost"])
            #expect(overTLS.headers[.setCookie]?.hasPrefix("__Host-\(SessionCookie.name)=") == true)
            #expect(overTLS.headers[.setCookie]?.contains("Secure") == true)
            #expect(try await api.login("webby@example.com", password: "correct horse battery").accessToken.count == 43)

            let cookie: HTTPFields = [.cookie: "\(SessionCookie.name)=\(token)"]
            #expect(try await api.request(.get, "/v1/me", headers: cookie).status == .ok)
            // A change with the cookie needs this site's page as its Origin.
            // (Both names: a page over https counts only the __Host- one.)
            var foreign: HTTPFields = [.cookie: "\(SessionCookie.name)=\(token); \(SessionCookie.secureName)=\(token)"]
            for origin in [nil, "https://evil.example", "http://localhost:8081", "http://localhost.evil.example", "null"] {
                foreign[.origin] = origin
                let refused = try await api.request(.patch, "/v1/me", json: ["bio": "changed by \(origin ?? "nobody")"], headers: foreign)
                #expect(refused.status == .forbidden, "\(origin ?? "no origin")")
                #expect(try refused.errorCode == "origin_refused")
            }
            var own = cookie
            own[.origin] = page
            #expect(try await api.request(.patch, "/v1/me", json: ["bio": "from my page"], headers: own).status == .ok)
            // An app's bearer token is not a cookie: any origin (or none) may use it.
            #expect(
                try await api.request(
                    .patch, "/v1/me", token: token, json: ["bio": "from an app"], headers: [.origin: "https://evil.example"]
                ).status == .ok)

            // The socket opens with the cookie from this site's page, not from another's or from no page.
            let port = try #require(api.client.port)
            _ = try await blocking {
                try RawSocket(port: port, token: token, origin: "http://localhost:\(port)", host: "localhost:\(port)", cookie: true)
            }
            for origin in [nil, "https://evil.example", "ws://localhost:\(port)"] {
                await #expect(throws: (any Error).self, "\(origin ?? "no origin")") {
                    try await blocking { try RawSocket(port: port, token: token, origin: origin, host: "localhost:\(port)", cookie: true) }
                }
            }

            // Signing out ends the session and clears the cookie.
            let out = try await api.request(.post, "/v1/auth/logout", headers: own)
            #expect(out.status == .noContent)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await api.request(.get, "/v1/me", headers: cookie).status == .unauthorized)
        }
    }

    @Test(
        "over https only the __Host- cookie counts (a planted plain one, or an empty __Host- one, signs nobody in); signing out clears both",
        arguments: engines)
    func plantedCookieRefused(engine: DatabaseEngine) async throws {
        try await withApp(engine, setup: .live) { api, _ in
            let attacker = try await api.register("Mallory")
            let victim = try await api.register("Victim")
            let planted = "\(SessionCookie.name)=\(attacker.token)"
            // A development server on plain http keeps the plain cookie.
            #expect(try await api.request(.get, "/v1/me", headers: [.cookie: planted]).status == .ok)
            // Any sign of https (the page's Origin or Referer, a proxy's X-Forwarded-Proto, a __Host- cookie, even empty): the plain one does not count.
            let https: [HTTPFields] = [
                [.cookie: planted, .origin: "https://localhost"], [.cookie: planted, .referer: "https://localhost/app/"],
                [.cookie: planted, HTTPField.Name("X-Forwarded-Proto")!: "https"], [.cookie: "\(SessionCookie.secureName)=; \(planted)"],
            ]
            for headers in https {
                let refused = try await api.request(.get, "/v1/me", headers: headers)
                #expect(refused.status == .unauthorized, "\(headers)")
            }
            // The victim's own __Host- cookie wins over one planted beside it.
            let both: HTTPFields = [
                .cookie: "\(planted); \(SessionCookie.secureName)=\(victim.token)", .origin: "https://localhost",
                .referer: "https://localhost/app/",
            ]
            let me = try await api.request(.get, "/v1/me", headers: both)
            #expect(me.status == .ok)
            #expect(me.text.contains(victim.id) && !me.text.contains(attacker.id))
            // Signing out over https clears both names.
            let out = try await api.request(.post, "/v1/auth/logout", headers: both)
            #expect(out.status == .noContent)
            let cleared = out.headers[values: .setCookie]
            for name in [SessionCookie.name, SessionCookie.secureName] {
                #expect(cleared.contains { $0.hasPrefix("\(name)=;") && $0.contains("Max-Age=0") }, "\(cleared)")
            }
            #expect(cleared.contains { $0.hasPrefix("\(SessionCookie.secureName)=") && $0.contains("Secure") })
        }
    }

    @Test("a socket of a session that ends is closed with 4001 and can post nothing more", arguments: engines)
    func socketEndsWithSession(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let url = try socketURL(api)
            let watcher = try await TestSocket.connect(url, token: owner.token)
            watcher.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await watcher.waitFor("subscribed") { $0.type == "subscribed" }
            // Logout.
            let socket = try await TestSocket.connect(url, token: people[0].token)
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await socket.waitFor("subscribed") { $0.type == "subscribed" }
            #expect(try await api.post("/v1/auth/logout", token: people[0].token).status == .noContent)
            socket.send(["type": "message", "event_id": event, "body": "after logout", "client_id": "late"])
            try await eventually("the socket to close") { socket.isClosed }
            #expect(socket.closedWith?.code == 4001)
            #expect(socket.closedWith?.reason == "session_ended")
            // A revoked session (DELETE /v1/me/sessions/{id}) and a password change end theirs too.
            let second = try await api.login(try await api.email(owner.token), password: "correct horse battery").accessToken
            let secondSocket = try await TestSocket.connect(url, token: second)
            let sessions = try await api.sessions(owner.token)
            let secondID = try #require(sessions.first { !$0.current }?.id)
            #expect(try await api.delete("/v1/me/sessions/\(secondID)", token: owner.token).status == .noContent)
            try await eventually("the revoked session's socket to close") { secondSocket.isClosed }
            #expect(secondSocket.closedWith?.code == 4001)
            let third = try await api.login(try await api.email(owner.token), password: "correct horse battery").accessToken
            let thirdSocket = try await TestSocket.connect(url, token: third)
            let changed = try await api.post(
                "/v1/me/password", token: owner.token,
                json: ["current_password": "correct horse battery", "new_password": "another horse battery"])
            #expect(changed.status == .noContent)
            try await eventually("the other session's socket to close after a password change") { thirdSocket.isClosed }
            #expect(thirdSocket.closedWith?.code == 4001)
            #expect(!watcher.isClosed)
            // Nothing was posted after the logout.
            #expect(try await api.messages(event, token: owner.token).isEmpty)
            #expect(try !watcher.frames.contains { $0.type == "message" })
            await watcher.close()
        }
    }

    @Test("a device registration belongs to its session: it goes when the session ends", arguments: engines)
    func devicesFollowSessions(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let (token, _) = try await api.register("Phone", email: "phone@example.com")
            let other = try await api.login("phone@example.com", password: "correct horse battery").accessToken
            #expect(
                try await api.post("/v1/me/devices", token: token, json: ["platform": "ios", "token": String(repeating: "a1", count: 32)])
                    .status == .created)
            #expect(
                try await api.post("/v1/me/devices", token: other, json: ["platform": "android", "token": "phone-b:APA91bFakeToken"]).status
                    == .created)
            #expect(try await api.post("/v1/auth/logout", token: token).status == .noContent)
            let left: [String] = try await services.database.read { sql in
                try await sql.raw("SELECT token FROM devices ORDER BY token").all().map { try $0.value("token") }
            }
            #expect(left == ["phone-b:APA91bFakeToken"])
            // An expired session's devices get no pushes either.
            let userID = try #require(UUID(uuidString: try await api.me(other).id))
            #expect(
                try await services.inbox.devices(of: [userID], at: services.clock.now())[userID]?.map(\.token) == [
                    "phone-b:APA91bFakeToken"
                ])
            #expect(
                try await services.inbox.devices(
                    of: [userID], at: services.clock.now().addingTimeInterval(services.configuration.tokenTTL + 1))[userID] == nil)
            #expect(try await api.delete("/v1/me", token: other).status == .noContent)
            let none = try await services.database.read { sql in try await sql.raw("SELECT token FROM devices").all().count }
            #expect(none == 0)
        }
    }

    @Test("a socket closes when its session expires", arguments: [DatabaseEngine.sqlite])
    func socketExpires(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live, configure: { $0.tokenTTL = 3_600 }) { api, _ in
            let (token, _) = try await api.register("Expiring")
            let socket = try await TestSocket.connect(try socketURL(api), token: token)
            socket.send(["type": "typing"])
            try await socket.waitFor("the socket to be served") { $0.type == "error" }
            clock.advance(by: 3_601)
            try await eventually("the expired session's socket to close") { socket.isClosed }
            #expect(socket.closedWith?.code == 4001)
        }
    }

    @Test("a logout on one instance closes the session's socket on another")
    func sessionEndsOnEveryInstance() async throws {
        try await withTwoInstances { a, b, _, _ in
            let clock = ManualClock(Date())
            let (event, owner, people) = try await chatRoom(b, clock: clock, members: 1)
            let socket = try await TestSocket.connect(try socketURL(a), token: people[0].token)
            socket.send(["type": "subscribe", "event_id": event, "after_seq": 0])
            try await socket.waitFor("subscribed") { $0.type == "subscribed" }
            #expect(try await b.post("/v1/auth/logout", token: people[0].token).status == .noContent)
            try await eventually("the socket on the other instance to close") { socket.isClosed }
            #expect(socket.closedWith?.code == 4001)
            #expect(try await a.get("/v1/me", token: people[0].token).status == .unauthorized)
            #expect(try await b.messages(event, token: owner.token).isEmpty)
        }
    }

    @Test("after a bus outage, sockets of sessions that ended meanwhile are closed", arguments: engines)
    func resyncEndsSessions(engine: DatabaseEngine) async throws {
        try await withApp(engine, setup: .live) { api, services in
            let (token, _) = try await api.register("Quiet")
            let socket = try await TestSocket.connect(try socketURL(api), token: token)
            socket.send(["type": "typing"])
            try await socket.waitFor("the socket to be served") { $0.type == "error" }
            // Revoked behind the bus's back (as if its notification was lost).
            try await services.database.write { sql in try await sql.raw("UPDATE access_tokens SET revoked_at = \(bind: Date())").run() }
            services.changes.received(.resync)
            try await eventually("the socket to close") { socket.isClosed }
            #expect(socket.closedWith?.code == 4001)
        }
    }

    @Test("password change, log out everywhere else, at most 100 sessions", arguments: engines)
    func accountControls(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, _ in
            let (token, _) = try await api.register("Pat", email: "pat@example.com", password: "correct horse battery")
            let other = try await api.login("pat@example.com", password: "correct horse battery").accessToken
            let wrong = try await api.post(
                "/v1/me/password", token: token, json: ["current_password": "not it at all", "new_password": "another horse battery"])
            #expect(wrong.status == .forbidden)
            #expect(try wrong.errorCode == "wrong_password")
            let weak = try await api.post(
                "/v1/me/password", token: token, json: ["current_password": "correct horse battery", "new_password": "password"])
            #expect(weak.status == .unprocessableContent)
            #expect(try await api.get("/v1/me", token: other).status == .ok)
            #expect(
                try await api.post(
                    "/v1/me/password", token: token,
                    json: ["current_password": "correct horse battery", "new_password": "another horse battery"]
                ).status == .noContent)
            #expect(try await api.get("/v1/me", token: other).status == .unauthorized)
            #expect(try await api.get("/v1/me", token: token).status == .ok)
            #expect(
                try await api.post("/v1/auth/login", json: ["email": "pat@example.com", "password": "correct horse battery"]).status
                    == .unauthorized)
            let again = try await api.login("pat@example.com", password: "another horse battery").accessToken
            #expect(try await api.delete("/v1/me/sessions", token: token).status == .noContent)
            #expect(try await api.get("/v1/me", token: again).status == .unauthorized)
            #expect(try await api.sessions(token).count == 1)
            // The 101st session ends the oldest.
            var tokens: [String] = []
            for _ in 0..<AccountService.maxSessions {
                clock.advance(by: 1)
                tokens.append(try await api.login("pat@example.com", password: "another horse battery").accessToken)
            }
            #expect(try await api.get("/v1/me", token: token).status == .unauthorized)
            #expect(try await api.get("/v1/me", token: tokens[0]).status == .ok)
            #expect(try await api.sessions(tokens[0]).count == AccountService.maxSessions)
        }
    }
}

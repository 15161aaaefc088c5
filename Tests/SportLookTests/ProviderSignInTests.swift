import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import SportLookAPI
import Testing

@testable import SportLook

/// Runs `test` on a service whose providers are fakes on loopback.
private func withProviders(
    _ engine: DatabaseEngine, clock: ManualClock = ManualClock(Date().wholeMilliseconds), setup: TestingSetup = .router,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ test: @Sendable (API, FakeIdentityProviders, ManualClock) async throws -> Void
) async throws {
    let providers = try FakeIdentityProviders()
    try await providers.start()
    defer { providers.stop() }
    try await withApp(
        engine, clock: clock, setup: setup,
        configure: {
            providers.configure(&$0)
            configure(&$0)
        }
    ) { api, _ in try await test(api, providers, clock) }
}

extension API {
    /// `POST /v1/auth/provider`.
    func signIn(_ provider: IdentityProvider, idToken: String, nonce: String? = nil, name: String? = nil) async throws -> Reply {
        var body: [String: Any] = ["provider": provider.rawValue, "id_token": idToken]
        if let nonce { body["nonce"] = nonce }
        if let name { body["name"] = name }
        return try await post("/v1/auth/provider", json: body)
    }

    func identities(_ token: String) async throws -> [String] {
        struct Linked: Decodable, Sendable {
            var provider: String
            var createdAt: String
            enum CodingKeys: String, CodingKey {
                case provider
                case createdAt = "created_at"
            }
        }
        return try await page(Linked.self, "/v1/me/identities", token: token).items.map(\.provider)
    }
}

@Suite("Sign in with Apple, Google and Facebook", .timeLimit(.minutes(10)))
struct ProviderSignInTests {
    @Test("each provider's ID token signs in: the first makes the account, the next finds it", arguments: engines)
    func signInCreatesThenFinds(engine: DatabaseEngine) async throws {
        try await withProviders(engine) { api, providers, clock in
            // Apple: a verified (relay) email, the name from the app.
            let apple = try await api.signIn(
                .apple,
                idToken: try await providers.idToken(
                    .apple, subject: "001.apple", now: clock.now(),
                    email: "x7@privaterelay.appleid.com", emailVerified: true), name: "Ann")
            let first = try apple.decode(API.AuthResult.self, expecting: .created)
            #expect(first.user.name == "Ann")
            #expect(first.user.email == "x7@privaterelay.appleid.com")
            #expect(first.user.emailVerified == true)
            #expect(try await api.get("/v1/me", token: first.accessToken).status == .ok)
            let again = try await api.signIn(.apple, idToken: try await providers.idToken(.apple, subject: "001.apple", now: clock.now()))
            let second = try again.decode(API.AuthResult.self, expecting: .ok)
            #expect(second.user.id == first.user.id)
            #expect(second.accessToken != first.accessToken)
            #expect(try await api.identities(second.accessToken) == ["apple"])
            // No password opens it.
            let login = try await api.post(
                "/v1/auth/login", json: ["email": "x7@privaterelay.appleid.com", "password": "anything at all 1"])
            #expect(login.status == .unauthorized)
            let change = try await api.post(
                "/v1/me/password", token: first.accessToken, json: ["current_password": "", "new_password": "a new password 12"])
            #expect(change.status == .conflict)
            #expect(try change.errorCode == "no_password")

            // Google: the name from the token; a Gmail address is Google's to vouch for.
            let google = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-42", now: clock.now(), email: "bo@gmail.com",
                    emailVerified: true, name: "Bo Diddley"))
            let bo = try google.decode(API.AuthResult.self, expecting: .created)
            #expect(bo.user.name == "Bo Diddley")
            #expect(bo.user.email == "bo@gmail.com")
            #expect(bo.user.emailVerified == true)
            // Another domain's address, outside Workspace, Google checked once only: not kept.
            let elsewhere = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-43", now: clock.now(), email: "di@smallco.example",
                    emailVerified: true))
            #expect(try elsewhere.decode(API.AuthResult.self, expecting: .created).user.email == nil)

            // Facebook Limited Login: an email, never said to be verified, is not kept.
            let facebook = try await api.signIn(
                .facebook,
                idToken: try await providers.idToken(.facebook, subject: "fb-7", now: clock.now(), email: "cy@example.com", name: "Cy"))
            let cy = try facebook.decode(API.AuthResult.self, expecting: .created)
            #expect(cy.user.email == nil)
            #expect(cy.user.emailVerified == false)
            #expect(cy.user.name == "Cy")
        }
    }

    @Test(
        "expired, foreign, forged, unknown-key, alg none, HMAC-with-the-public-key and replayed tokens are refused with 401",
        arguments: engines)
    func badTokens(engine: DatabaseEngine) async throws {
        try await withProviders(engine) { api, providers, clock in
            let now = clock.now()
            func refused(_ reply: Reply, _ code: String, _ comment: Comment) throws {
                #expect(reply.status == .unauthorized, comment)
                #expect(try reply.errorCode == code, comment)
            }
            try refused(
                try await api.signIn(
                    .google, idToken: try await providers.idToken(.google, subject: "s", now: now, expires: now.addingTimeInterval(-120))),
                "token_expired", "expired")
            try refused(
                try await api.signIn(
                    .google, idToken: try await providers.idToken(.google, subject: "s", now: now, audience: "someone-elses-app")),
                "invalid_token", "another audience")
            try refused(
                try await api.signIn(
                    .google, idToken: try await providers.idToken(.google, subject: "s", now: now, alsoFor: ["someone-elses-app"])),
                "invalid_token", "our audience and another")
            try refused(
                try await api.signIn(
                    .google, idToken: try await providers.idToken(.google, subject: "s", now: now, issuer: "https://evil.example")),
                "invalid_token", "another issuer")
            try refused(
                try await api.signIn(
                    .google, idToken: try await providers.idToken(.google, subject: "s", now: now, issuedAt: now.addingTimeInterval(3_600))),
                "invalid_token", "issued in the future")
            // Apple's key id, but a key Apple does not hold: the signature fails.
            let forger = try FakeIdentityProviders.makeKey(providers.signingKey(.apple).kid)
            try refused(
                try await api.signIn(.apple, idToken: try await providers.idToken(.apple, subject: "s", now: now, key: forger)),
                "invalid_token", "forged signature")
            // A token made for Google is not Apple's.
            try refused(
                try await api.signIn(.apple, idToken: try await providers.idToken(.google, subject: "s", now: now)), "invalid_token",
                "another provider's token")
            try refused(try await api.signIn(.google, idToken: "not.a.jwt"), "invalid_token", "garbage")

            // An unknown kid: the keys are fetched again, once; a second unknown kid within the minute is not worth a fetch.
            let fetched = providers.fetches(.google)
            #expect(fetched == 1)
            let stranger = try FakeIdentityProviders.makeKey("google-unknown")
            try refused(
                try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "s", now: now, key: stranger)),
                "invalid_token", "unknown kid")
            #expect(providers.fetches(.google) == 2)
            try refused(
                try await api.signIn(
                    .google,
                    idToken: try await providers.idToken(.google, subject: "s", now: now, key: try FakeIdentityProviders.makeKey("other"))),
                "invalid_token", "another unknown kid")
            #expect(providers.fetches(.google) == 2)
            // Google rotates: a minute later a token with the new key is accepted after one fetch.
            let rotated = try FakeIdentityProviders.makeKey("google-2")
            providers.addKey(rotated, to: .google)
            clock.advance(by: 61)
            let fresh = try await api.signIn(
                .google, idToken: try await providers.idToken(.google, subject: "rotated", now: clock.now(), key: rotated))
            #expect(fresh.status == .created)
            #expect(providers.fetches(.google) == 3)

            // alg none, and HS256 keyed with the provider's public key, under a real kid.
            let kid = providers.signingKey(.google).kid
            let claims: [String: Any] = [
                "iss": "https://accounts.google.com", "sub": "attacker", "aud": FakeIdentityProviders.clientIDs[.google]!,
                "exp": clock.now().timeIntervalSince1970 + 600, "iat": clock.now().timeIntervalSince1970,
            ]
            let none = try FakeIdentityProviders.handMade(header: ["alg": "none", "kid": kid], claims: claims) { _ in [] }
            try refused(try await api.signIn(.google, idToken: none), "invalid_token", "alg none")
            let publicPEM = Array(providers.signingKey(.google).privateKey.publicKey.pemRepresentation.utf8)
            let hmac = try FakeIdentityProviders.handMade(header: ["alg": "HS256", "kid": kid, "typ": "JWT"], claims: claims) { input in
                Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: publicPEM)))
            }
            try refused(try await api.signIn(.google, idToken: hmac), "invalid_token", "HS256 with the public key")

            // A nonce: the token signs in once; another nonce, or none, does not match.
            let withNonce = try await providers.idToken(.google, subject: "n-1", now: clock.now(), nonce: "n0nce-123")
            try refused(try await api.signIn(.google, idToken: withNonce, nonce: "another"), "nonce_mismatch", "wrong nonce")
            try refused(try await api.signIn(.google, idToken: withNonce), "nonce_mismatch", "nonce not sent")
            #expect(try await api.signIn(.google, idToken: withNonce, nonce: "n0nce-123").status == .created)
            try refused(try await api.signIn(.google, idToken: withNonce, nonce: "n0nce-123"), "token_reused", "replayed")
            // Without a nonce, the token itself is used once.
            let plain = try await providers.idToken(.google, subject: "n-2", now: clock.now())
            #expect(try await api.signIn(.google, idToken: plain).status == .created)
            try refused(try await api.signIn(.google, idToken: plain), "token_reused", "replayed without a nonce")
            // Apple carries the nonce's SHA-256; the client sends the nonce itself (the
            // nonce as it stands in the token is refused: a thief could copy it from there).
            let raw = "apple-raw-nonce"
            let hashed = SHA256.hash(data: Array(raw.utf8)).map { String(format: "%02x", $0) }.joined()
            let appleToken = try await providers.idToken(.apple, subject: "a-n", now: clock.now(), nonce: hashed)
            try refused(
                try await api.signIn(.apple, idToken: appleToken, nonce: hashed), "nonce_mismatch", "Apple's hashed nonce sent as it stands"
            )
            #expect(try await api.signIn(.apple, idToken: appleToken, nonce: raw).status == .created)

            // Bad requests are 422, not 401.
            let missing = try await api.post("/v1/auth/provider", json: ["provider": "google"])
            #expect(missing.status == .unprocessableContent)
            let unknown = try await api.post("/v1/auth/provider", json: ["provider": "myspace", "id_token": withNonce])
            #expect(unknown.status == .unprocessableContent)
            // No account was made by any refused token.
            #expect(
                try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "attacker", now: clock.now())).status
                    == .created)
        }
    }

    @Test("an email that meets an account joins it only when both are verified; otherwise link from a session", arguments: engines)
    func emailMeetsAccount(engine: DatabaseEngine) async throws {
        try await withProviders(engine) { api, providers, clock in
            // A password account: its email is not verified.
            let (password, ann) = try await api.register("Ann", email: "ann@gmail.com")
            let meets = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-ann", now: clock.now(), email: "Ann@Gmail.com", emailVerified: true))
            #expect(meets.status == .conflict)
            #expect(try meets.errorCode == "account_exists")
            // Linked from the session, Google signs in to Ann's account.
            let google = try await providers.idToken(
                .google, subject: "g-ann", now: clock.now(), email: "ann@gmail.com", emailVerified: true)
            let linked = try await api.post("/v1/me/identities", token: password, json: ["provider": "google", "id_token": google])
            #expect(linked.status == .created)
            let again = try await api.post(
                "/v1/me/identities", token: password,
                json: ["provider": "google", "id_token": try await providers.idToken(.google, subject: "g-ann", now: clock.now())])
            #expect(again.status == .ok)
            #expect(
                try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "g-ann", now: clock.now())).decode(
                    API.AuthResult.self, expecting: .ok
                ).user.id == ann)
            #expect(try await api.identities(password) == ["google"])

            // Verified on both sides: Apple made the account, Google joins it.
            let bo = try await api.signIn(
                .apple,
                idToken: try await providers.idToken(.apple, subject: "a-bo", now: clock.now(), email: "bo@gmail.com", emailVerified: true)
            )
            .decode(API.AuthResult.self, expecting: .created)
            let joined = try await api.signIn(
                .google,
                idToken: try await providers.idToken(.google, subject: "g-bo", now: clock.now(), email: "bo@gmail.com", emailVerified: true)
            )
            .decode(API.AuthResult.self, expecting: .ok)
            #expect(joined.user.id == bo.user.id)
            #expect(try await api.identities(bo.accessToken) == ["apple", "google"])
            // Another Google account with the same address (deleted and made again there) does not.
            let twin = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-bo-2", now: clock.now(), email: "bo@gmail.com", emailVerified: true))
            #expect(twin.status == .conflict)
            #expect(try twin.errorCode == "account_exists")
            // An unverified email (Facebook's) meeting the account does not.
            let facebook = try await api.signIn(
                .facebook, idToken: try await providers.idToken(.facebook, subject: "f-bo", now: clock.now(), email: "bo@gmail.com"))
            #expect(facebook.status == .conflict)
            #expect(try facebook.errorCode == "account_exists")
            // Google vouches for another domain's address only for a Workspace account.
            let cy = try await api.signIn(
                .apple,
                idToken: try await providers.idToken(
                    .apple, subject: "a-cy", now: clock.now(), email: "cy@smallco.example", emailVerified: true)
            )
            .decode(API.AuthResult.self, expecting: .created)
            let outside = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-cy", now: clock.now(), email: "cy@smallco.example", emailVerified: true))
            #expect(outside.status == .conflict)
            let workspace = try await api.signIn(
                .google,
                idToken: try await providers.idToken(
                    .google, subject: "g-cy", now: clock.now(), email: "cy@smallco.example",
                    emailVerified: true, hostedDomain: "smallco.example"))
            #expect(try workspace.decode(API.AuthResult.self, expecting: .ok).user.id == cy.user.id)
        }
    }

    @Test("identities: listed, linked once, removed; the last way to sign in stays; deletion frees them", arguments: engines)
    func linkAndUnlink(engine: DatabaseEngine) async throws {
        try await withProviders(engine) { api, providers, clock in
            let only = try await api.signIn(.apple, idToken: try await providers.idToken(.apple, subject: "a-1", now: clock.now())).decode(
                API.AuthResult.self, expecting: .created)
            let last = try await api.delete("/v1/me/identities/apple", token: only.accessToken)
            #expect(last.status == .conflict)
            #expect(try last.errorCode == "last_sign_in_method")
            #expect(try await api.delete("/v1/me/identities/google", token: only.accessToken).status == .notFound)
            // Someone else's Google account cannot be linked here.
            let other = try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "g-other", now: clock.now()))
                .decode(API.AuthResult.self, expecting: .created)
            let taken = try await api.post(
                "/v1/me/identities", token: only.accessToken,
                json: ["provider": "google", "id_token": try await providers.idToken(.google, subject: "g-other", now: clock.now())])
            #expect(taken.status == .conflict)
            #expect(try taken.errorCode == "identity_taken")
            #expect(
                try await api.post(
                    "/v1/me/identities", token: only.accessToken,
                    json: ["provider": "google", "id_token": try await providers.idToken(.google, subject: "g-1", now: clock.now())]
                ).status == .created)
            let second = try await api.post(
                "/v1/me/identities", token: only.accessToken,
                json: ["provider": "google", "id_token": try await providers.idToken(.google, subject: "g-2", now: clock.now())])
            #expect(second.status == .conflict)
            #expect(try second.errorCode == "provider_linked")
            #expect(try await api.delete("/v1/me/identities/apple", token: only.accessToken).status == .noContent)
            #expect(try await api.identities(only.accessToken) == ["google"])
            #expect(
                try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "g-1", now: clock.now())).decode(
                    API.AuthResult.self, expecting: .ok
                ).user.id == only.user.id)
            // Apple's account is free again: it makes a new account.
            #expect(
                try await api.signIn(.apple, idToken: try await providers.idToken(.apple, subject: "a-1", now: clock.now())).status
                    == .created)
            // Changing how an account signs in takes a session of the last 15 minutes.
            clock.advance(by: 16 * 60)
            let stale = try await api.post(
                "/v1/me/identities", token: only.accessToken,
                json: ["provider": "facebook", "id_token": try await providers.idToken(.facebook, subject: "f-1", now: clock.now())])
            #expect(stale.status == .forbidden)
            #expect(try stale.errorCode == "reauthentication_required")
            #expect(try await api.delete("/v1/me/identities/google", token: only.accessToken).status == .forbidden)
            // A deleted account's providers sign up afresh.
            #expect(try await api.delete("/v1/me", token: other.accessToken).status == .noContent)
            let again = try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "g-other", now: clock.now()))
                .decode(API.AuthResult.self, expecting: .created)
            #expect(again.user.id != other.user.id)
        }
    }

    @Test("classic Facebook Login: Graph API's debug_token and /me name the person; another app's token is refused", arguments: engines)
    func classicFacebook(engine: DatabaseEngine) async throws {
        try await withProviders(engine) { api, providers, _ in
            providers.addFacebookToken("EAAB+good/token", app: FakeIdentityProviders.clientIDs[.facebook]!, user: "10001", name: "Dee")
            providers.addFacebookToken("EAAB-other-app", app: "someone-elses-app", user: "10002", name: "Eve")
            let signedIn = try await api.post("/v1/auth/provider", json: ["provider": "facebook", "access_token": "EAAB+good/token"])
            let dee = try signedIn.decode(API.AuthResult.self, expecting: .created)
            #expect(dee.user.name == "Dee")
            #expect(dee.user.email == nil)
            #expect(
                try await api.post("/v1/auth/provider", json: ["provider": "facebook", "access_token": "EAAB+good/token"])
                    .decode(API.AuthResult.self, expecting: .ok).user.id == dee.user.id)
            for (token, comment) in [("EAAB-other-app", "another app's token"), ("EAAB-unknown", "a token Facebook does not know")] {
                let refused = try await api.post("/v1/auth/provider", json: ["provider": "facebook", "access_token": token])
                #expect(refused.status == .unauthorized, Comment(rawValue: comment))
                #expect(try refused.errorCode == "invalid_token", Comment(rawValue: comment))
            }
            // Access tokens are Facebook's only.
            #expect(
                try await api.post("/v1/auth/provider", json: ["provider": "google", "access_token": "EAAB+good/token"]).status
                    == .unprocessableContent)
        }
    }

    @Test("refused provider tokens count against the address like failed logins; good ones do not", arguments: engines)
    func refusalsThrottled(engine: DatabaseEngine) async throws {
        try await withProviders(engine, setup: .live, configure: { $0.loginMaxFailures = 3 }) { api, providers, clock in
            for i in 0..<4 {
                #expect(
                    try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "ok-\(i)", now: clock.now()))
                        .status == .created)
            }
            for _ in 0..<3 {
                let refused = try await api.signIn(.google, idToken: "not.a.jwt")
                #expect(refused.status == .unauthorized)
            }
            let over = try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "late", now: clock.now()))
            #expect(over.status == .tooManyRequests)
            #expect(over.headers[.retryAfter] != nil)
            clock.advance(by: 16 * 60)
            #expect(
                try await api.signIn(.google, idToken: try await providers.idToken(.google, subject: "late", now: clock.now())).status
                    == .created)
        }
    }

    @Test("a provider that is not configured is refused, and the service never calls it")
    func notConfigured() async throws {
        try await withApp(.sqlite) { api, _ in
            let reply = try await api.post("/v1/auth/provider", json: ["provider": "google", "id_token": "a.b.c"])
            #expect(reply.status == .unprocessableContent)
            #expect(try reply.errorCode == "provider_not_enabled")
        }
    }
}

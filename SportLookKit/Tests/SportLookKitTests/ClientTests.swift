import Foundation
import SportLookKit
import SportLookTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The REST half against a real `sportlook serve`: what an app does first.
@Suite("SportLookClient against a real server", .serialized)
struct ClientTests {
    @Test("sign up, make a game, join it, invite, a cover photo, and every page of a list")
    func accountsEventsInvitationsPhotos() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            #expect(await ada.credentials.token != nil)
            #expect(await ada.credentials.deviceKey != nil)
            let me = try await ada.me.profile()
            #expect(me.name == "Ada")

            // A game with one place: Ben takes it, Cy is told it is full (a typed error).
            let game = try await newGame(by: ada, capacity: 1)
            #expect(game.organiser.name == "Ada")
            let joined = try await ben.events.join(game.id)
            #expect(joined.attendance == .going)
            let seen = try await cy.events.get(game.id)
            #expect(seen.goingCount == 1)
            #expect(seen.spotsLeft == 0)

            // Ada invites Cy to a second game; Cy finds the invitation and accepts it.
            let second = try await newGame(by: ada, title: "Tuesday padel")
            let cyID = try await cy.me.profile().id
            let sent = try await ada.invitations.invite([cyID], to: second.id)
            #expect(sent.count == 1)
            let invitations = try await cy.invitations.received().all()
            #expect(invitations.map(\.event) == [second.id])
            try await cy.invitations.accept(invitations[0].id)
            let cysGames = try await cy.events.mine().all()
            #expect(cysGames.map(\.id) == [second.id])

            // A cover photo: uploaded, set on the game, served.
            let photo = try await ada.media.upload(pngImage(), for: .cover)
            #expect(photo.width == 64 && photo.height == 48)
            #expect(try await ada.media.get(photo.id) == photo)
            let covered = try await ada.events.update(game.id, cover: photo.id)
            let imageURL = try #require(covered.imageURL)
            let (bytes, response) = try await URLSession.shared.data(from: URL(string: imageURL, relativeTo: server.url)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(bytes.starts(with: [0xFF, 0xD8]), "a JPEG")
            let largest = try #require(photo.variants.last)
            #expect(try await ada.media.download(largest.url).starts(with: [0xFF, 0xD8]))
            #expect(try await ada.media.isAvailable(largest.url))
            #expect(try await ada.media.isAvailable("/media/no-such-key.jpg") == false)

            // Paging: five games, read two at a time (three pages), each once, in order.
            for i in 1...3 { _ = try await newGame(by: ada, title: "Game \(i)") }
            var pages = 0
            var organising: [Event] = []
            for try await page in ada.events.mine(organising: true, pageSize: 2) {
                pages += 1
                organising += page
            }
            #expect(pages == 3)
            #expect(organising.count == 5)
            #expect(Set(organising.map(\.id)).count == 5)
            #expect(organising.map(\.startsAt) == organising.map(\.startsAt).sorted())
        }
    }

    @Test("the server's refusals arrive as SportLookError with their code, fields and Retry-After")
    func typedErrors() async throws {
        try await withServer(["REGISTER_MAX_PER_ADDRESS": "2"]) { server in
            let ada = try await signedUp(server, "Ada")
            let game = try await newGame(by: ada, capacity: 1)
            let ben = try await signedUp(server, "Ben")
            try await ben.events.join(game.id)

            // A field the server refuses, named.
            let invalid = await #expect(throws: SportLookError.self) {
                _ = try await ada.events.create(
                    .init(
                        title: " ", sport: "football", startsAt: Date().addingTimeInterval(3600), place: Place(latitude: 55, longitude: 12))
                )
            }
            #expect(invalid?.status == 422)
            #expect(invalid?.fields["title"] != nil)

            // Not found.
            let missing = await #expect(throws: SportLookError.self) { _ = try await ada.events.get(Event.ID(UUID())) }
            #expect(missing?.status == 404)
            #expect(missing?.code == "not_found")

            // Too many registrations from one address: 429 with Retry-After.
            let limited = await #expect(throws: SportLookError.self) {
                _ = try await signedUp(server, "Cy")
            }
            #expect(limited?.status == 429)
            #expect(limited?.isTransient == true)
            #expect((limited?.retryAfter ?? 0) > 0)

            // Signed out: the token is forgotten and the server refuses the old one.
            let token = try #require(await ada.credentials.token)
            try await ada.auth.logOut()
            #expect(await ada.credentials.token == nil)
            let stale = SportLookClient(server: server.url, credentials: Credentials(token: token))
            let refused = await #expect(throws: SportLookError.self) { _ = try await stale.me.profile() }
            #expect(refused?.status == 401)
        }
    }

    @Test("log in with the device key, verify the email and reset the password with mailed codes")
    func passwordsAndMailedCodes() async throws {
        try await withServer(["MAIL_TRANSPORT": "log", "MAIL_FROM": "SportLook <no-reply@example.com>", "LOG_LEVEL": "notice"]) { server in
            let email = "dana-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let saved = Credentials()
            let dana = SportLookClient(server: server.url, credentials: saved)
            let signUp = try await dana.auth.register(name: "Dana", email: email, password: "first password 1")
            #expect(signUp.created)
            #expect(signUp.user.emailVerified == false)

            // What the app stores comes through the observer, and starts a client signed in.
            let keep = Keep()
            await saved.onChange { keep.value = $0 }
            try await dana.auth.requestEmailVerification()
            let code = try await server.mailedCode(to: email, after: 0)
            try await dana.auth.verifyEmail(code: code)
            #expect(try await dana.me.profile().emailVerified == true)

            let reset = try await dana.auth.requestPasswordReset(email: email)
            #expect(reset.mark.count == 4)
            let resetCode = try await server.mailedCode(to: email, after: 1)
            let oldToken = try #require(await dana.credentials.token)
            try await dana.auth.resetPassword(reset, code: resetCode, newPassword: "second password 2")
            let afterReset = try #require(keep.value, "the observer was told")
            #expect(afterReset.token == nil, "the token is forgotten")
            #expect(afterReset.deviceKey != nil, "the device key stays")
            let ended = SportLookClient(server: server.url, credentials: Credentials(token: oldToken))
            let refused = await #expect(throws: SportLookError.self) { _ = try await ended.me.profile() }
            #expect(refused?.status == 401, "a reset ends every session on the server")
            let again = try await dana.auth.logIn(email: email, password: "second password 2")
            #expect(!again.created)
            #expect(again.user.emailVerified == true)
            let restarted = SportLookClient(server: server.url, credentials: Credentials(try #require(keep.value)))
            #expect(try await restarted.me.profile().name == "Dana")

            let wrong = await #expect(throws: SportLookError.self) {
                _ = try await dana.auth.logIn(email: email, password: "first password 1")
            }
            #expect(wrong?.status == 401)
        }
    }

    @Test("provider sign-in reaches the server and its refusal is typed")
    func providerSignIn() async throws {
        // The provider's keys, were they ever fetched, only from loopback (nothing listens there).
        try await withServer([
            "AUTH_GOOGLE_CLIENT_IDS": "sportlookkit-test.apps.googleusercontent.com", "AUTH_GOOGLE_JWKS_URL": "http://127.0.0.1:9/jwks",
        ]) { server in
            let client = SportLookClient(server: server.url)
            let refused = await #expect(throws: SportLookError.self) {
                _ = try await client.auth.signIn(with: .google, idToken: "not.a.token")
            }
            #expect(refused?.status == 401)
            #expect(refused?.code == "invalid_token")
            let off = await #expect(throws: SportLookError.self) {
                _ = try await client.auth.signIn(with: .apple, idToken: "not.a.token", nonce: "n")
            }
            #expect(off?.code == "provider_not_enabled")
            #expect(await client.credentials.token == nil)
        }
    }
}

/// A value set from a @Sendable closure and read after.
final class Keep: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Credentials.Saved?
    var value: Credentials.Saved? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import Testing

@testable import SportLook

/// A password reset finished in the shape apps sent before `reset_id` was asked for:
/// it keeps working until its sunset, says so in its answer, and cannot be used to wear
/// down a reset that names its request.
extension MailCodesTests {
    static let deprecation = HTTPField.Name("Deprecation")!
    static let sunset = HTTPField.Name("Sunset")!

    @Test(
        "a reset finished without reset_id works until the sunset with Deprecation and Sunset headers, takes only the newest code, and its wrong guesses never use up a request's tries",
        arguments: engines)
    func resetWithoutRequestID(engine: DatabaseEngine) async throws {
        let smtp = try await SMTPServer()
        let loopback = [try #require(AddressRange(cidr: "127.0.0.0/8")), try #require(AddressRange(cidr: "::1"))]
        let old = Deprecation.resetWithoutRequest
        let clock = ManualClock(old.since.addingTimeInterval(3_600))
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                smtp.configure(&$0)
                $0.trustedProxies = loopback
            }
        ) { api, _ in
            func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }
            let home = from("192.0.2.7")
            let email = "old.app.\(UUID().uuidString.prefix(6))@example.com"
            try await api.register("Owner", email: email, password: "correct horse battery")

            // An old app asks (and ignores the answer's reset_id), then finishes with the code alone.
            _ = try await api.startReset(email, headers: home)
            let code = try #require(try await smtp.messages(to: email)[0].code)
            let finished = try await api.request(
                .post, "/v1/auth/password/reset/finish", json: ["email": email, "code": code, "password": "a brand new passphrase"],
                headers: home)
            #expect(finished.status == .noContent)
            #expect(finished.headers[Self.deprecation] == "@1795996800")
            #expect(finished.headers[Self.sunset] == "Tue, 01 Jun 2027 00:00:00 GMT")
            #expect(finished.headers[HTTPField.Name("Link")!]?.contains("rel=\"deprecation\"") == true)
            #expect(
                try await api.request(.post, "/v1/auth/login", json: ["email": email, "password": "a brand new passphrase"]).status == .ok)

            // Two requests: the old shape takes the newest code only; the older one still works with its reset_id.
            _ = try await api.startReset(email, headers: home)
            let firstCode = try #require(try await smtp.messages(to: email, count: 2)[1].code)
            clock.advance(by: 1)
            let newest = try await api.startReset(email, headers: home)
            let newestCode = try #require(try await smtp.messages(to: email, count: 3)[2].code)
            let older = try await api.request(
                .post, "/v1/auth/password/reset/finish", json: ["email": email, "code": firstCode, "password": "not this one either"],
                headers: home)
            #expect(older.status == .unprocessableContent)
            #expect(try older.errorCode == "invalid_code")
            #expect(older.headers[Self.deprecation] == "@1795996800", "a refusal in the old shape says it is deprecated too")
            #expect(older.headers[Self.sunset] == "Tue, 01 Jun 2027 00:00:00 GMT")

            // A stranger guessing in the old shape (at the newest code) is stopped by the email's
            // and their address's limits; the newest request's own 5 tries are untouched.
            var stopped = false
            for guess in 0..<12 {
                let wrong = String(format: "%06d", ((Int(newestCode) ?? 0) + 1 + guess) % 1_000_000)
                let answer = try await api.request(
                    .post, "/v1/auth/password/reset/finish", json: ["email": email, "code": wrong, "password": "the stranger's password"],
                    headers: from("198.51.100.\(guess % 2)"))
                #expect([.unprocessableContent, .tooManyRequests].contains(answer.status), "\(answer.status)")
                stopped = stopped || answer.status == .tooManyRequests
            }
            #expect(stopped, "wrong codes in the old shape are limited")
            let named = try await api.request(
                .post, "/v1/auth/password/reset/finish",
                json: ["email": email, "code": newestCode, "password": "the owner's passphrase", "reset_id": newest], headers: home)
            #expect(named.status == .noContent)
            #expect(named.headers[Self.deprecation] == nil && named.headers[Self.sunset] == nil, "the current shape is not deprecated")

            // A code voided by 5 wrong tries of its request stays void in the old shape (a
            // window later: the stranger used up the old shape's share of this one).
            clock.advance(by: 16 * 60)
            let voided = try await api.startReset(email, headers: home)
            let voidedCode = try #require(try await smtp.messages(to: email, count: 4)[3].code)
            for guess in 1...5 {
                let wrong = String(format: "%06d", ((Int(voidedCode) ?? 0) + guess) % 1_000_000)
                _ = try await api.request(
                    .post, "/v1/auth/password/reset/finish",
                    json: ["email": email, "code": wrong, "password": "the owner's passphrase", "reset_id": voided], headers: home)
            }
            let afterVoid = try await api.request(
                .post, "/v1/auth/password/reset/finish", json: ["email": email, "code": voidedCode, "password": "the stranger's password"],
                headers: home)
            #expect(afterVoid.status == .unprocessableContent, "void after 5 wrong tries, whichever shape")

            // A stranger who spends the old shape's whole day (three windows of wrong codes)
            // leaves the owner's own share whole: the owner, on a phone the account does not
            // know, resets with a reset_id.
            var refusedForTheDay = false
            for _ in 0..<3 {
                clock.advance(by: 16 * 60)
                for guess in 0..<11 {
                    let answer = try await api.request(
                        .post, "/v1/auth/password/reset/finish",
                        json: ["email": email, "code": String(format: "%06d", guess), "password": "the stranger's password"],
                        headers: from("198.51.100.\(20 + guess)"))
                    refusedForTheDay = refusedForTheDay || (try? answer.errorCode) == "too_many_attempts"
                }
            }
            #expect(refusedForTheDay)
            let phone = from("203.0.113.50")
            let fromPhone = try await api.startReset(email, headers: phone)
            let phoneCode = try #require(try await smtp.messages(to: email, count: 5)[4].code)
            #expect(
                try await api.request(
                    .post, "/v1/auth/password/reset/finish",
                    json: ["email": email, "code": phoneCode, "password": "the owner's new passphrase", "reset_id": fromPhone],
                    headers: phone
                ).status == .noContent)

            // Nor do the old shape's wrong codes touch an email's verification.
            let vera = "vera.\(UUID().uuidString.prefix(6))@example.com"
            let (veraToken, _) = try await api.register("Vera", email: vera)
            for guess in 0..<11 {
                _ = try await api.request(
                    .post, "/v1/auth/password/reset/finish",
                    json: ["email": vera, "code": String(format: "%06d", guess), "password": "the stranger's password"],
                    headers: from("198.51.100.\(40 + guess)"))
            }
            #expect(try await api.post("/v1/auth/email/verify/start", token: veraToken).status == .accepted)
            let veraCode = try #require(try await smtp.messages(to: vera)[0].code)
            #expect(try await api.post("/v1/auth/email/verify/finish", token: veraToken, json: ["code": veraCode]).status == .noContent)

            // After the sunset the old shape is refused, naming the field it lacks.
            clock.advance(by: old.sunset.timeIntervalSince(clock.now()) + 1)
            _ = try await api.startReset(email, headers: home)
            let lateCode = try #require(try await smtp.messages(to: email, count: 6)[5].code)
            let late = try await api.request(
                .post, "/v1/auth/password/reset/finish", json: ["email": email, "code": lateCode, "password": "too late a passphrase"],
                headers: home)
            #expect(late.status == .unprocessableContent)
            #expect(try late.errorFields["reset_id"] != nil)
            #expect(late.headers[Self.sunset] == nil)
        }
        await smtp.stop()
    }
}

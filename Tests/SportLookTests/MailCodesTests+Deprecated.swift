import Foundation
import HTTPTypes
import HummingbirdTesting
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

            // After the sunset the old shape is refused, naming the field it lacks.
            clock.advance(by: old.sunset.timeIntervalSince(clock.now()) + 1)
            _ = try await api.startReset(email, headers: home)
            let lateCode = try #require(try await smtp.messages(to: email, count: 4)[3].code)
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

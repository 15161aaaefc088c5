import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

/// Codes by mail: delivered through a real SMTP server, a batch's share of mails, and each transport.
extension MailCodesTests {
    @Test(
        "mail the server defers is sent later, mail it refuses is dead, and mail queued while it is down is sent when it is back",
        arguments: engines)
    func delivery(engine: DatabaseEngine) async throws {
        let smtp = try await SMTPServer()
        try await withApp(
            engine,
            configure: {
                smtp.configure(&$0)
                $0.jobRetryBase = 0.05
                $0.jobPollInterval = 0.05
                $0.jobMaxAttempts = 1_000
            }
        ) { api, services in
            // 451 twice, then accepted: the third attempt delivers.
            let deferred = "bo+defer.\(UUID().uuidString.prefix(6))@example.com"
            let (bo, _) = try await api.register("Bo", email: deferred)
            #expect(try await api.post("/v1/auth/email/verify/start", token: bo).status == .accepted)
            let code = try #require(try await smtp.messages(to: deferred)[0].code)
            try await eventually("the deferred mail's job done") {
                try await Self.mailJobs(to: deferred, in: services).first?.state == "done"
            }
            #expect(try await Self.mailJobs(to: deferred, in: services).map(\.attempts) == [3])
            #expect(try await api.post("/v1/auth/email/verify/finish", token: bo, json: ["code": code]).status == .noContent)

            // 550: final at once.
            let rejected = "cy+reject.\(UUID().uuidString.prefix(6))@example.com"
            let (cy, _) = try await api.register("Cy", email: rejected)
            #expect(try await api.post("/v1/auth/email/verify/start", token: cy).status == .accepted)
            try await eventually("the refused mail's job dead") {
                try await Self.mailJobs(to: rejected, in: services).first?.state == "dead"
            }
            let dead = try #require(try await Self.mailJobs(to: rejected, in: services).first)
            #expect(dead.attempts == 1)
            #expect(dead.lastError?.contains("550") == true, "\(dead.lastError ?? "")")

            // The server down: the job waits and tries again; back up, the mail arrives.
            await smtp.stop()
            let later = "dee.\(UUID().uuidString.prefix(6))@example.com"
            try await api.register("Dee", email: later)
            let laterID = try await api.startReset(later)
            try await eventually("attempts while the server is down") {
                guard let job = try await Self.mailJobs(to: later, in: services).first else { return false }
                return job.attempts >= 2 && job.lastError?.contains("unreachable") == true
            }
            #expect(try await Self.mailJobs(to: later, in: services).first?.state != "dead")
            try await smtp.start()
            let resetCode = try #require(try await smtp.messages(to: later)[0].code)
            #expect(
                try await api.post(
                    "/v1/auth/password/reset/finish",
                    json: ["email": later, "code": resetCode, "password": "a brand new passphrase", "reset_id": laterID]
                ).status == .noContent)
        }
        await smtp.stop()
    }

    @Test(
        "a worker's batch sends at most 16 mails: the rest go back to the queue, no attempt spent, and the next batch sends them; the batch's invitations are delivered",
        arguments: engines)
    func mailShareOfABatch(engine: DatabaseEngine) async throws {
        let smtp = try await SMTPServer()
        try await withApp(
            engine,
            configure: {
                smtp.configure(&$0)
                // No worker runs by itself: the test runs one batch at a time.
                $0.jobWorkers = 0
            }
        ) { api, services in
            var emails: [String] = []
            for i in 0..<20 {
                let email = "p\(i).\(UUID().uuidString.prefix(6).lowercased())@example.com"
                let (token, _) = try await api.register("P\(i)", email: email)
                #expect(try await api.post("/v1/auth/email/verify/start", token: token).status == .accepted)
                emails.append(email)
            }
            let (host, _) = try await api.register("Host")
            let event = try await api.createEvent(host, now: services.clock.now())
            var guests: [String] = []
            for i in 0..<3 { guests.append(try await api.register("Guest\(i)").id) }
            _ = try await api.invite(guests, to: event.id, token: host)
            let queued = try await Self.jobStates(in: services)
            #expect(queued == ["mail queued 0": 20, "invitation queued 0": 3])

            let worker = JobWorker(
                name: "test-worker", jobs: services.jobStore, inbox: services.inbox, safety: SafetyStore(database: services.database),
                access: services.eventAccess, scheduled: services.scheduledWork, channels: services.channels, mailer: services.mailer,
                codes: services.codes, write: services.write, clock: services.clock, logger: services.logger,
                settings: .init(pollInterval: 1, lease: 60, maxAttempts: 5, retryBase: 1))
            #expect(try await worker.runOnce())
            #expect(try smtp.messages().count == JobWorker.mailsPerBatch)
            let afterOne = try await Self.jobStates(in: services)
            #expect(afterOne == ["mail done 1": 16, "mail queued 0": 4, "invitation done 1": 3])

            #expect(try await worker.runOnce())
            let sent = try smtp.messages()
            #expect(sent.map(\.recipient).sorted() == emails.sorted(), "each address mailed once")
            let afterTwo = try await Self.jobStates(in: services)
            #expect(afterTwo == ["mail done 1": 20, "invitation done 1": 3])
            #expect(try await !worker.runOnce())
        }
        await smtp.stop()
    }

    /// Jobs counted by kind, state and attempts ("mail done 1").
    /// The jobs due now by kind, state and attempts (the event's reminders, due days later, are not).
    static func jobStates(in services: AppServices) async throws -> [String: Int] {
        try await services.database.read { sql in
            try await sql.raw(
                "SELECT kind, state, attempts, COUNT(*) AS n FROM jobs WHERE kind NOT IN ('reminder_due', 'reminder') GROUP BY kind, state, attempts"
            ).all().reduce(into: [:]) { counts, row in
                counts[
                    "\(try row.value("kind", as: String.self)) \(try row.value("state", as: String.self)) \(try row.value("attempts", as: Int.self))"
                ] = try row.value("n", as: Int.self)
            }
        }
    }

    @Test(
        "without mail, asking for a code is refused; MAIL_TRANSPORT=log delivers to the log; a server without STARTTLS gets nothing; codes asked for one email are limited, account or not",
        arguments: engines)
    func transports(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let off = try await api.post("/v1/auth/password/reset/start", json: ["email": "ann@example.com"])
            #expect(off.status == .unprocessableContent)
            #expect(try off.errorCode == "mail_not_enabled")
        }
        try await withApp(engine, configure: { $0.mail = .log }) { api, services in
            let email = "eve.\(UUID().uuidString.prefix(6))@example.com"
            let (eve, _) = try await api.register("Eve", email: email)
            #expect(try await api.post("/v1/auth/email/verify/start", token: eve).status == .accepted)
            try await eventually("the logged mail's job done") { try await Self.mailJobs(to: email, in: services).first?.state == "done" }
            for _ in 0..<5 {
                #expect(try await api.post("/v1/auth/password/reset/start", json: ["email": "nobody@example.com"]).status == .accepted)
            }
            let limited = try await api.post("/v1/auth/password/reset/start", json: ["email": "Nobody@example.com"])
            #expect(limited.status == .tooManyRequests)
            #expect(try limited.errorCode == "too_many_codes")
            #expect(limited.headers[.retryAfter] != nil)
        }
        // A relay offering no STARTTLS: mail goes only over TLS, so the job is dead and nothing was sent.
        let plain = try await SMTPServer(plain: true)
        try await withApp(engine, configure: { plain.configure(&$0) }) { api, services in
            let email = "fay.\(UUID().uuidString.prefix(6))@example.com"
            try await api.register("Fay", email: email)
            #expect(try await api.post("/v1/auth/password/reset/start", json: ["email": email]).status == .accepted)
            try await eventually("the job dead") { try await Self.mailJobs(to: email, in: services).first?.state == "dead" }
            #expect(try await Self.mailJobs(to: email, in: services).first?.lastError?.contains("STARTTLS") == true)
            #expect(try plain.messages().isEmpty)
        }
        await plain.stop()
    }
}

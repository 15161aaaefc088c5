import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

@Suite("Each person's data on request", .timeLimit(.minutes(10)))
struct ExportTests {
    /// The files of a ZIP archive, read by Python's own zipfile (which checks every CRC).
    static func unzip(_ bytes: Data) async throws -> [String: Data] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try bytes.write(to: folder.appendingPathComponent("archive.zip"))
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None, "a damaged member"
            z.extractall(sys.argv[2])
            print("\\n".join(z.namelist()))
            """
        let (archive, names, err) = (
            folder.appendingPathComponent("archive.zip").path, folder.appendingPathComponent("names").path,
            folder.appendingPathComponent("errors").path
        )
        let status = try await blocking {
            exitStatus(
                of: try spawn(
                    ["/usr/bin/env", "python3", "-c", script, archive, folder.appendingPathComponent("out").path], output: names,
                    errors: err))
        }
        #expect(status == 0, "python3 could not read the archive: \((try? String(contentsOfFile: err, encoding: .utf8)) ?? "")")
        var files: [String: Data] = [:]
        let out = folder.appendingPathComponent("out")
        for case let path as String in FileManager.default.enumerator(atPath: out.path) ?? FileManager.DirectoryEnumerator() {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: out.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue {
                files[path] = try Data(contentsOf: out.appendingPathComponent(path))
            }
        }
        return files
    }

    @Test(
        "an export holds exactly the person's data (not another's messages in the same room) with their photos; once a day; its link stops when it expires",
        arguments: engines)
    func export(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let ann = try await api.register("Ann", email: "ann@example.com")
            let ben = try await api.register("Ben", email: "ben@example.com")
            let photo = try await api.upload(try Photos.jpeg(width: 640, height: 480), use: "profile", token: ann.token).decode(
                API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/me", token: ann.token, json: ["photo_id": photo.id, "bio": "Left foot"]).status == .ok)
            let game = try await api.createEvent(ann.token, title: "Tuesday football", now: clock.now()).id
            try await api.join(game, token: ben.token)
            try await api.sendMessage("Ann here: bring bibs", clientID: "a-1", to: game, token: ann.token)
            try await api.sendMessage("Ben here: my secret plans", clientID: "b-1", to: game, token: ben.token)

            // Ann owes at Ben's priced game: her rows of its ledger are hers.
            let priced = try await MoneyTests.pricedGame(api, ben.token, now: clock.now(), amount: 1_500)
            try await api.join(priced, token: ann.token)
            let asked = try await api.post("/v1/me/export", token: ann.token)
            #expect(asked.status == .accepted)
            let again = try await api.post("/v1/me/export", token: ann.token)
            #expect(again.status == .tooManyRequests && again.headers[.retryAfter] != nil)
            #expect(try again.decode(API.ErrorBody.self).error.code == "export_limit")

            try await services.runDueJobs()
            let listed = try await api.get("/v1/me/exports", token: ann.token).decode(JSONValue.self)
            let first = try #require(listed["items"]?.array?.first)
            #expect(first["status"]?.string == "ready")
            let path = try #require(first["download_path"]?.string)
            let told = try await api.notifications(ann.token).first { $0.kind == .dataExportReady }
            #expect(told?.data.path == path)
            // Nobody else's list shows it.
            #expect(try await api.get("/v1/me/exports", token: ben.token).decode(JSONValue.self)["items"]?.array?.isEmpty == true)

            // The link opens it without a session.
            let download = try await api.get(path)
            #expect(download.status == .ok && download.headers[.contentType] == "application/zip")
            #expect(download.headers[.cacheControl] == "no-store")
            let files = try await Self.unzip(download.body)
            #expect(files["README.txt"] != nil)
            let account = try JSONDecoder().decode([[String: JSONValue]].self, from: try #require(files["account.json"]))
            #expect(account.first?["email"]?.string == "ann@example.com" && account.first?["bio"]?.string == "Left foot")
            let messages = try JSONDecoder().decode([[String: JSONValue]].self, from: try #require(files["messages.json"]))
            #expect(messages.compactMap { $0["body"]?.string } == ["Ann here: bring bibs"])
            let organised = try JSONDecoder().decode([[String: JSONValue]].self, from: try #require(files["events_organised.json"]))
            #expect(organised.compactMap { $0["title"]?.string } == ["Tuesday football"])
            let money = try JSONDecoder().decode([[String: JSONValue]].self, from: try #require(files["money.json"]))
            #expect(money.count == 1 && money.first?["amount"]?.int == 1_500 && money.first?["currency"]?.string == "DKK")
            #expect(money.first?["reason"]?.string == "joined")
            #expect(files["photos/\(photo.id.lowercased()).jpg"]?.prefix(2) == Data([0xFF, 0xD8]))
            // Nothing of Ben's is in it: not his message, not his email.
            for (name, bytes) in files where name.hasSuffix(".json") {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(!text.contains("my secret plans") && !text.contains("ben@example.com"), "\(name)")
            }

            // A link changed in any way opens nothing.
            let forged = path.replacingOccurrences(of: "signature=", with: "signature=0")
            #expect(try await api.get(forged).status == .notFound)
            let stretched = path.replacingOccurrences(of: "expires=", with: "expires=9")
            #expect(try await api.get(stretched).status == .notFound)

            // After a week the link stops, and the archive is dropped.
            clock.advance(by: ExportService.lifetime + 1)
            #expect(try await api.get(path).status == .notFound)
            try await services.runDueJobs()
            #expect(
                try await api.get("/v1/me/exports", token: ann.token).decode(JSONValue.self)["items"]?.array?.first?["status"]?.string
                    == "expired")
            // A day after the first, she may ask again.
            #expect(try await api.post("/v1/me/export", token: ann.token).status == .accepted)
        }
    }

    @Test("an admin runs a person's export on their written request, in the audit log; a moderator may not", arguments: engines)
    func staffExport(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (ada, mo) = try await ModerationTests.staff(api, services)
            let ben = try await api.register("Ben")
            let byMo = try await api.post("/v1/staff/accounts/\(ben.id)/export", token: mo.token, json: ["reason": "he wrote to us"])
            #expect(try byMo.status == .forbidden && ModerationTests.code(byMo) == "admins_only")
            let byAda = try await api.post(
                "/v1/staff/accounts/\(ben.id)/export", token: ada.token, json: ["reason": "his letter of 28 Nov"])
            #expect(byAda.status == .accepted)
            // It does not count against his own once a day.
            #expect(try await api.post("/v1/me/export", token: ben.token).status == .accepted)
            try await services.runDueJobs()
            let log = try await api.page(API.AuditRow.self, "/v1/staff/audit?action=data_exported", token: ada.token).items
            #expect(log.map(\.targetId) == [ben.id] && log.first?.reason == "his letter of 28 Nov")
            let ready = try await api.get("/v1/me/exports", token: ben.token).decode(JSONValue.self)["items"]?.array ?? []
            #expect(ready.count == 2 && ready.allSatisfy { $0["status"]?.string == "ready" })
            // Once he deletes his account, no link opens a copy of his data.
            let link = try #require(ready.first?["download_path"]?.string)
            #expect(try await api.get(link).status == .ok)
            #expect(try await api.delete("/v1/me", token: ben.token).status == .noContent)
            #expect(try await api.get(link).status == .notFound)
        }
    }

    @Test(
        "with PUBLIC_URL and a mail transport, the ready archive's link is mailed to the person's verified email and opens it; an unverified email gets none, nor a mail composed after the link expired",
        arguments: engines)
    func mailedLink(engine: DatabaseEngine) async throws {
        let smtp = try await SMTPServer()
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock, queueClock: clock,
            configure: {
                smtp.configure(&$0)
                $0.publicURL = "https://sportlook.test"
                $0.jobWorkers = 0
            }
        ) { api, services in
            let ann = try await api.register("Ann", email: "ann.export@example.com")
            let cy = try await api.register("Cy", email: "cy.export@example.com")
            try await StaffTests.verify(["ann.export@example.com"], services)
            #expect(try await api.post("/v1/me/export", token: ann.token).status == .accepted)
            #expect(try await api.post("/v1/me/export", token: cy.token).status == .accepted)
            try await services.runDueJobs()
            let path = try #require(try await api.notifications(ann.token).first { $0.kind == .dataExportReady }?.data.path)
            let mail = try #require(try await smtp.messages(to: "ann.export@example.com").first)
            #expect(mail.headers["subject"] == "Your SportLook data is ready")
            let link = try #require(
                mail.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first {
                    $0.hasPrefix("https://")
                })
            #expect(link == "https://sportlook.test" + path)
            let download = try await api.get(String(link.dropFirst("https://sportlook.test".count)))
            #expect(download.status == .ok && download.headers[.contentType] == "application/zip")

            // Ben's export is ready, but its mail waits until the link has expired: nothing is sent.
            let ben = try await api.register("Ben", email: "ben.export@example.com")
            try await StaffTests.verify(["ben.export@example.com"], services)
            let asked = try await api.post("/v1/me/export", token: ben.token).decode(JSONValue.self, expecting: .accepted)
            try await services.exports.build(try #require(asked["id"]?.string.flatMap(UUID.init(uuidString:))))
            clock.advance(by: ExportService.lifetime + 1)
            try await services.runDueJobs()
            #expect(try smtp.messages().filter { $0.recipient == "ben.export@example.com" }.isEmpty)
            // Cy's email was never confirmed: her link stays in the app.
            #expect(try await api.notifications(cy.token).contains { $0.kind == .dataExportReady })
            #expect(try smtp.messages().map(\.recipient) == ["ann.export@example.com"])
        }
        await smtp.stop()
    }
}

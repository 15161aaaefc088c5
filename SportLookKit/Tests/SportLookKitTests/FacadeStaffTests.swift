import Foundation
import SportLookKit
import SportLookTestSupport
import Testing

/// The staff's console through the facade, against a real server.
@Suite("The facade for the staff", .serialized)
struct FacadeStaffTests {
    @Test("a report decided, an account suspended and its appeal reversed, the audit log, jobs, registration blocks and the staff")
    func console() async throws {
        try await withServer(["MAIL_TRANSPORT": "log", "MAIL_FROM": "SportLook <no-reply@example.com>", "LOG_LEVEL": "notice"]) { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            let adaEmail = try await ada.me.profile().email
            let benEmail = try await ben.me.profile().email
            let cyProfile = try await cy.me.profile()
            await #expect(throws: SportLookError.self, "not staff yet") { _ = try await ada.staff.reports() }
            // A staff role goes to a verified email only: Ada, an admin from the command line,
            // makes Ben a moderator.
            for (client, email) in [(ada, adaEmail), (ben, benEmail)] {
                try await client.auth.requestEmailVerification()
                try await client.auth.verifyEmail(code: try await server.mailedCode(to: email, after: 0))
            }
            try await server.command(["staff", "grant", adaEmail, "admin", "--reason", "The first admin"])
            try await ada.staff.setRole(of: benEmail, to: .moderator, reason: "Helps on weekends")
            #expect(try await ada.staff.members().map(\.role).sorted { $0.rawValue < $1.rawValue } == [.admin, .moderator])

            // Ben reports Cy; the case reaches the queue and is decided.
            try await ben.me.report(.person(cyProfile.id), because: .harassment, details: "Rude in the chat")
            let cases = try await ada.staff.reports()
            let reported = try #require(cases.first { $0.target == .person(cyProfile.id) })
            #expect(reported.reports.map(\.reporter.name) == ["Ben"])
            #expect(reported.reports.first?.reason == "harassment")
            let decided = try await ada.staff.decide(.person(cyProfile.id), .warn, reason: "A first warning")
            #expect(decided.count == 1)
            #expect(decided.action.targetID == cyProfile.id.description && decided.action.reason == "A first warning")
            #expect(try await ada.staff.reports().contains { $0.target == .person(cyProfile.id) } == false)

            // The account, found and suspended; Cy appeals, the suspension is reversed.
            #expect(try await ada.staff.searchAccounts("Cy").map(\.id).contains(cyProfile.id))
            let suspension = try await ada.staff.act(on: cyProfile.id, .suspend, reason: "Repeated insults", days: 7)
            #expect(try await ada.staff.account(cyProfile.id).suspendedAt != nil)
            let signedOut = await #expect(throws: SportLookError.self) { _ = try await cy.me.profile() }
            #expect(signedOut?.status == 403)
            try await cy.appeal(
                email: cyProfile.email, password: "correct horse battery", statement: "It was a joke between friends",
                action: suspension.id.description)
            let appeal = try #require(try await ada.staff.appeals().first { $0.person.id == cyProfile.id })
            #expect(appeal.status == .open && appeal.action.id == suspension.id)
            await #expect(throws: SportLookError.self, "not the one who acted") {
                try await ada.staff.decideAppeal(appeal.id, reverse: true, reason: "Mine to undo")
            }
            try await ben.staff.decideAppeal(appeal.id, reverse: true, reason: "A joke, this time")
            #expect(try await ada.staff.account(cyProfile.id).suspendedAt == nil)
            try await cy.auth.logIn(email: cyProfile.email, password: "correct horse battery")
            let log = try await ada.staff.audit(about: cyProfile.id.description)
            #expect(log.contains { $0.id == decided.action.id }, "the warning")
            #expect(log.contains { $0.id == suspension.id && $0.actorName == "Ada" && $0.reason == "Repeated insults" })

            // The queue: nothing dead to retry or drop, and each act is logged all the same.
            let jobs = try await ada.staff.jobs()
            #expect(jobs.dead.isEmpty)
            #expect(try await ada.staff.retryDeadJobs(reason: "After the mail outage").count == 0)
            #expect(try await ada.staff.dropDeadJobs(kind: "push", reason: "Old pushes").count == 0)

            // A registration block: a domain refused, then lifted.
            let block = try await ada.staff.blockRegistrations(.emailDomain, "Spam.Example", reason: "A wave of fake accounts")
            #expect(block.kind == .emailDomain && block.value == "spam.example")
            #expect(try await ada.staff.abuse().blocks.map(\.id) == [block.id])
            let refused = await #expect(throws: SportLookError.self) {
                _ = try await SportLookClient(server: server.url).auth.register(
                    name: "Bot", email: "bot@spam.example", password: "correct horse battery")
            }
            #expect(refused?.status == 403)
            try await ada.staff.liftBlock(block.id, reason: "The wave is over")
            #expect(try await ada.staff.abuse().blocks.isEmpty)

            // Ben steps down.
            #expect(try await ben.staff.reports().isEmpty, "a moderator reads the queue")
            try await ada.staff.setRole(of: benEmail, to: nil, reason: "Stepped down")
            #expect(try await ada.staff.members().map(\.email) == [adaEmail])

            // A copy of Cy's data, and Cy erased.
            let export = try await ada.staff.export(cyProfile.id, reason: "Asked for by post")
            #expect(export.status == "pending" || export.status == "ready")
            try await ada.staff.erase(cyProfile.id, reason: "Asked to be forgotten")
            #expect(try await ada.staff.account(cyProfile.id).isDeleted)
        }
    }
}

/// A game's chat by the game, the attendance sheet, a time poll made into a game, and files.
@Suite("The facade for game chat, sheets and files", .serialized)
struct FacadeFilesTests {
    @Test(
        "a game's chat by the game, the attendance sheet and its marks, a time poll made into a game, the calendar feed and a data export")
    func gameChatSheetPollFiles() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let benID = try await ben.me.profile().id
            let game = try await newGame(by: ada)
            try await ben.events.join(game.id)

            // The game's chat by the game.
            let hello = try await ben.chat.send("Is the pitch booked?", toGame: game.id, clientID: "ben-1")
            #expect(hello.seq == 1 && hello.event == game.id && hello.sender.id == benID)
            #expect(try await ben.chat.send("Is the pitch booked?", toGame: game.id, clientID: "ben-1").id == hello.id, "stored once")
            #expect(try await ada.chat.history(ofGame: game.id).all().map(\.body) == ["Is the pitch booked?"])
            try await ada.chat.markRead(game: game.id, upTo: 1)
            let room = try #require(try await ada.chat.rooms().all().first { $0.event == game.id })
            #expect(room.kind == .event && room.lastReadSeq == 1 && room.unreadCount == 0)
            #expect(room.lastMessage?.id == hello.id)

            // The sheet: the organiser's, no one else's.
            let sheet = try await ada.events.attendanceSheet(game.id)
            #expect(sheet.map(\.person.name) == ["Ben"], "the people going, the organiser aside")
            #expect(sheet.allSatisfy { $0.going && $0.mark == nil })
            let refused = await #expect(throws: SportLookError.self) { _ = try await ben.events.attendanceSheet(game.id) }
            #expect(refused?.status == 403)
            // Marks open at the start: a game that began half a minute ago takes one, and nil takes it back.
            let started = try await ada.events.create(
                .init(title: "Kick-off", sport: "football", startsAt: .now - 30, place: copenhagen))
            try await ben.events.join(started.id)
            try await ada.events.mark(benID, in: started.id, as: .noShow)
            #expect(try await ada.events.attendanceSheet(started.id).first { $0.id == benID }?.mark == .noShow)
            try await ada.events.mark(benID, in: started.id, as: nil)
            #expect(try await ada.events.attendanceSheet(started.id).first { $0.id == benID }?.mark == nil)

            // A time poll: Ben picks the first slot; closed, it becomes a game Ben is invited to, once.
            let start = Date(timeIntervalSince1970: (Date.now.timeIntervalSince1970 / 3600).rounded(.down) * 3600 + 3 * 86_400)
            let slots = [DateInterval(start: start, duration: 5400), DateInterval(start: start + 86_400, duration: 5400)]
            let poll = try await ada.chat.sendTimePoll("Which evening?", slots: slots, in: game.id.description)
            #expect(poll.poll?.kind == .time && poll.poll?.options.map(\.startsAt) == slots.map(\.start))
            try await ben.chat.vote(in: game.id.description, poll: poll.seq, for: [0])
            try await ada.chat.closePoll(in: game.id.description, seq: poll.seq)
            let draft = SportLookClient.Events.Draft(
                title: "The picked evening", sport: "football", startsAt: .distantPast, place: copenhagen)
            let scheduled = try await ada.chat.schedule(poll: poll.seq, in: game.id.description, option: 0, asGame: draft)
            let made = try await ada.events.get(try #require(scheduled.event))
            #expect(made.title == "The picked evening" && made.startsAt == start && made.endsAt == start + 5400)
            #expect(scheduled.invited == [benID] && scheduled.invitedTo == made.id)
            #expect(scheduled.message.poll?.event == made.id)
            let again = await #expect(throws: SportLookError.self) {
                _ = try await ada.chat.schedule(poll: poll.seq, in: game.id.description, option: 0, asGame: draft)
            }
            #expect(again?.code == "poll_made")

            // The calendar feed: a link that reads without signing in.
            let path = try await ada.me.openCalendarFeed()
            let feed = String(decoding: try await SportLookClient(server: server.url).me.calendarFeed(path), as: UTF8.self)
            #expect(feed.hasPrefix("BEGIN:VCALENDAR") && feed.contains("SUMMARY:Sunday football"))
            try await ada.me.closeCalendarFeed()
            await #expect(throws: SportLookError.self, "closed") { _ = try await ada.me.calendarFeed(path) }

            // A copy of the account's data: asked for, made by a job, downloaded as a ZIP.
            let asked = try await ada.me.requestDataExport()
            #expect(asked.downloadPath == nil)
            var ready: DataExport?
            try await eventually("the copy is made") {
                ready = try await ada.me.dataExports().first { $0.id == asked.id && $0.downloadPath != nil }
                return ready != nil
            }
            let archive = try await ada.me.download(try #require(ready))
            #expect(archive.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a ZIP")
            #expect(archive.count == ready?.size)
        }
    }
}

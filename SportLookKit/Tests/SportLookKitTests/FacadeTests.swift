import Foundation
import SportLookKit
import SportLookTestSupport
import Testing

/// The facade against a real server: what an app does, in plain models.
@Suite("The facade against a real server", .serialized)
struct FacadeTests {
    static let copenhagen = Place(latitude: 55.6761, longitude: 12.5683)

    @Test("games: made, found nearby with a filter, joined to the waitlist, left; invitations and the inbox; people and blocks")
    func eventsPeopleInbox() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            let benProfile = try await ben.me.profile()
            let cyProfile = try await cy.me.update(bio: "Keeper, most Sundays", discoverable: true)
            #expect(cyProfile.bio == "Keeper, most Sundays" && cyProfile.discoverable)

            let game = try await ada.events.create(
                .init(
                    title: "Padel at eight", sport: "padel", startsAt: .now + 86_400, place: Self.copenhagen, capacity: 1,
                    level: LevelRange(min: 2, max: 5)))
            #expect(game.sport.slug == "padel" && game.level == LevelRange(min: 2, max: 5) && game.iOrganise)
            let football = try await ada.events.create(
                .init(title: "Football", sport: "football", startsAt: .now + 2 * 86_400, place: Self.copenhagen))

            // Found nearby, filtered by sport; a level outside the range finds nothing.
            let padel = try await cy.events.nearby(around: Self.copenhagen, within: 3, filter: .init(sport: "padel")).all()
            #expect(padel.map(\.id) == [game.id])
            #expect(try #require(padel.first?.distanceMetres) < 100)
            let tooGood = try await cy.events.nearby(around: Self.copenhagen, filter: .init(sport: "padel", level: 6.5)).all()
            #expect(tooGood.isEmpty)
            await #expect(throws: SportLookError.self) {
                try await cy.events.nearby(around: Self.copenhagen, filter: .init(sport: "quidditch")).all()
            }

            // One place (the organiser holds none): Ben, a level-3 padel player, takes it; Cy
            // goes on the waitlist, then leaves it.
            await #expect(throws: SportLookError.self) { try await ben.events.join(game.id) }
            #expect(try await ben.me.setLevels(["padel": 3]) == ["padel": 3])
            #expect(try await ben.me.levels() == ["padel": 3])
            #expect(try await ben.events.join(game.id).attendance == .going)
            try await cy.me.setLevels(["padel": 4.5])
            let joined = try await cy.events.join(game.id)
            #expect(joined.attendance == .waitlisted && joined.waitlistPosition == 1)
            #expect(try await cy.events.get(game.id).myAttendance == .waitlisted)
            let attendees = try await ada.events.attendees(of: game.id).all()
            #expect(attendees.map(\.person.name) == ["Ada", "Ben", "Cy"], "the organiser listed first")
            #expect(attendees.map(\.attendance) == [.going, .going, .waitlisted])
            try await cy.events.leave(game.id)
            #expect(try await cy.events.get(game.id).myAttendance == nil)

            // Ada invites Ben to the football; Ben accepts and it is among his games.
            let sent = try await ada.invitations.invite([benProfile.id], to: football.id)
            #expect(sent.map(\.invitee.id) == [benProfile.id])
            let received = try await ben.invitations.received(.pending).all()
            #expect(received.map(\.event) == [football.id])
            let accepted = try await ben.invitations.accept(received[0].id)
            #expect(accepted.status == .accepted)
            #expect(try await ben.events.mine().all().map(\.id) == [game.id, football.id], "soonest first")

            // The invitation reached Ben's inbox, about the game; marking it read.
            let inbox = try await ben.notifications.list(unreadOnly: true).all()
            let invitation = try #require(inbox.first { $0.kind == "invitation" })
            #expect(invitation.event == football.id)
            #expect(invitation.invitation == sent.first?.id, "the invitation to open")
            #expect(invitation.person?.name == "Ada", "who invited")
            try await ben.notifications.markRead([invitation.id])
            #expect(try await ben.notifications.list(unreadOnly: true).all().contains { $0.id == invitation.id } == false)

            // People: Ben finds Cy nearby once Cy has a place; blocks and unblocks.
            try await ben.people.block(cyProfile.id)
            #expect(try await ben.people.blocked().all().map(\.id) == [cyProfile.id])
            try await ben.people.unblock(cyProfile.id)
            #expect(try await ben.people.blocked().all().isEmpty)

            // Sessions: the one in use is listed as current.
            let sessions = try await ada.me.sessions()
            #expect(sessions.contains { $0.isCurrent })
            #expect(try await ada.me.record().games == 0)
        }
    }

    @Test("groups, series and chat over HTTP: a group made and joined, a weekly series with a regular, a conversation")
    func groupsSeriesChat() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let adaID = try await ada.me.profile().id
            let benID = try await ben.me.profile().id

            let group = try await ada.groups.create(
                name: "Sunday footballers", place: Self.copenhagen, sports: ["football"], policy: .public)
            #expect(group.myRole == .owner && group.memberCount == 1)
            try await ben.groups.requestToJoin(group.id)
            #expect(try await ben.groups.get(group.id).myRole == .member)
            let members = try await ada.groups.members(of: group.id).all()
            #expect(Set(members.map(\.person.id)) == [adaID, benID])
            #expect(try await ben.groups.mine().all().map(\.id) == [group.id])
            try await ben.groups.leave(group.id)
            #expect(try await ben.groups.get(group.id).myRole == nil)

            let series = try await ada.series.create(
                title: "Tuesday football", sport: "football", place: Self.copenhagen, timeZone: "Europe/Copenhagen",
                firstDate: Self.localDate(daysAhead: 3), startTime: "19:30")
            #expect(series.rule.hasPrefix("FREQ=WEEKLY") && !series.upcoming.isEmpty)
            let joined = try await ben.series.becomeRegular(series.id)
            #expect(joined.iAmRegular)
            #expect(try await ada.series.regulars(of: series.id).map(\.id).contains(benID))
            try await ben.series.stopBeingRegular(series.id)
            #expect(try await ben.series.get(series.id).iAmRegular == false)

            let conversation = try await ada.chat.conversation(with: benID)
            #expect(conversation.with.id == benID)
            let message = try await ada.chat.send("Fancy a game?", to: conversation.room, clientID: "hello-1")
            #expect(message.seq == 1)
            let again = try await ada.chat.send("Fancy a game?", to: conversation.room, clientID: "hello-1")
            #expect(again.seq == 1, "the same client_id is stored once")
            let history = try await ada.chat.history(of: conversation.room).all()
            #expect(history.map(\.body) == ["Fancy a game?"])
            #expect(try await ada.chat.rooms().all().contains { $0.id == conversation.room })
        }
    }

    /// A local date `days` ahead, as a series names its first date.
    static func localDate(daysAhead days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Copenhagen")!
        let date = calendar.date(byAdding: .day, value: days, to: Date())!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }
}

/// Organising through the facade: a game's teams, sheet, changes and removals; a group run
/// by its admins; a poll and reactions.
@Suite("The facade for organisers", .serialized)
struct FacadeOrganiserTests {
    @Test(
        "teams planned with a fixed player, a sheet marked, a game changed, someone removed and banned; a group's admins; a poll voted on, a reaction"
    )
    func organising() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            let benID = try await ben.me.profile().id
            let cyID = try await cy.me.profile().id
            let game = try await ada.events.create(
                .init(title: "Five-a-side", sport: "football", startsAt: .now + 86_400, place: FacadeTests.copenhagen))
            try await ben.events.join(game.id)
            try await cy.events.join(game.id)

            let teams = try await ada.events.planTeams(game.id, count: 2, fixed: [benID: 2], publish: true)
            #expect(teams.teams.count == 2 && teams.teams[1].map(\.id).contains(benID), "Ben stays on team 2")
            #expect(try await cy.events.teams(of: game.id) == teams, "published: everyone going sees them")
            try await ada.events.clearTeams(game.id)

            let renamed = try await ada.events.update(game.id, title: "Five-a-side, pitch 3", capacity: 12)
            #expect(renamed.title == "Five-a-side, pitch 3" && renamed.capacity == 12)

            try await ada.events.remove(cyID, from: game.id, ban: true)
            #expect(try await ada.events.bans(of: game.id).all().map(\.id) == [cyID])
            await #expect(throws: SportLookError.self, "banned") { try await cy.events.join(game.id) }
            try await ada.events.liftBan(of: cyID, in: game.id)
            #expect(try await cy.events.join(game.id).attendance == .going)

            // A group whose owner makes Ben an admin; Ben takes the requests; an invite code.
            let group = try await ada.groups.create(name: "Padel crew", place: FacadeTests.copenhagen, policy: .approval)
            try await ben.groups.requestToJoin(group.id, message: "Hi!")
            #expect(try await ada.groups.requests(of: group.id).all().map(\.id) == [benID])
            try await ada.groups.accept(benID, into: group.id)
            try await ada.groups.setRole(of: benID, in: group.id, admin: true)
            #expect(try await ben.groups.get(group.id).myRole == .admin)
            try await cy.groups.requestToJoin(group.id)
            try await ben.groups.refuse(cyID, from: group.id)
            #expect(try await ada.groups.requests(of: group.id).all().isEmpty)
            let code = try await ada.groups.newInviteCode(group.id)
            try await cy.groups.requestToJoin(group.id, invite: code)
            #expect(try await cy.groups.get(group.id).myRole == .member, "an invite code lets in at once")
            let updated = try await ben.groups.update(group.id, description: "Thursdays at eight")
            #expect(updated.description == "Thursdays at eight")

            // A poll in the game's chat: Ben votes, Cy reacts.
            let poll = try await ada.chat.sendPoll("Who brings the ball?", answers: ["Ada", "Ben"], in: game.id.description)
            let voted = try await ben.chat.vote(in: game.id.description, poll: poll.seq, for: [1])
            #expect(voted.poll?.options.map(\.count) == [0, 1])
            let reacted = try await cy.chat.react(.thumbsUp, to: poll.seq, in: game.id.description)
            #expect(reacted.reactions.first?.count == 1)
            let unreacted = try await cy.chat.removeReaction(.thumbsUp, from: poll.seq, in: game.id.description)
            #expect(unreacted.reactions.isEmpty)
        }
    }
}

/// Who paid for the pitch, through the facade.
@Suite("The facade for money", .serialized)
struct FacadeMoneyTests {
    @Test("a priced game's sheet: a share owed, a cash payment recorded, a claim confirmed, a debt waived, balances and the CSV")
    func money() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            let dee = try await signedUp(server, "Dee")
            let benID = try await ben.me.profile().id
            let deeID = try await dee.me.profile().id
            let game = try await ada.events.create(
                .init(
                    title: "Pitch night", sport: "football", startsAt: .now + 3 * 86_400, place: FacadeTests.copenhagen,
                    price: Money(minorUnits: 5_000, currency: "DKK")))
            #expect(game.price?.amount == Money(minorUnits: 5_000, currency: "DKK"))
            for player in [ben, cy, dee] { try await player.events.join(game.id) }

            let owed = try await ben.money.sheet(of: game.id)
            #expect(!owed.organiserView && owed.lines.map(\.balance) == [5_000], "Ben sees his own line: 50 kr owed")
            #expect(try await ben.money.balances().games.map(\.amount) == [Money(minorUnits: 5_000, currency: "DKK")])

            let paid = try await ada.money.markPaid([benID], for: game.id, by: .cash)
            #expect(paid.organiserView && paid.lines.first { $0.person?.id == benID }?.balance == 0)
            let claim = try await cy.money.claimPaid(for: game.id, by: .transfer, note: "MobilePay")
            #expect(try await ada.money.sheet(of: game.id).claims.map(\.id) == [claim.id])
            let confirmed = try await ada.money.confirm(claim.id)
            #expect(confirmed.claims.isEmpty && confirmed.total.paid == 10_000)
            let waived = try await ada.money.waive(deeID, for: game.id, note: "First game")
            #expect(waived.lines.first { $0.person?.id == deeID }?.balance == 0)
            #expect(waived.total.balance == 0)
            #expect(try await dee.money.balances().games.isEmpty)

            let csv = String(decoding: try await ada.money.sheetCSV(of: game.id), as: UTF8.self)
            #expect(csv.contains("Ben") && csv.contains("Cy") && csv.contains("Dee"))
            let calendar = String(decoding: try await ben.events.calendarFile(game.id), as: UTF8.self)
            #expect(calendar.hasPrefix("BEGIN:VCALENDAR") && calendar.contains("Pitch night"))
        }
    }
}

/// A group's dues, a map's box and a series changed from a date, through the facade.
@Suite("The facade for dues, the map and series changes", .serialized)
struct FacadeDuesTests {
    @Test("dues owed, claimed, confirmed, refunded and waived; games in a map's box; a series changed from a date on")
    func duesBoxSeries() async throws {
        try await withServer { server in
            let ada = try await signedUp(server, "Ada")
            let ben = try await signedUp(server, "Ben")
            let cy = try await signedUp(server, "Cy")
            let benID = try await ben.me.profile().id
            let cyID = try await cy.me.profile().id
            let group = try await ada.groups.create(
                name: "Club", place: FacadeTests.copenhagen, policy: .public, dues: Money(minorUnits: 10_000, currency: "DKK"),
                timeZone: "Europe/Copenhagen")
            try await ben.groups.requestToJoin(group.id)
            try await cy.groups.requestToJoin(group.id)
            let owed = try await ben.money.dues(of: group.id)
            #expect(owed.lines.map(\.balance) == [10_000], "this month's dues")

            let claim = try await ben.money.claimDuesPaid(in: group.id, by: .transfer)
            let confirmed = try await ada.money.confirm(claim.id)
            #expect(confirmed.lines.first { $0.person?.id == benID }?.balance == 0)
            let refunded = try await ada.money.refundDues(2_500, to: benID, in: group.id, by: .cash, note: "Half a month away")
            #expect(refunded.lines.first { $0.person?.id == benID }?.refunded == 2_500)
            _ = try await ada.money.markDuesPaid([cyID], in: group.id, by: .cash, amount: 4_000)
            let waived = try await ada.money.waiveDues(of: cyID, in: group.id)
            #expect(waived.lines.first { $0.person?.id == cyID }?.balance == 0)

            // The map: a game inside the box is found, one outside is not.
            let inside = try await ada.events.create(
                .init(title: "Inside", sport: "football", startsAt: .now + 86_400, place: FacadeTests.copenhagen))
            _ = try await ada.events.create(
                .init(title: "Outside", sport: "football", startsAt: .now + 86_400, place: Place(latitude: 56.16, longitude: 10.2)))
            let boxed = try await ben.events.inBox(
                southWest: Place(latitude: 55.6, longitude: 12.5), northEast: Place(latitude: 55.8, longitude: 12.7)
            ).all()
            #expect(boxed.map(\.id) == [inside.id])

            // A series changed from its second date: the first game stays, a new series takes the rest.
            let series = try await ada.series.create(
                title: "Tuesday football", sport: "football", place: FacadeTests.copenhagen, timeZone: "Europe/Copenhagen",
                firstDate: FacadeTests.localDate(daysAhead: 2), startTime: "19:30")
            let second = try #require(series.upcoming.dropFirst().first?.date)
            let changed = try await ada.series.change(series.id, from: second, title: "Tuesday football, new pitch")
            #expect(changed.title == "Tuesday football, new pitch" && changed.firstDate == second)
            #expect(try await ada.series.get(series.id).upcoming.count == 1)
        }
    }
}

import Foundation
import HTTPTypes
import SQLKit
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Every sentence for people in one catalogue, in every language, with CLDR plurals")
struct CatalogueTests {
    /// What is wrong with a catalogue: a key without a template in some language, a
    /// template that does not parse, names other arguments than English, or lacks a
    /// plural category of its language.
    static func problems(_ catalogue: [Language: [Catalogue.Key: String]]) -> [String] {
        var problems: [String] = []
        let english = (catalogue[.en] ?? [:]).compactMapValues { try? MessageFormat($0) }
        for language in Language.allCases {
            let templates = catalogue[language] ?? [:]
            for key in Catalogue.Key.allCases {
                guard let template = templates[key] else {
                    problems.append("\(key.rawValue) has no \(language.rawValue) text")
                    continue
                }
                guard let format = try? MessageFormat(template) else {
                    problems.append("\(key.rawValue) in \(language.rawValue) does not parse")
                    continue
                }
                if format.arguments != english[key]?.arguments {
                    problems.append("\(key.rawValue) in \(language.rawValue) names other arguments than in English")
                }
                for (name, branches) in plurals(format.parts) {
                    for category in Catalogue.rules(language).categories where branches[category.rawValue] == nil {
                        problems.append("\(key.rawValue): {\(name), plural} has no '\(category)' in \(language.rawValue)")
                    }
                }
            }
        }
        return problems
    }

    /// Every plural in `parts`, nested ones too.
    static func plurals(_ parts: [MessageFormat.Part]) -> [(String, [String: [MessageFormat.Part]])] {
        parts.flatMap { part -> [(String, [String: [MessageFormat.Part]])] in
            guard case .plural(let name, let branches) = part else { return [] }
            return [(name, branches)] + branches.values.flatMap { plurals($0) }
        }
    }

    static var catalogue: [Language: [Catalogue.Key: String]] {
        Dictionary(uniqueKeysWithValues: Language.allCases.map { ($0, Catalogue.templates($0)) })
    }

    @Test("every key has a template in every language, each parses, names the same arguments as English, and covers its plurals")
    func everyKeyInEveryLanguage() {
        #expect(Self.problems(Self.catalogue) == [])
    }

    @Test("a key missing a language, a renamed argument, a plural without 'one' and a broken template are each caught")
    func gapsAreCaught() {
        var catalogue = Self.catalogue
        catalogue[.da]?[.gameOnTitle] = nil
        catalogue[.da]?[.invitationBody] = "{inviter} inviterer dig til {begivenhed}."
        catalogue[.da]?[.cancelledNotEnoughPlayers] = "For få: {going, plural, other {# spillere}} af {needed}."
        catalogue[.da]?[.reminderTitle] = "Påmindelse: {event"
        #expect(
            Self.problems(catalogue) == [
                "event_cancelled.not_enough_players: {going, plural} has no 'one' in da", "game_on.title has no da text",
                "invitation.body in da names other arguments than in English", "reminder.title in da does not parse",
            ])
    }

    @Test("CLDR plural categories: English one is 1 alone; Danish one is 1, and 0.x and 1.x with a fraction")
    func pluralRules() {
        let english = PluralRules.english
        let danish = PluralRules.danish
        #expect([0, 1, 2, 5, 21, 1.5].map(english.category(of:)) == [.other, .one, .other, .other, .other, .other])
        #expect([0, 1, 2, 5, 21, 0.5, 1.5, 2.5].map(danish.category(of:)) == [.other, .one, .other, .other, .other, .one, .one, .other])
    }

    @Test("plurals, exact values and # in both languages; arguments as text, braces quoted")
    func formatting() {
        func cancelled(_ going: Int, _ language: Language) -> String {
            Catalogue.text(.cancelledNotEnoughPlayers, ["going": .number(Double(going)), "needed": 4], in: language)
        }
        #expect(cancelled(0, .en) == "Not enough players: nobody was going.")
        #expect(cancelled(1, .en) == "Not enough players: 1 of the 4 needed was going.")
        #expect(cancelled(3, .en) == "Not enough players: 3 of the 4 needed were going.")
        #expect(cancelled(1, .da) == "For få spillere: 1 spiller af de 4 nødvendige var tilmeldt.")
        #expect(cancelled(3, .da) == "For få spillere: 3 spillere af de 4 nødvendige var tilmeldt.")
        let text = try? MessageFormat("'{'{name}'}' {n, plural, one {# item} other {# items}}").format(
            ["name": "{x}", "n": 2], rules: .english)
        #expect(text == "{{x}} 2 items")
    }

    @Test("a plain chat push reads the same in every language: one statement queues it for everyone")
    func plainChatBodyIsOneText() {
        for language in Language.allCases {
            #expect(Catalogue.templates(language)[.chatMessageBody] == Catalogue.english[.chatMessageBody])
        }
    }

    @Test("mails are written in the account's language")
    func mails() {
        let english = EmailCodeService.mail(.reset, code: "123456", to: "a@example.com", in: .en, mark: "ABCD")
        let danish = EmailCodeService.mail(.verify, code: "654321", to: "a@example.com", in: .da, mark: nil)
        #expect(english.subject == "Your SportLook password reset code (ABCD)")
        #expect(english.text.contains("123456") && english.text.contains("the mark ABCD"))
        #expect(danish.subject == "Din bekræftelseskode til SportLook")
        #expect(danish.text.contains("654321") && danish.text.contains("minutter"))
        // A reset asked for before requests were marked: no empty mark.
        let unmarked = EmailCodeService.mail(.reset, code: "111111", to: "a@example.com", in: .en, mark: nil)
        #expect(unmarked.subject == "Your SportLook password reset code" && !unmarked.text.contains("mark"))
    }
}

@Suite("Pushes in each person's language, on both databases")
struct LanguagePushTests {
    /// The bodies of the chat pushes queued for the room, by recipient id (lower case).
    static func chatBodies(_ services: AppServices, room: String) async throws -> [String: String] {
        let rows = try await services.database.read { sql in
            try await sql.raw("SELECT dedupe_key, payload FROM jobs WHERE kind = 'chat_message'").all().map {
                (try $0.decode(column: "dedupe_key", as: String.self), try $0.decode(column: "payload", as: String.self))
            }
        }
        var bodies: [String: String] = [:]
        for (key, payload) in rows where key.hasPrefix("chat_message:\(room.lowercased()):") {
            let message = try JSONDecoder().decode(NotificationMessage.self, from: Data(payload.utf8))
            bodies[String(key.split(separator: ":").last ?? "")] = message.body
        }
        return bodies
    }

    @Test(
        "a message with quotes, a backslash, % and _ and a line break, edited then deleted: each queued push follows it, in its reader's language",
        arguments: engines)
    func chatPushesFollowTheMessage(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let english = people[0]
            let danish = try await api.request(
                .post, "/v1/auth/register", json: ["name": "Dorte", "email": "dorte@example.com", "password": "correct horse battery"],
                headers: [.acceptLanguage: "da"]
            ).decode(API.AuthResult.self, expecting: .created)
            _ = try await api.post("/v1/events/\(event)/attendance", token: danish.accessToken)
            let text = "He said \"100% _done_\" \\ then\nleft"
            let said = try await api.say(text, in: event, token: owner.token)
            let (en, da) = (english.id.lowercased(), danish.user.id.lowercased())
            #expect(try await Self.chatBodies(services, room: event) == [en: "Owner: \(text)", da: "Owner: \(text)"])

            _ = try await api.patch("/v1/rooms/\(event)/messages/\(said.seq)", token: owner.token, json: ["body": "50% \"off\"\nnow"])
            #expect(try await Self.chatBodies(services, room: event) == [en: "Owner: 50% \"off\"\nnow", da: "Owner: 50% \"off\"\nnow"])

            _ = try await api.delete("/v1/rooms/\(event)/messages/\(said.seq)", token: owner.token)
            #expect(
                try await Self.chatBodies(services, room: event) == [en: "Owner: Message deleted", da: "Owner: Beskeden er slettet"])
        }
    }

    @Test("a photo without words is named in each reader's language", arguments: engines)
    func photoInEachLanguage(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let danish = try await api.request(
                .post, "/v1/auth/register", json: ["name": "Dorte", "email": "dorte@example.com", "password": "correct horse battery"],
                headers: [.acceptLanguage: "da"]
            ).decode(API.AuthResult.self, expecting: .created)
            _ = try await api.post("/v1/events/\(event)/attendance", token: danish.accessToken)
            let heading = ChatHeading.event(id: try #require(UUID(uuidString: event)), title: "Football")
            let sender = UserSummary(id: try #require(UUID(uuidString: owner.id)), name: "Owner")
            let recipients = [try #require(UUID(uuidString: people[0].id)), try #require(UUID(uuidString: danish.user.id))]
            try await services.database.transaction { sql in
                var changes = ChangeSet()
                try await services.notifier.chatMessage(
                    heading, seq: 1, sender: sender, preview: nil, recipients: recipients, mentioned: [], at: clock.now(), on: sql,
                    changes: &changes)
            }
            #expect(
                try await Self.chatBodies(services, room: event) == [
                    people[0].id.lowercased(): "Owner: 📷 Photo", danish.user.id.lowercased(): "Owner: 📷 Billede",
                ])
        }
    }
}

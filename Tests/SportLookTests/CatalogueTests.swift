import Foundation
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
                for case .plural(let name, let branches) in format.parts {
                    for category in Catalogue.rules(language).categories where branches[category.rawValue] == nil {
                        problems.append("\(key.rawValue): {\(name), plural} has no '\(category)' in \(language.rawValue)")
                    }
                }
            }
        }
        return problems
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
        #expect(cancelled(0, .en) == "Not enough players: nobody was going of the 4 needed.")
        #expect(cancelled(1, .en) == "Not enough players: 1 player was going of the 4 needed.")
        #expect(cancelled(3, .en) == "Not enough players: 3 players were going of the 4 needed.")
        #expect(cancelled(1, .da) == "For få spillere: 1 spiller af de 4 nødvendige var tilmeldt.")
        #expect(cancelled(3, .da) == "For få spillere: 3 spillere af de 4 nødvendige var tilmeldt.")
        let text = try? MessageFormat("'{'{name}'}' {n, plural, one {# item} other {# items}}").format(
            ["name": "{x}", "n": 2], rules: .english)
        #expect(text == "{{x}} 2 items")
    }

    @Test("mails are written in the account's language")
    func mails() {
        let english = EmailCodeService.mail(.reset, code: "123456", to: "a@example.com", in: .en, mark: "ABCD")
        let danish = EmailCodeService.mail(.verify, code: "654321", to: "a@example.com", in: .da, mark: nil)
        #expect(english.subject == "Your SportLook password reset code (ABCD)")
        #expect(english.text.contains("123456") && english.text.contains("the mark ABCD"))
        #expect(danish.subject == "Din bekræftelseskode til SportLook")
        #expect(danish.text.contains("654321") && danish.text.contains("minutter"))
    }
}

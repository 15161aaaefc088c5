import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

/// The code's own sentences (errors' messages, fields' problems) are written in English
/// where they are said, as `Sentence("…")`: these tests read every one out of the server's
/// sources, as the compiler builds its template, and hold the catalogue to them.
@Suite("Every error message and field problem in every language")
struct SentenceCatalogueTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/SportLook")

    /// Every `Sentence("…")` of the server's sources: its template, and where it is said.
    static func sourceSentences() throws -> [String: String] {
        var found: [String: String] = [:]
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let text = Array(try String(contentsOf: file, encoding: .utf8).unicodeScalars)
            for (template, line) in try SentenceScanner.templates(in: text) {
                found[template] = found[template] ?? "\(file.lastPathComponent):\(line)"
            }
        }
        return found
    }

    /// What is wrong with a language's sentences against the sources': a sentence without
    /// a text, a text with other holes than its English, a text no source says.
    static func problems(_ translated: [String: String], of language: Language, sources: [String: String]) -> [String] {
        var problems: [String] = []
        for (template, place) in sources.sorted(by: { $0.key < $1.key }) {
            guard let text = translated[template] else {
                problems.append("\(place) \"\(template)\" has no \(language.rawValue) text")
                continue
            }
            if Sentence.holes(in: text) != Sentence.holes(in: template) {
                problems.append("\(place) \"\(template)\" in \(language.rawValue) has other holes")
            }
        }
        for template in translated.keys.sorted() where sources[template] == nil {
            problems.append("\"\(template)\" in \(language.rawValue) is said nowhere")
        }
        return problems
    }

    @Test("every sentence the sources say has a text in every language, with the same holes, and no text is left over")
    func everySentenceInEveryLanguage() throws {
        let sources = try Self.sourceSentences()
        // The scan finds them: the server refuses in hundreds of ways.
        #expect(sources.count > 300)
        #expect(sources["No such event."] != nil)
        #expect(sources["must be at most {0} characters and {1} bytes of UTF-8"] != nil)
        for language in Language.allCases where language != .en {
            #expect(Self.problems(Catalogue.sentences(language), of: language, sources: sources) == [])
        }
    }

    @Test("a missing sentence, a lost hole and a left-over text are each caught")
    func gapsAreCaught() throws {
        let sources = ["No such event.": "A.swift:1", "must be at most {0} characters": "B.swift:2"]
        let danish = ["must be at most {0} characters": "må højst være tegn", "No such gnome.": "Ingen sådan nisse."]
        #expect(
            Self.problems(danish, of: .da, sources: sources) == [
                "A.swift:1 \"No such event.\" has no da text", "B.swift:2 \"must be at most {0} characters\" in da has other holes",
                "\"No such gnome.\" in da is said nowhere",
            ])
    }

    @Test("the scan builds a literal's template as the compiler does: escapes, interpolations, nested quotes")
    func scanMatchesTheCompiler() throws {
        let count = 3
        let names = ["a", "b"]
        let written = Sentence("at most \(count) of \(names.joined(separator: ", ")) \"quoted\" \\ done")
        let source = #"x = Sentence("at most \(count) of \(names.joined(separator: ", ")) \"quoted\" \\ done") // Sentence("no")"#
        #expect(try SentenceScanner.templates(in: Array(source.unicodeScalars)).map(\.template) == [written.template])
        #expect(written.english == #"at most 3 of a, b "quoted" \ done"#)
    }

    @Test("a sentence the scan cannot read (multi-line, raw) fails it, naming its line")
    func unreadableSentencesFail() {
        let multiline = "let a = 1\nthrow E(Sentence(\n    \"\"\"\n    two\n    lines\n    \"\"\"))"
        #expect(throws: SentenceScanner.Unreadable(line: 3)) { try SentenceScanner.templates(in: Array(multiline.unicodeScalars)) }
        let raw = "x = Sentence(#\"raw \\(n)\"#)"
        #expect(throws: SentenceScanner.Unreadable(line: 1)) { try SentenceScanner.templates(in: Array(raw.unicodeScalars)) }
    }

    @Test("a sentence is put in the reader's language, a thing's name inside it too; English is the code's own text")
    func filling() {
        let thing = DomainError.notFound(.event).sentence
        #expect(thing.english == "No such event.")
        #expect(Catalogue.sentence(thing, in: .da) != thing.english)
        let limit = Sentence("must be at most \(80) characters and \(320) bytes of UTF-8")
        #expect(Catalogue.sentence(limit, in: .en) == "must be at most 80 characters and 320 bytes of UTF-8")
        let danish = Catalogue.sentence(limit, in: .da)
        #expect(danish.contains("80") && danish.contains("320") && !danish.contains("{"))
    }

    @Test("a template's holes are its {n} alone: other braces are text, a value holding braces is not read again")
    func braces() {
        let sentence = Sentence("{not a hole} \("{0}") and \(Sentence("inner \(7)")) {x")
        #expect(sentence.template == "{not a hole} {0} and {1} {x")
        #expect(Sentence.holes(in: sentence.template) == [0, 1])
        #expect(sentence.english == "{not a hole} {0} and inner 7 {x")
        // A translation may reorder the holes; one naming no argument stays as written.
        #expect(sentence.filled { $0 == sentence.template ? "{1}, {0}, {2}" : nil } == "inner 7, {0}, {2}")
        #expect(Sentence.holes(in: "{2}{2}{10}{-}") == [2, 10])
    }
}

/// A client reads refusals in the language it asks for: `Accept-Language` picks the
/// message's and the fields' language, `Content-Language` says which it got.
@Suite("Errors in the language the request asks for")
struct ErrorLanguageTests {
    @Test("a refused sign-up, an unknown event and a wrong password: Danish when asked, English otherwise", arguments: engines)
    func refusalsInTheAskedLanguage(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let bad: [String: Any] = ["name": "", "email": "not an email", "password": "correct horse battery"]
            let danish = try await api.request(.post, "/v1/auth/register", json: bad, headers: [.acceptLanguage: "da-DK,da;q=0.9,en;q=0.5"])
            #expect(danish.status == .unprocessableContent)
            #expect(danish.headers[.contentLanguage] == "da")
            let problem = try danish.decode(API.ErrorBody.self).error
            #expect(problem.code == "validation_failed")
            #expect(problem.message == "Nogle felter er ikke gyldige.")
            #expect(problem.fields == ["name": "må ikke være tom", "email": "skal være en e-mailadresse"])

            let english = try await api.request(.post, "/v1/auth/register", json: bad)
            #expect(english.headers[.contentLanguage] == "en")
            #expect(try english.decode(API.ErrorBody.self).error.message == "Some fields are not valid.")
            #expect(try english.errorFields == ["name": "must not be empty", "email": "must be an email address"])
            // A language the server does not write in reads as English.
            let french = try await api.request(.post, "/v1/auth/register", json: bad, headers: [.acceptLanguage: "fr"])
            #expect(try french.decode(API.ErrorBody.self).error.message == "Some fields are not valid.")

            let user = try await api.register("Ida", email: "ida@example.com")
            let missing = try await api.request(
                .get, "/v1/events/\(UUID().uuidString)", token: user.token, headers: [.acceptLanguage: "da"])
            #expect(missing.status == .notFound)
            #expect(try missing.decode(API.ErrorBody.self).error.message == "Begivenheden findes ikke.")
            let wrong = try await api.request(
                .post, "/v1/auth/login", json: ["email": "ida@example.com", "password": "not the password"],
                headers: [.acceptLanguage: "da"])
            #expect(wrong.status == .unauthorized)
            #expect(try wrong.decode(API.ErrorBody.self).error.message == "E-mailen eller adgangskoden er forkert.")
        }
    }
}

/// Reads `Sentence("…")` literals out of Swift source: each one's template, `{n}` for its
/// `n`th interpolation, escapes as the compiler reads them. Comments and other literals
/// (multi-line and raw ones too) are skipped whole.
enum SentenceScanner {
    struct Unreadable: Error, Equatable { let line: Int }

    static func templates(in text: [Unicode.Scalar]) throws -> [(template: String, line: Int)] {
        var found: [(String, Int)] = []
        var i = 0
        let marker = Array("Sentence(".unicodeScalars)
        func line(_ at: Int) -> Int { text[..<at].reduce(1) { $1 == "\n" ? $0 + 1 : $0 } }
        while i < text.count {
            let c = text[i]
            if c == "/", i + 1 < text.count, text[i + 1] == "/" {
                while i < text.count, text[i] != "\n" { i += 1 }
            } else if c == "/", i + 1 < text.count, text[i + 1] == "*" {
                i += 2
                while i + 1 < text.count, !(text[i] == "*" && text[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "\"" || c == "#" {
                do { i = try skipLiteral(text, from: i) ?? i + 1 } catch { throw Unreadable(line: line(i)) }
            } else if i + marker.count <= text.count, Array(text[i..<i + marker.count]) == marker,
                i == 0 || !(text[i - 1].properties.isAlphabetic || text[i - 1] == "_")
            {
                i += marker.count
                while i < text.count, text[i].properties.isWhitespace { i += 1 }
                // Only a one-line literal is read: a sentence written otherwise would be missed, so it fails.
                guard i < text.count, text[i] == "\"", !isMultiline(text, at: i) else { throw Unreadable(line: line(i)) }
                guard let (end, template) = try? literal(text, from: i + 1) else { throw Unreadable(line: line(i)) }
                found.append((template, line(i)))
                i = end
            } else {
                i += 1
            }
        }
        return found
    }

    private static func isMultiline(_ text: [Unicode.Scalar], at i: Int) -> Bool {
        i + 2 < text.count && text[i + 1] == "\"" && text[i + 2] == "\""
    }

    /// Past the end of a literal starting at `i` (`"…"`, `"""…"""`, `#"…"#`); nil when no
    /// literal starts there.
    private static func skipLiteral(_ text: [Unicode.Scalar], from start: Int) throws -> Int? {
        var i = start
        var hashes = 0
        while i < text.count, text[i] == "#" {
            hashes += 1
            i += 1
        }
        guard i < text.count, text[i] == "\"" else { return nil }
        if hashes == 0, !isMultiline(text, at: i) { return try literal(text, from: i + 1).end }
        let quotes = isMultiline(text, at: i) ? 3 : 1
        let close = Array(repeating: Unicode.Scalar("\""), count: quotes) + Array(repeating: Unicode.Scalar("#"), count: hashes)
        i += quotes
        while i + close.count <= text.count {
            if hashes == 0, text[i] == "\\" {
                i += 2
                continue
            }
            if Array(text[i..<i + close.count]) == close { return i + close.count }
            i += 1
        }
        throw Unreadable(line: 0)
    }

    /// The one-line literal whose text starts at `start`: past its end, and its template.
    private static func literal(_ text: [Unicode.Scalar], from start: Int) throws -> (end: Int, template: String) {
        var template = String.UnicodeScalarView()
        var holes = 0
        var i = start
        while i < text.count {
            let c = text[i]
            switch c {
            case "\"": return (i + 1, String(template))
            case "\n": throw Unreadable(line: 0)
            case "\\":
                guard i + 1 < text.count else { throw Unreadable(line: 0) }
                let next = text[i + 1]
                switch next {
                case "(":
                    i = try interpolationEnd(text, from: i + 2)
                    template.append(contentsOf: "{\(holes)}".unicodeScalars)
                    holes += 1
                    continue
                case "u":
                    guard let close = text[(i + 2)...].firstIndex(of: "}"),
                        let value = UInt32(String(String.UnicodeScalarView(text[(i + 3)..<close])), radix: 16),
                        let scalar = Unicode.Scalar(value)
                    else { throw Unreadable(line: 0) }
                    template.append(scalar)
                    i = close + 1
                    continue
                case "n": template.append("\n")
                case "t": template.append("\t")
                case "r": template.append("\r")
                case "0": template.append("\0")
                default: template.append(next)
                }
                i += 2
            default:
                template.append(c)
                i += 1
            }
        }
        throw Unreadable(line: 0)
    }

    /// Past the `)` closing an interpolation whose expression starts at `start`.
    private static func interpolationEnd(_ text: [Unicode.Scalar], from start: Int) throws -> Int {
        var depth = 1
        var i = start
        while i < text.count {
            switch text[i] {
            case "\"", "#":
                if let end = try skipLiteral(text, from: i) {
                    i = end
                    continue
                }
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        throw Unreadable(line: 0)
    }
}

import Foundation
import HTTPTypes
import Testing

@testable import SportLook

@Suite("Bearer token")
struct BearerTokenTests {
    @Test("the token is read as Foundation's white-space trimming reads it, the scheme in any case")
    func trimming() {
        let tokens = [
            "abc", " abc", "abc ", "\tabc\t", "  a b  ", "", "   ", "\u{a0}abc\u{a0}", " \u{3000}abc", "abc\u{2003} ", "ä", " ü ",
            "a\u{a0}", " \u{301}abc", "abc \u{301}", "\u{200B}abc", "abc\u{200B}", "\t \t",
        ]
        for token in tokens {
            #expect(BearerToken.trimmed(Substring(token)) == token.trimmingCharacters(in: .whitespaces), "\(Array(token.unicodeScalars))")
            for scheme in ["Bearer", "bearer", "BEARER"] {
                let expected = token.trimmingCharacters(in: .whitespaces)
                #expect(BearerToken.parse([.authorization: "\(scheme) \(token)"]) == (expected.isEmpty ? nil : expected))
            }
        }
        #expect(BearerToken.parse([.authorization: "Basic abc"]) == nil)
        #expect(BearerToken.parse([.authorization: "Bearer"]) == nil)
        #expect(BearerToken.parse([:]) == nil)
    }

    @Test("a header's values are read joined as HTTPFields joins them, the Authorization header among them")
    func joinedValues() {
        let names: [HTTPField.Name] = [.authorization, .cookie, .origin, .accept]
        let cases: [[HTTPField]] = [
            [],
            [HTTPField(name: .authorization, value: "Bearer abc")],
            [
                HTTPField(name: .accept, value: "*/*"), HTTPField(name: .authorization, value: "Bearer abc"),
                HTTPField(name: .authorization, value: "Bearer def"),
            ],
            [
                HTTPField(name: .cookie, value: "a=1"), HTTPField(name: .origin, value: "https://x"),
                HTTPField(name: .cookie, value: "b=2"), HTTPField(name: .cookie, value: ""),
            ],
            [HTTPField(name: HTTPField.Name("AUTHORIZATION")!, value: "Bearer upper")],
        ]
        for fields in cases {
            let headers = HTTPFields(fields)
            for name in names {
                #expect(headers.joinedValues(name) == headers[name], "\(name) in \(fields)")
            }
            #expect(BearerToken.parse(headers) == headers[.authorization].flatMap { BearerToken.parse([.authorization: $0]) })
        }
        // Two Authorization fields are one value: no token is taken from it alone.
        #expect(BearerToken.parse(HTTPFields(cases[2])) == "abc, Bearer def")
    }

    @Test("an ASCII Authorization value is read byte by byte as the split by characters reads it")
    func asciiReading() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "Bearer", "bearer", "BEARER", "BeArEr", "Bearer ", "Basic", "Bearerx", "xBearer", " ", "  ", "\t", "abc", "a b", "-_", "é",
            "\u{301}", "B", ",", "",
        ]
        var headers = [
            "", " ", "Bearer", "Bearer ", "Bearer  ", "Bearer abc", "  Bearer abc", "Bearer\tabc", "Bearer \tabc\t ", "bearer a b c",
            "Bearer  \u{301}abc", "BEARER é",
        ]
        for _ in 0..<5_000 {
            headers.append((0..<Int.random(in: 1...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        for header in headers {
            #expect(BearerToken.parse(header: header) == BearerToken.parseSplitting(header), "\(Array(header.unicodeScalars))")
        }
    }

    @Test("a token's cache key holds the digest the database stores, and tells tokens apart")
    func digestKey() {
        var seen = Set<AccessToken.Digest>()
        for _ in 0..<500 {
            let token = AccessToken.generate()
            let key = AccessToken.Digest(token)
            #expect(key.hex == AccessToken.digest(token))
            #expect(key == AccessToken.Digest(String(token)))
            #expect(seen.insert(key).inserted)
        }
        #expect(AccessToken.Digest("").hex == AccessToken.digest(""))
    }

    @Test("a well-formed token is 43 base64url characters: generated ones are, others are not")
    func wellFormed() {
        for _ in 0..<200 { #expect(AccessToken.isWellFormed(AccessToken.generate())) }
        let good = AccessToken.generate()
        #expect(!AccessToken.isWellFormed(String(good.dropLast())))
        #expect(!AccessToken.isWellFormed(good + "A"))
        #expect(!AccessToken.isWellFormed(""))
        for bad in ["+", "/", "=", " ", ".", "é", "\u{0}"] {
            #expect(!AccessToken.isWellFormed(String(good.dropLast(bad.utf8.count)) + bad), "\(bad)")
        }
        // 43 bytes in 42 characters, one of them not base64url.
        #expect(!AccessToken.isWellFormed(String(good.dropLast(2)) + "ü"))
        #expect(AccessToken.isWellFormed(String(repeating: "-_aZ09", count: 7) + "x"))
    }
}

import Foundation
import HTTPTypes
import Testing
@testable import SportLook

@Suite("Bearer token")
struct BearerTokenTests {
    @Test("the token is read as Foundation's white-space trimming reads it, the scheme in any case")
    func trimming() {
        let tokens = ["abc", " abc", "abc ", "\tabc\t", "  a b  ", "", "   ", "\u{a0}abc\u{a0}", " \u{3000}abc", "abc\u{2003} ", "ä", " ü ", "a\u{a0}", " \u{301}abc", "abc \u{301}", "\u{200B}abc", "abc\u{200B}", "\t \t"]
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

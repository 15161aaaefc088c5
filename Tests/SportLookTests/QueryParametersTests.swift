import Hummingbird
import HummingbirdCore
import Testing

@testable import SportLook

/// The query is split by our own reader; clients were written against what
/// Hummingbird's `URI.queryParameters` reads, so ours must read the same values.
@Suite("Query parameters")
struct QueryParametersTests {
    @Test("values are read as written, percent-decoded, first pair winning")
    func values() {
        let q = QueryParameters("lat=52.52&lon=13.405&radiusKm=5&sport=beach%20volley&q=a+b&lat=1&empty=&bare&%41=x&bad=1%2&cut=%4")
        #expect(q.get("lat") == "52.52")
        #expect(q.get("lon") == "13.405")
        #expect(q.get("radiusKm") == "5")
        #expect(q.get("sport") == "beach volley")
        // `+` is not a space in a query read this way.
        #expect(q.get("q") == "a+b")
        #expect(q.get("empty") == "")
        #expect(q.get("bare") == "")
        // Names are compared as written, not decoded.
        #expect(q.get("%41") == "x")
        #expect(q.get("A") == nil)
        // A value whose escapes are broken is kept as written.
        #expect(q.get("bad") == "1%2")
        #expect(q.get("cut") == "%4")
        #expect(q.get("radius") == nil)
        #expect(q.get("radiusKmX") == nil)
        // Names compare as strings do: a Kelvin sign is a K (as Hummingbird's lookup has it).
        #expect(QueryParameters("radius\u{212A}m=5").get("radiusKm") == "5")
        #expect(QueryParameters("radiusKm=5").get("radius\u{212A}m") == "5")
        #expect(QueryParameters(nil).get("lat") == nil)
        #expect(QueryParameters("").get("") == nil)
        #expect(QueryParameters("&&a=1&").get("a") == "1")
        #expect(QueryParameters("&&a=1&").get("") == "")
        #expect(QueryParameters("name=%C3%A9t%C3%A9").get("name") == "été")
        #expect(QueryParameters("a=b=c").get("a") == "b=c")
    }

    @Test("every name of random queries reads what Hummingbird's parser reads")
    func sameAsHummingbird() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab=&%2Fz+é4K\u{212A}".unicodeScalars)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0..<24, using: &generator)
            let query = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
            let theirs = URI("/v1/x?" + query).queryParameters
            let ours = QueryParameters(query)
            var names = Set(theirs.map { String($0.key) })
            names.formUnion(["a", "b", "ab", "", "z", "%2F", "é", "K", "\u{212A}", "aK"])
            for name in names {
                #expect(ours.get(name) == theirs.get(name), "\(query) \(name)")
            }
        }
    }

    @Test("numbers are read as Double(text) reads them, to the bit")
    func numbers() {
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "0", "-0", "00", "0.0", "-0.000", "1", "52.520008", "-13.404954", "180", "-90.0000001", "5", "0.1", "0.3", "123456789012345",
            "1234567890123456", "0.123456789012345", "9007199254740993", "1.", ".5", "-", "", "+5", "1e3", "1E-2", "0x1p3", "nan", "inf",
            "-.5", "1.2.3", "12a", " 1", "1 ", "--1", "1-", "٣", "９", "999999999999999.9", "0.0000000000000001",
        ]
        let digits = Array("0123456789")
        for _ in 0..<20_000 {
            let whole = String((0..<Int.random(in: 0...9, using: &generator)).map { _ in digits.randomElement(using: &generator)! })
            let fraction = String((0..<Int.random(in: 0...16, using: &generator)).map { _ in digits.randomElement(using: &generator)! })
            let sign = Bool.random(using: &generator) ? "-" : ""
            texts.append(sign + whole + (fraction.isEmpty && Bool.random(using: &generator) ? "" : "." + fraction))
        }
        for text in texts {
            let ours = QueryReader.number(text)
            let theirs = Double(text)
            #expect(ours?.bitPattern == theirs?.bitPattern, "\(text)")
        }
    }
}

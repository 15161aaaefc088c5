import Foundation
import Testing

@testable import SportLook

@Suite("Card compaction")
struct CardCompactionTests {
    static let sports = SportCatalog([
        Sport(slug: "football", name: "Football", bit: 0), Sport(slug: "beach-volleyball", name: "Beach volleyball", bit: 1),
    ])
    static let links = MediaLinks(
        base: "https://cdn.example.com", signer: MediaURLSigner(secret: Array("a secret of thirty-two bytes or more".utf8)))

    static func event(
        title: String = "Sunday meetup", description: String = "Bring water.", address: String? = nil, capacity: Int? = 12,
        status: EventStatus = .active, cover: MediaRef? = nil
    ) -> Event {
        let now = Date(timeIntervalSince1970: 1_795_000_000.123)
        return Event(
            id: UUID(), organiserID: UUID(), organiserName: "Ana B", sport: "football", title: title, description: description,
            address: address,
            cover: cover, location: Coordinate(lat: 48.8566, lon: 2.3522), startsAt: now.addingTimeInterval(86_400),
            endsAt: now.addingTimeInterval(90_000),
            capacity: capacity, status: status, goingCount: 3, waitlistCount: 0, version: 1, createdAt: now, updatedAt: now)
    }

    static func roundTrip(_ json: [UInt8]) -> (kept: [UInt8], back: [UInt8]) {
        let kept = CardCompaction.compact(json)
        var back: [UInt8] = Array("prefix".utf8)
        kept.withUnsafeBytes { CardCompaction.expand($0, into: &back) }
        return (kept, Array(back.dropFirst(6)))
    }

    @Test("every kind of card comes back byte for byte, in about half its bytes")
    func cardsRoundTrip() {
        let cover = MediaRef(
            id: UUID(), variants: [.init(name: "512", key: "media/a-512.jpg"), .init(name: "128", key: "media/a-128.jpg")])
        let events = [
            Self.event(),
            Self.event(address: "1 Rue de Rivoli, Paris", capacity: nil, status: .cancelled, cover: cover),
            // Values that look like the fragments, control characters, quotes, other scripts.
            Self.event(
                title: #"","title":"{"id":" ,"lon": }"#, description: "line\nbreak \u{1} tab\t \"quoted\" 東京 🏐 \\", address: #"","name":""#),
            Self.event(title: String(repeating: "é", count: 200), description: String(repeating: "x", count: 2_000)),
        ]
        for event in events {
            let json = EventJSON.body(event, sports: Self.sports, links: Self.links)
            let (kept, back) = Self.roundTrip(json)
            #expect(back == json)
            #expect(!kept.isEmpty && kept[0] != 0, "a card made by the encoder is compacted")
        }
        let typical = EventJSON.body(Self.event(), sports: Self.sports, links: Self.links)
        #expect(Self.roundTrip(typical).kept.count * 10 < typical.count * 4, "a typical card keeps under 40% of its bytes")
    }

    @Test("any bytes come back as they were: raw control bytes, fragments cut short, nothing at all")
    func anyBytesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        let long = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let pieces: [[UInt8]] =
            CardCompaction.fragments.map { Array($0.utf8) }
            + [
                [0], [1], [0x1F], Array(#"{"i"#.utf8), Array(#"","#.utf8), Array("plain".utf8), long, Array(long[..<255]),
                Array(long[..<256]),
            ]
        #expect(Self.roundTrip([]).back == [])
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                if Bool.random(using: &generator) {
                    bytes += pieces.randomElement(using: &generator)!
                } else {
                    bytes.append(UInt8.random(in: 0...255, using: &generator))
                }
            }
            #expect(Self.roundTrip(bytes).back == bytes)
        }
    }

    @Test("writing a card out reads none of the bytes after it, and writes at most the slack after its JSON")
    func staysInBounds() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        // Two readable pages, each before an unreadable one: whatever ends at a boundary
        // is read or written past only by a fault, which ends the test run.
        let memory = try #require(mmap(nil, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(memory != MAP_FAILED)
        defer { munmap(memory, 4 * page) }
        try #require(mprotect(memory + page, page, PROT_NONE) == 0)
        try #require(mprotect(memory + 3 * page, page, PROT_NONE) == 0)
        let keptEnd = memory + page
        let jsonEnd = memory + 3 * page
        var generator = SystemRandomNumberGenerator()
        var cards = [
            EventJSON.body(Self.event(), sports: Self.sports, links: Self.links),
            EventJSON.body(Self.event(description: String(repeating: "x", count: 600)), sports: Self.sports, links: Self.links),
        ]
        for _ in 0..<200 {
            cards.append((0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        for json in cards {
            let kept = CardCompaction.compact(json)
            #expect(kept.count <= page && json.count + CardCompaction.slack <= page)
            // The kept bytes end at the first boundary; the JSON and its slack at the second.
            let source = UnsafeMutableRawBufferPointer(start: keptEnd - kept.count, count: kept.count)
            source.copyBytes(from: kept)
            let out = jsonEnd - json.count - CardCompaction.slack
            #expect(CardCompaction.expand(UnsafeRawBufferPointer(source), to: out) == json.count)
            #expect(Array(UnsafeRawBufferPointer(start: out, count: json.count)) == json)
        }
    }
}

import Foundation
import Testing
@testable import SportLook

@Suite("Card compaction")
struct CardCompactionTests {
    static let sports = SportCatalog([Sport(slug: "football", name: "Football", bit: 0), Sport(slug: "beach-volleyball", name: "Beach volleyball", bit: 1)])
    static let links = MediaLinks(base: "https://cdn.example.com", signer: MediaURLSigner(secret: Array("a secret of thirty-two bytes or more".utf8)))

    static func event(title: String = "Sunday meetup", description: String = "Bring water.", address: String? = nil, capacity: Int? = 12,
                      status: EventStatus = .active, cover: MediaRef? = nil) -> Event {
        let now = Date(timeIntervalSince1970: 1_795_000_000.123)
        return Event(id: UUID(), organiserID: UUID(), organiserName: "Ana B", sport: "football", title: title, description: description, address: address,
                     cover: cover, location: Coordinate(lat: 48.8566, lon: 2.3522), startsAt: now.addingTimeInterval(86_400), endsAt: now.addingTimeInterval(90_000),
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
        let cover = MediaRef(id: UUID(), variants: [.init(name: "512", key: "media/a-512.jpg"), .init(name: "128", key: "media/a-128.jpg")])
        let events = [
            Self.event(),
            Self.event(address: "1 Rue de Rivoli, Paris", capacity: nil, status: .cancelled, cover: cover),
            // Values that look like the fragments, control characters, quotes, other scripts.
            Self.event(title: #"","title":"{"id":" ,"lon": }"#, description: "line\nbreak \u{1} tab\t \"quoted\" 東京 🏐 \\", address: #"","name":""#),
            Self.event(title: String(repeating: "é", count: 200), description: String(repeating: "x", count: 2_000)),
        ]
        for event in events {
            let json = EventJSON.body(event, sports: Self.sports, links: Self.links)
            let (kept, back) = Self.roundTrip(json)
            #expect(back == json)
            #expect(!kept.isEmpty && kept[0] != 0, "a card made by the encoder is compacted")
        }
        let typical = EventJSON.body(Self.event(), sports: Self.sports, links: Self.links)
        #expect(Self.roundTrip(typical).kept.count * 10 < typical.count * 6, "a typical card keeps under 60% of its bytes")
    }

    @Test("any bytes come back as they were: raw control bytes, fragments cut short, nothing at all")
    func anyBytesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = CardCompaction.fragments.map { Array($0.utf8) } + [[0], [1], [0x1F], Array(#"{"i"#.utf8), Array(#"","#.utf8), Array("plain".utf8)]
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
}

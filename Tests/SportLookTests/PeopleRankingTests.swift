import GeoGrid
import Testing
@testable import SportLook

@Suite("People nearby ranking")
struct PeopleRankingTests {
    @Test("the first people in page order are those a full sort puts first: most shared sports, then nearest, then by key")
    func mostShared() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let count = round < 20 ? round : Int.random(in: 0..<3_000, using: &generator)
            // As the grid gives them: nearest first, ties (frequent here) by key.
            let found = (0..<count).map { i -> PeopleService.Ranked in
                (shared: Int.random(in: 0...(round % 2 == 0 ? 3 : 64), using: &generator), distance: Double(Int.random(in: 0..<200, using: &generator)) * 25,
                 key: GeoKey(Int.random(in: 0..<1_000_000, using: &generator) * 10_000 + i), tags: GeoTags())
            }.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.key < $1.key }
            let sorted = found.sorted { a, b in
                if a.shared != b.shared { return a.shared > b.shared }
                if a.distance != b.distance { return a.distance < b.distance }
                return a.key < b.key
            }
            for first in [1, 21, 51, 101] {
                let page = PeopleService.mostShared(found, first: first)
                #expect(page.map(\.key) == sorted.prefix(first).map(\.key))
                #expect(page.map(\.shared) == sorted.prefix(first).map(\.shared))
            }
        }
    }
}

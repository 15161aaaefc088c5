import Foundation

/// The sports people can play, from `Seeds/sports.json`, kept in memory.
///
/// Each sport has a bit (its position in the file) used by the spatial indexes'
/// category masks, so the catalogue holds at most 64 sports and new ones are
/// appended to the file.
public struct SportCatalog: Sendable {
    /// The sports, in catalogue order.
    public let all: [Sport]
    private let bySlug: [String: Sport]
    /// The slug of each bit as a JSON string (nil for a bit no sport has).
    private let jsonSlugByBit: [[UInt8]?]

    init(_ sports: [Sport]) {
        all = sports.sorted { $0.bit < $1.bit }
        bySlug = Dictionary(uniqueKeysWithValues: sports.map { ($0.slug, $0) })
        var jsonSlugByBit = [[UInt8]?](repeating: nil, count: 64)
        for sport in sports where (0..<64).contains(sport.bit) {
            var json = JSONWriter(capacity: sport.slug.utf8.count + 2)
            json.value(sport.slug)
            jsonSlugByBit[sport.bit] = json.bytes
        }
        self.jsonSlugByBit = jsonSlugByBit
    }

    /// Writes the slugs whose bits are in `mask`, in catalogue order, as a JSON array
    /// (each slug's JSON made once: a page of people writes one list a person).
    func writeSlugs(in mask: UInt64, to json: inout JSONWriter) {
        json.arrayStart()
        var rest = mask
        while rest != 0 {
            if let slug = jsonSlugByBit[rest.trailingZeroBitCount] { json.raw(slug) }
            rest &= rest - 1
        }
        json.arrayEnd()
    }

    /// The sport with this slug.
    public subscript(slug: String) -> Sport? { bySlug[slug] }

    /// The mask of a set of sports.
    func mask(of slugs: some Sequence<String>) -> UInt64 {
        slugs.reduce(0) { mask, slug in bySlug[slug].map { mask | (1 << UInt64($0.bit)) } ?? mask }
    }
}

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
    /// The slug of each bit (nil for a bit no sport has).
    private let slugByBit: [String?]

    init(_ sports: [Sport]) {
        all = sports.sorted { $0.bit < $1.bit }
        bySlug = Dictionary(uniqueKeysWithValues: sports.map { ($0.slug, $0) })
        var slugByBit = [String?](repeating: nil, count: 64)
        for sport in sports where (0..<64).contains(sport.bit) { slugByBit[sport.bit] = sport.slug }
        self.slugByBit = slugByBit
    }

    /// The sport with this slug.
    public subscript(slug: String) -> Sport? { bySlug[slug] }

    /// The mask of a set of sports.
    func mask(of slugs: some Sequence<String>) -> UInt64 {
        slugs.reduce(0) { mask, slug in bySlug[slug].map { mask | (1 << UInt64($0.bit)) } ?? mask }
    }

    /// The slugs whose bits are in `mask`, in catalogue order.
    func slugs(in mask: UInt64) -> [String] {
        var slugs: [String] = []
        slugs.reserveCapacity(mask.nonzeroBitCount)
        var rest = mask
        while rest != 0 {
            if let slug = slugByBit[rest.trailingZeroBitCount] { slugs.append(slug) }
            rest &= rest - 1
        }
        return slugs
    }
}

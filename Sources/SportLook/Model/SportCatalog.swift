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

    init(_ sports: [Sport]) {
        all = sports.sorted { $0.bit < $1.bit }
        bySlug = Dictionary(uniqueKeysWithValues: sports.map { ($0.slug, $0) })
    }

    /// The sport with this slug.
    public subscript(slug: String) -> Sport? { bySlug[slug] }

    /// The mask of a set of sports.
    func mask(of slugs: some Sequence<String>) -> UInt64 {
        slugs.reduce(0) { mask, slug in bySlug[slug].map { mask | (1 << UInt64($0.bit)) } ?? mask }
    }

    /// The slugs whose bits are in `mask`, in catalogue order.
    func slugs(in mask: UInt64) -> [String] {
        all.filter { mask & (1 << UInt64($0.bit)) != 0 }.map(\.slug)
    }
}

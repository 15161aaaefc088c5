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
    /// Every sport's slug as a JSON string, one after another, and where each bit's is
    /// (an empty span for a bit no sport has). Flat, so that writing a slug copies bytes
    /// and touches no reference count: when each slug was its own array, the pages of
    /// both cores retained and released the same arrays, a contended atomic each time.
    private let slugJSON: [UInt8]
    private let slugSpans: [SlugSpan]
    private let longestSlugJSON: Int

    private struct SlugSpan: BitwiseCopyable {
        var start: Int32 = 0
        var count: Int32 = 0
    }

    init(_ sports: [Sport]) {
        all = sports.sorted { $0.bit < $1.bit }
        bySlug = Dictionary(uniqueKeysWithValues: sports.map { ($0.slug, $0) })
        var flat: [UInt8] = []
        var spans = [SlugSpan](repeating: SlugSpan(), count: 64)
        for sport in all where (0..<64).contains(sport.bit) {
            var json = JSONWriter(capacity: sport.slug.utf8.count + 2)
            json.value(sport.slug)
            spans[sport.bit] = SlugSpan(start: Int32(flat.count), count: Int32(json.bytes.count))
            flat += json.bytes
        }
        slugJSON = flat
        slugSpans = spans
        longestSlugJSON = spans.map { Int($0.count) }.max() ?? 0
    }

    /// Writes the slugs whose bits are in `mask`, in catalogue order, as a JSON array
    /// (each slug's JSON made once: a page of people writes one list a person).
    func writeSlugs(in mask: UInt64, to json: inout some JSONOutput) {
        json.arrayStart()
        slugJSON.withUnsafeBufferPointer { slugs in
            var rest = mask
            while rest != 0 {
                let span = slugSpans[rest.trailingZeroBitCount]
                if span.count > 0 {
                    json.raw(UnsafeBufferPointer(rebasing: slugs[Int(span.start)..<Int(span.start + span.count)]))
                }
                rest &= rest - 1
            }
        }
        json.arrayEnd()
    }

    /// The most bytes ``writeSlugs(in:to:)`` writes for `mask`.
    func slugListBound(in mask: UInt64) -> Int { 2 + mask.nonzeroBitCount * (longestSlugJSON + 1) }

    /// The sport with this slug.
    public subscript(slug: String) -> Sport? { bySlug[slug] }

    /// The mask of a set of sports.
    func mask(of slugs: some Sequence<String>) -> UInt64 {
        slugs.reduce(0) { mask, slug in bySlug[slug].map { mask | (1 << UInt64($0.bit)) } ?? mask }
    }
}

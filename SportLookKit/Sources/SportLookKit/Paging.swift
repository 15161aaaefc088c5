import Foundation

/// A list read page by page as it is iterated: each element is a page of plain models
/// (an app shows one page, then asks for the next); ``all()`` reads them all.
public struct Pages<Item: Sendable>: AsyncSequence, Sendable {
    /// One page of items, in the list's order.
    public typealias Element = [Item]
    let fetch: @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)

    init(fetch: @escaping @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)) { self.fetch = fetch }

    /// Reads the pages in order, fetching each when asked for it.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let fetch: @Sendable (_ cursor: String?) async throws -> (items: [Item], next: String?)
        var cursor: String?
        var done = false

        /// The next page; nil after the last.
        public mutating func next() async throws -> [Item]? {
            guard !done else { return nil }
            let page = try await fetch(cursor)
            cursor = page.next
            done = page.next == nil
            return page.items
        }
    }

    /// Starts from the first page (iterating again reads the list anew).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(fetch: fetch) }

    /// Every item of every page.
    public func all() async throws -> [Item] {
        var items: [Item] = []
        for try await page in self { items += page }
        return items
    }
}

import Foundation
import SportLookAPI

/// A page of a list as the server answers it: `{"items": [...], "next_cursor"}`. Every
/// list of the API conforms; ``SportLookClient/pages(_:)`` reads one page after another.
public protocol CursorPage: Sendable {
    associatedtype Item: Sendable
    /// The page's items, in the list's order.
    var items: [Item] { get }
    /// The cursor of the next page; nil on the last.
    var nextCursor: String? { get }
}

/// Every item of a paged list, fetched a page at a time as it is iterated (the next page
/// only once the items before are consumed). Iterating again starts from the first page.
public struct Paged<Page: CursorPage>: AsyncSequence, Sendable {
    public typealias Element = Page.Item
    let fetch: @Sendable (String?) async throws -> Page

    /// Reads the list a page at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let fetch: @Sendable (String?) async throws -> Page
        var buffered: [Page.Item] = []
        var index = 0
        var cursor: String?
        var finished = false

        /// The next item, fetching the next page when the one read is used up; nil after the last.
        public mutating func next() async throws -> Page.Item? {
            while index == buffered.count {
                guard !finished else { return nil }
                let page: Page
                do { page = try await fetch(cursor) } catch { throw SportLookError.from(error) ?? error }
                buffered = page.items
                index = 0
                cursor = page.nextCursor
                // A last page says so with no cursor; an empty page with one is read past.
                finished = page.nextCursor == nil
            }
            defer { index += 1 }
            return buffered[index]
        }
    }

    /// Starts from the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(fetch: fetch) }

    /// Pages read with `fetch` (``SportLookClient/pages(_:)`` makes them).
    public init(fetch: @escaping @Sendable (_ cursor: String?) async throws -> Page) { self.fetch = fetch }

    /// Every item, read to the end (for short lists).
    public func all() async throws -> [Page.Item] {
        var items: [Page.Item] = []
        for try await item in self { items.append(item) }
        return items
    }
}

extension Components.Schemas.EventPage: CursorPage {}
extension Components.Schemas.GroupPage: CursorPage {}
extension Components.Schemas.GroupMemberPage: CursorPage {}
extension Components.Schemas.GroupJoinRequestPage: CursorPage {}
extension Components.Schemas.BanPage: CursorPage {}
extension Components.Schemas.AttendeePage: CursorPage {}
extension Components.Schemas.InvitationPage: CursorPage {}
extension Components.Schemas.NotificationPage: CursorPage {}
extension Components.Schemas.ChatMessagePage: CursorPage {}
extension Components.Schemas.RoomListingPage: CursorPage {}
extension Components.Schemas.PersonNearbyPage: CursorPage {}
extension Components.Schemas.BlockedPage: CursorPage {}

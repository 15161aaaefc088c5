import Foundation

/// Who is blocked between a person and others, either way, cached: the people a
/// listing of people (attendees, people nearby) never shows them.
struct Blocks: Sendable {
    let cache: PeopleCache
    let safety: SafetyStore

    /// Everyone `user` blocked or was blocked by.
    func eitherWay(_ user: UUID) async throws -> Set<UUID> {
        try await cache.blocked(user) { [safety] in try await safety.blockedEitherWay(user) }
    }
}

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

extension Blocks {
    /// A message as someone who blocked the people in `hidden` sees it: nothing when
    /// one of them sent it; otherwise without their quoted text (the reply shows no
    /// quote), their reactions or their ids among the mentions. What the blocker
    /// receives never carries a blocked person's content or identity.
    static func view(_ message: ChatMessage, hiding hidden: Set<UUID>) -> ChatMessage? {
        guard !hidden.isEmpty else { return message }
        if hidden.contains(message.sender.id) { return nil }
        var seen = message
        if let reply = message.replyTo, hidden.contains(reply.sender.id) { seen.replyTo = nil }
        seen.mentions.removeAll { hidden.contains($0) }
        seen.reactions = message.reactions.compactMap { reaction in
            let users = reaction.users.filter { !hidden.contains($0) }
            return users.isEmpty ? nil : ChatReaction(emoji: reaction.emoji, users: users)
        }
        return seen
    }
}

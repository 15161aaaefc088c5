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
    /// A message as `viewer`, who blocked the people in `hidden`, sees it: nothing when
    /// one of them sent it; otherwise without their quoted text (the reply shows no
    /// quote), their reactions, their votes (but in an anonymous poll's counts) or their
    /// ids among the mentions. What the
    /// blocker receives never carries a blocked person's content or identity. A poll is
    /// not there for the people its author blocked either (it asks them to answer);
    /// it carries the viewer's own choices.
    static func view(_ message: ChatMessage, hiding hidden: Set<UUID>, viewer: UUID) -> ChatMessage? {
        guard !hidden.isEmpty || message.poll != nil else { return message }
        if hidden.contains(message.sender.id) { return nil }
        var seen = message
        if var poll = message.poll {
            if poll.hiddenFrom.contains(viewer) { return nil }
            // A poll read for one viewer is as they see it already (the same rule, in SQL:
            // `ChatStatements.PollSeen`), and not for anyone else.
            if let read = poll.seen {
                guard read.viewer == viewer else { return nil }
            } else {
                poll.mine = poll.options.indices.filter { poll.options[$0].voters.contains(viewer) }
                // An anonymous poll's counts are everyone's: a block must not tell whose vote is whose.
                if !poll.anonymous { for i in poll.options.indices { poll.options[i].voters.removeAll { hidden.contains($0) } } }
            }
            seen.poll = poll
        }
        guard !hidden.isEmpty else { return seen }
        if let reply = message.replyTo, hidden.contains(reply.sender.id) { seen.replyTo = nil }
        seen.mentions.removeAll { hidden.contains($0) }
        seen.reactions = message.reactions.compactMap { reaction in
            let users = reaction.users.filter { !hidden.contains($0) }
            return users.isEmpty ? nil : ChatReaction(emoji: reaction.emoji, users: users)
        }
        return seen
    }
}

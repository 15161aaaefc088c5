import SportLookAPI

/// A poll as the tests read it, within a chat message: the contract's own types.
extension API {
    /// A poll as its viewer sees it (`components/schemas/Poll`).
    typealias Poll = Components.Schemas.Poll
}

extension Components.Schemas.Poll {
    /// The votes for each option, in the options' order.
    var counts: [Int] { options.map(\.count) }
}

/// A socket frame of a poll.
extension API.Frame {
    /// A poll's votes alone (`components/schemas/FramePollVotes`): the rest of its
    /// message is as the socket was sent it.
    typealias PollVotes = Components.Schemas.FramePollVotes
}

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

import Foundation

@testable import SportLook

/// A poll as the tests read it, within a chat message.
extension API {
    /// A poll as its viewer sees it.
    struct Poll: Decodable, Sendable {
        struct Option: Decodable, Sendable {
            var position: Int
            var label: String
            @Nullable var startsAt: String?
            var count: Int
            var userIDs: [String]
            enum CodingKeys: String, CodingKey { case position, label, count, startsAt = "starts_at", userIDs = "user_ids" }
        }
        var kind: String
        var multiple: Bool
        var anonymous: Bool
        var onePerOption: Bool
        var closesAt: String
        var closed: Bool
        var options: [Option]
        var votersCount: Int
        var myVotes: [Int]
        @Nullable var eventID: String?
        @Nullable var seriesID: String?
        enum CodingKeys: String, CodingKey {
            case kind, multiple, anonymous, closed, options
            case onePerOption = "one_per_option", closesAt = "closes_at", votersCount = "voters_count", myVotes = "my_votes"
            case eventID = "event_id", seriesID = "series_id"
        }
        var counts: [Int] { options.map(\.count) }
    }
}

/// A socket frame of a poll.
extension API.Frame {
    /// A poll's votes alone: the rest of its message is as the socket was sent it.
    struct PollVotes: Decodable, Sendable {
        var roomID: String
        var eventID: String?
        var seq: Int
        var afterChange: Int
        var counts: [Int]
        var takenBy: [String?]
        var votersCount: Int
        var myVotes: [Int]

        enum CodingKeys: String, CodingKey {
            case seq, counts
            case roomID = "room_id"
            case eventID = "event_id"
            case afterChange = "after_change"
            case takenBy = "taken_by"
            case votersCount = "voters_count"
            case myVotes = "my_votes"
        }
    }
}

import Crypto
import Foundation

/// A person's calendar feed: a URL with a secret that a phone's calendar subscribes to
/// (it can send no token), listing the games they go to — going or organising, not
/// waitlisted — from a week ago on, cancelled ones included (so calendars mark them).
/// Only the secret's SHA-256 is kept; asking again makes a new one (the old URL stops),
/// and it can be removed.
struct CalendarFeeds: Sendable {
    let accounts: AccountStore
    let events: EventStore
    let write: Writer
    let clock: any AppClock

    /// Games a feed lists at most.
    static let limit = 500
    /// How long past games stay in the feed.
    static let keepPast: TimeInterval = 7 * 86_400

    /// A new secret for the user's feed, replacing any earlier one.
    func open(for user: UUID) async throws -> String {
        let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }.base64URLEncodedString()
        try await write { [accounts] sql, _ in try await accounts.setCalendarFeed(Self.digest(secret), of: user, on: sql) }
        return secret
    }

    /// Ends the user's feed.
    func close(for user: UUID) async throws {
        try await write { [accounts] sql, _ in try await accounts.setCalendarFeed(nil, of: user, on: sql) }
    }

    /// The feed of `secret`: whose it is and their games; nil when no feed has it.
    func feed(_ secret: String) async throws -> (name: String, events: [Event])? {
        guard secret.utf8.count == 43 else { return nil }
        guard let owner = try await accounts.calendarFeedOwner(Self.digest(secret)) else { return nil }
        // The owner's own changes are in what the feed shows, replica or not.
        Admission.identify(owner.id)
        let since = clock.now().addingTimeInterval(-Self.keepPast)
        // Calendar apps poll: their games come from a replica when one is there.
        let games = try await Database.lagTolerant { try await events.calendar(of: owner.id, since: since, limit: Self.limit) }
        return (owner.name, games)
    }

    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array("sportlook-calendar\n\(secret)".utf8)).hexString
    }
}

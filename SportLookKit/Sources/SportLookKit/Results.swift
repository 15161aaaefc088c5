import Foundation

/// Where the signed-in person stands after joining a game.
public struct Joined: Hashable, Sendable, Codable {
    /// Going, or on the waitlist.
    public var attendance: Attendance
    /// Their place on the waitlist, when they are on it.
    public var waitlistPosition: Int?
}

/// Someone going to a game (or waiting for a place), and where they stand.
public struct Attendee: Hashable, Sendable, Codable, Identifiable {
    /// The person's id.
    public var id: Person.ID { person.id }
    /// Who.
    public var person: Person
    /// Where they stand.
    public var attendance: Attendance
}

/// A member of a group and their role.
public struct Member: Hashable, Sendable, Codable, Identifiable {
    /// The person's id.
    public var id: Person.ID { person.id }
    /// Who.
    public var person: Person
    /// Their role.
    public var role: Group.Role
}

/// Someone's public profile.
public struct PublicProfile: Hashable, Sendable, Codable, Identifiable {
    /// The person's id.
    public var id: Person.ID { person.id }
    /// Who.
    public var person: Person
    /// What they say about themselves.
    public var bio: String
    /// The slugs of the sports they play.
    public var sports: [String]
}

/// A sign-in provider linked to the account.
public struct LinkedProvider: Hashable, Sendable, Codable {
    /// `apple`, `google` or `facebook`.
    public var provider: String
    /// The email the provider gave, when it gave one.
    public var email: String?
}

/// A device registered for pushes.
public struct RegisteredDevice: Hashable, Sendable, Codable, Identifiable {
    /// The registration's id (to remove it on sign-out).
    public var id: String
    /// `ios`, `android` or `web`.
    public var platform: String
}

/// Whether this server takes cards, and whether the signed-in person can be paid by card.
public struct Payouts: Hashable, Sendable, Codable {
    /// The server takes card payments.
    public var cardPayments: Bool
    /// The person connected a payout account.
    public var connected: Bool
    /// Card payments to them can be taken now.
    public var chargesEnabled: Bool
}

/// What the signed-in person owes (positive) or is owed, per game and per group.
public struct Balances: Hashable, Sendable, Codable {
    /// One game's balance.
    public struct GameBalance: Hashable, Sendable, Codable {
        /// The game.
        public var event: Event.ID
        /// Its title.
        public var title: String
        /// Owed (positive) or owed to them (negative).
        public var amount: Money
    }

    /// One group's dues balance.
    public struct GroupBalance: Hashable, Sendable, Codable {
        /// The group.
        public var group: Group.ID
        /// Its name.
        public var name: String
        /// Owed (positive) or owed to them (negative).
        public var amount: Money
    }

    /// The games with a balance.
    public var games: [GameBalance]
    /// The groups with a balance.
    public var groups: [GroupBalance]
}

/// What a staff act settled: how many reports or jobs, and the audit log's entry.
public struct Settled: Hashable, Sendable, Codable {
    /// How many reports were resolved, or jobs retried or dropped.
    public var count: Int
    /// The act, as the audit log keeps it.
    public var action: AuditEntry
}

/// Where a room's stream stands: the last message and change it was given.
public struct RoomPosition: Hashable, Sendable, Codable {
    /// The last message's number.
    public var seq: Int
    /// The last change's number.
    public var change: Int
}

/// A message of this session not yet confirmed stored.
public struct UnsentMessage: Hashable, Sendable, Codable {
    /// Its room.
    public var room: String
    /// The id that makes sending it again store it once.
    public var clientID: String
    /// Its text.
    public var body: String
    /// The message it answers.
    public var replyTo: Int?
}

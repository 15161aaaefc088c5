import Foundation
internal import SportLookAPI

/// An id that names one kind of thing: an `Event.ID` is not a `Person.ID`, though both
/// wrap a UUID. Written as the server writes ids (lowercase).
public struct Identifier<Subject>: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The UUID it wraps.
    public let uuid: UUID

    /// The id of a UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id in a server's text; nil for text that is not a UUID.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    public var description: String { uuid.uuidString.lowercased() }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let uuid = UUID(uuidString: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an id: \(text)"))
        }
        self.uuid = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// An id the server sent: a malformed one is a broken answer, not a crash.
    static func parse(_ text: String) throws -> Self {
        guard let id = Self(text) else { throw SportLookError.malformed("not an id: \(text)") }
        return id
    }
}

/// A place on the map.
public struct Place: Hashable, Sendable, Codable {
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double

    /// A place at these coordinates.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// An amount of money in a currency's minor units (`2550` EUR is 25.50 €).
public struct Money: Hashable, Sendable, Codable {
    /// The amount in the currency's smallest unit (cents, øre).
    public var minorUnits: Int
    /// The ISO 4217 code (`EUR`, `DKK`).
    public var currency: String

    /// An amount in minor units of a currency.
    public init(minorUnits: Int, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency
    }
}

/// Levels on the 0–7 scale, in half steps.
public struct LevelRange: Hashable, Sendable, Codable {
    /// The lowest level.
    public var min: Double
    /// The highest level.
    public var max: Double

    /// Levels from `min` to `max`.
    public init(min: Double, max: Double) {
        self.min = min
        self.max = max
    }

    /// Whether a player of `level` may join.
    public func admits(_ level: Double) -> Bool { (min...max).contains(level) }
}

/// Someone, as lists and cards name them.
public struct Person: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<Person>
    public var id: ID
    /// Their name.
    public var name: String

    /// Someone with this id and name.
    public init(id: ID, name: String) {
        self.id = id
        self.name = name
    }

    init(_ summary: Components.Schemas.UserSummary) throws {
        self.init(id: try .parse(summary.id), name: summary.name)
    }
}

/// A sport of the server's list (`GET /v1/sports`).
public struct Sport: Hashable, Sendable, Codable {
    /// `football`, `padel`…
    public var slug: String
    /// Its name in English.
    public var name: String

    /// A sport of the list.
    public init(slug: String, name: String) {
        self.slug = slug
        self.name = name
    }
}

/// Who may join a game.
public enum Audience: String, Hashable, Sendable, Codable, CaseIterable {
    /// Everyone.
    case anyone
    /// Women only.
    case women
    /// Men only.
    case men
    /// Mixed teams.
    case mixed
}

/// Where the signed-in person stands on a game.
public enum Attendance: String, Hashable, Sendable, Codable, CaseIterable {
    /// Has a place.
    case going
    /// Waits for a place.
    case waitlisted
    /// Might come (no place taken).
    case maybe
}

/// What playing a game costs.
public struct Price: Hashable, Sendable, Codable {
    /// The whole price, or each person's share when ``split``.
    public var amount: Money
    /// Split among the people going.
    public var split: Bool
    /// Leaving closer than this to the start still owes the share.
    public var lateCancelHours: Int
}

/// A game: when and where, who organises it, how many are going, and where the signed-in
/// person stands.
public struct Event: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<Event>
    public var id: ID
    /// What the game is called.
    public var title: String
    /// Its sport.
    public var sport: Sport
    /// Who organises it.
    public var organiser: Person
    /// When it starts.
    public var startsAt: Date
    /// When it ends.
    public var endsAt: Date
    /// The IANA zone of the place (local times are computed in it).
    public var timeZone: String
    /// Where it is played.
    public var place: Place
    /// The address, in words.
    public var address: String?
    public var description: String
    /// Places in all; nil when there is no limit.
    public var capacity: Int?
    /// How many are going.
    public var goingCount: Int
    /// How many wait for a place.
    public var waitlistCount: Int
    /// Places free; nil when there is no limit.
    public var spotsLeft: Int?
    /// The levels it is for.
    public var level: LevelRange?
    /// Who may join.
    public var audience: Audience
    /// Whether results move levels.
    public var competitive: Bool
    /// What playing costs.
    public var price: Price?
    /// Whether it was cancelled.
    public var isCancelled: Bool
    /// Whether only its group's members may see and join it.
    public var membersOnly: Bool
    /// Where the signed-in person stands; nil when nowhere.
    public var myAttendance: Attendance?
    /// Their place on the waitlist.
    public var myWaitlistPosition: Int?
    /// Whether the signed-in person organises it.
    public var iOrganise: Bool
    /// How far from the searched point, in metres (nearby searches only).
    public var distanceMetres: Double?
    /// The cover photo's largest variant (relative to the server, or absolute).
    public var imageURL: String?

    init(_ event: Components.Schemas.Event) throws {
        id = try .parse(event.id)
        title = event.title
        sport = Sport(slug: event.sport.slug, name: event.sport.name)
        organiser = try Person(event.organiser)
        startsAt = event.startsAt
        endsAt = event.endsAt
        timeZone = event.timeZone
        place = Place(latitude: event.location.lat, longitude: event.location.lon)
        address = event.address
        description = event.description
        capacity = event.capacity
        goingCount = event.goingCount
        waitlistCount = event.waitlistCount
        spotsLeft = event.spotsLeft
        level = event.level.map { LevelRange(min: $0.value1.min, max: $0.value1.max) }
        audience = Audience(rawValue: event.audience.rawValue) ?? .anyone
        competitive = event.competitive
        price = event.price.map {
            Price(
                amount: Money(minorUnits: $0.value1.amount, currency: $0.value1.currency), split: $0.value1.split,
                lateCancelHours: $0.value1.lateCancelHours)
        }
        isCancelled = event.status == .cancelled
        membersOnly = event.membersOnly
        myAttendance = event.myStatus.flatMap { Attendance(rawValue: $0.value1.rawValue) }
        myWaitlistPosition = event.myPosition
        iOrganise = event.iOrganise ?? false
        distanceMetres = event.distanceM
        imageURL = event.imageUrl
    }
}

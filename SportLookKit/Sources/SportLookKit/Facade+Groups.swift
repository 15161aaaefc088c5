import Foundation
internal import SportLookAPI

/// A group: people who play together, with its own chat and games.
public struct Group: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<Group>
    /// How people get in.
    public enum Policy: String, Hashable, Sendable, Codable, CaseIterable {
        /// Anyone joins at once.
        case `public`
        /// An admin accepts each request.
        case approval
        /// Only with an invite link.
        case invite
    }

    /// A member's role.
    public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
        /// Made it, or was handed it; may do everything.
        case owner
        /// Takes requests, bans, changes the group.
        case admin
        /// Plays.
        case member
    }

    public var id: ID
    /// Its name.
    public var name: String
    public var description: String
    /// The slugs of its sports.
    public var sports: [String]
    /// Where it plays.
    public var place: Place
    /// How people join.
    public var policy: Policy
    /// Whether it is found in searches.
    public var listed: Bool
    /// How many members it has.
    public var memberCount: Int
    /// Its owner.
    public var owner: Person
    /// When it was made.
    public var createdAt: Date
    /// The signed-in person's role; nil when not a member.
    public var myRole: Role?
    /// Whether the signed-in person's request to join waits.
    public var myRequestWaits: Bool
    /// Whether the signed-in member silenced its notifications.
    public var muted: Bool
    /// How far from the searched point, in metres (nearby searches only).
    public var distanceMetres: Double?

    init(_ group: Components.Schemas.Group) throws {
        id = try .parse(group.id)
        name = group.name
        description = group.description
        sports = group.sports
        place = Place(latitude: group.location.lat, longitude: group.location.lon)
        policy = Policy(rawValue: group.policy.rawValue) ?? .approval
        listed = group.visibility == .listed
        memberCount = group.memberCount
        owner = try Person(group.owner)
        createdAt = group.createdAt
        myRole = group.myRole.flatMap { Role(rawValue: $0.value1.rawValue) }
        myRequestWaits = group.myRequest
        muted = group.muted
        distanceMetres = group.distanceM
    }
}

extension SportLookClient {
    /// Groups: find, make, join, leave, and their members.
    public var groups: Groups { Groups(client: self) }

    /// Groups: find, make, join, leave, and their members.
    public struct Groups: Sendable {
        let client: SportLookClient

        /// Listed groups within `kilometres` of `place`, nearest first, page by page.
        public func nearby(around place: Place, within kilometres: Double = 10, pageSize: Int = 50) -> Pages<Group> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.groupsNearby(
                        query: .init(lat: place.latitude, lon: place.longitude, radiusKm: kilometres, limit: pageSize, cursor: cursor)
                    ).ok.body.json
                }
                return (try page.items.map(Group.init), page.nextCursor)
            }
        }

        /// The signed-in person's groups, page by page.
        public func mine() -> Pages<Group> {
            Pages { cursor in
                let page = try await client.call { try await $0.myGroups(query: .init(limit: 100, cursor: cursor)).ok.body.json }
                return (try page.items.map(Group.init), page.nextCursor)
            }
        }

        /// One group (a members-only group's details to its members only).
        public func get(_ id: Group.ID) async throws -> Group {
            try Group(try await client.call { try await $0.getGroup(path: .init(id: id.description)).ok.body.json })
        }

        /// Makes a group; the signed-in person owns it. `dues`: each member's dues per
        /// `duesPeriod` (`week`, `month`, `year`, in `timeZone`'s calendar).
        public func create(
            name: String, place: Place, sports: [String] = [], policy: Group.Policy = .approval, listed: Bool = true, dues: Money? = nil,
            duesPeriod: String = "month", timeZone: String? = nil
        ) async throws -> Group {
            let slugs = try sports.map(Events.slug)
            var duesInput: Components.Schemas.NewGroup.DuesPayload?
            if let dues {
                guard let currency = Components.Schemas.DuesInput.CurrencyPayload(rawValue: dues.currency),
                    let period = Components.Schemas.DuesInput.PeriodPayload(rawValue: duesPeriod)
                else { throw SportLookError.malformed("dues in \(dues.currency) per \(duesPeriod) are not what the server takes") }
                duesInput = .init(value1: .init(amount: dues.minorUnits, currency: currency, period: period, timeZone: timeZone))
            }
            return try Group(
                try await client.call {
                    try await $0.createGroup(
                        body: .json(
                            .init(
                                name: name, sports: slugs, location: .init(lat: place.latitude, lon: place.longitude),
                                policy: .init(rawValue: policy.rawValue), visibility: listed ? .listed : .unlisted, dues: duesInput))
                    ).created.body.json
                })
        }

        /// Joins (a public group), or asks to (with `message` for the admins); `invite` is an
        /// invite link's code.
        public func requestToJoin(_ id: Group.ID, message: String? = nil, invite: String? = nil) async throws {
            _ = try await client.call {
                try await $0.joinGroup(path: .init(id: id.description), body: .json(.init(invite: invite, message: message))).ok
            }
        }

        /// Leaves the group (its owner hands it over first).
        public func leave(_ id: Group.ID) async throws {
            _ = try await client.call { try await $0.leaveGroup(path: .init(id: id.description)).noContent }
        }

        /// Its members, page by page, with their roles.
        public func members(of id: Group.ID) -> Pages<Member> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.listGroupMembers(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
                }
                return (
                    try page.items.map { Member(person: try Person($0.user), role: Group.Role(rawValue: $0.role.rawValue) ?? .member) },
                    page.nextCursor
                )
            }
        }

        /// Accepts a request to join (admins).
        public func accept(_ person: Person.ID, into id: Group.ID) async throws {
            _ = try await client.call {
                try await $0.acceptGroupRequest(path: .init(id: id.description, userId: person.description)).noContent
            }
        }

        /// Refuses a request to join (admins).
        public func refuse(_ person: Person.ID, from id: Group.ID) async throws {
            _ = try await client.call {
                try await $0.refuseGroupRequest(path: .init(id: id.description, userId: person.description)).noContent
            }
        }

        /// The group's coming games, page by page.
        public func events(of id: Group.ID) -> Pages<Event> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.groupEvents(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
                }
                return (try page.items.map(Event.init), page.nextCursor)
            }
        }
    }
}

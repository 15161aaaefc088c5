import Foundation
internal import SportLookAPI

/// A notification in the inbox.
public struct InboxItem: Hashable, Sendable, Codable, Identifiable {
    /// A notification's id.
    public typealias ID = Identifier<InboxItem>
    /// The notification's id.
    public var id: ID
    /// `invitation`, `chat_message`, `waitlist_offer`… (the kinds openapi.yaml lists).
    public var kind: String
    /// Its title, in the person's language.
    public var title: String?
    /// Its text.
    public var body: String?
    /// When it came.
    public var createdAt: Date
    /// When it was read; nil while unread.
    public var readAt: Date?
    /// The game it is about, when it is about one.
    public var event: Event.ID?
    /// The room it is about (a chat message, a poll).
    public var room: String?
    /// The message it is about, in ``room``.
    public var seq: Int?
    /// The group it is about (a request to join, its answer, a group's new game).
    public var group: Group.ID?
    /// The invitation it is about.
    public var invitation: Invitation.ID?
    /// The substitute request it is about (an offered place, a place filled).
    public var substituteRequest: SubstituteRequest.ID?
    /// The payment claim it is about.
    public var claim: PaymentClaim.ID?
    /// The staff's act it tells of (the `action` an appeal names).
    public var action: AuditEntry.ID?
    /// The person it is about: who wrote, invited, asked, claimed, entered a score or
    /// took a place.
    public var person: Person?

    init(_ item: Components.Schemas.Notification) throws {
        id = try .parse(item.id)
        kind = item.kind.rawValue
        title = item.title
        body = item.body
        createdAt = item.createdAt
        readAt = item.readAt
        let data = item.data
        event = data.eventId.flatMap(Event.ID.init)
        room = data.roomId
        seq = data.seq
        group = data.groupId.flatMap(Group.ID.init)
        invitation = data.invitationId.flatMap(Invitation.ID.init)
        substituteRequest = data.requestId.flatMap(SubstituteRequest.ID.init)
        claim = data.claimId.flatMap(PaymentClaim.ID.init)
        action = data.actionId.flatMap(AuditEntry.ID.init)
        let named = data.sender ?? data.inviter ?? data.requester ?? data.claimedBy ?? data.enteredBy ?? data.substitute
        person = named.flatMap { someone in Person.ID(someone.id).map { Person(id: $0, name: someone.name) } }
    }
}

/// Someone found nearby.
public struct PersonNearby: Hashable, Sendable, Codable, Identifiable {
    public var id: Person.ID { person.id }
    /// Who.
    public var person: Person
    /// What they say about themselves.
    public var bio: String?
    /// The slugs of the sports they play.
    public var sports: [String]
    /// How far away, in kilometres (rounded, so that no one is placed exactly).
    public var distanceKilometres: Double
}

/// An invitation to a game.
public struct Invitation: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<Invitation>
    /// Where an invitation stands.
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// Not answered yet.
        case pending
        /// Accepted.
        case accepted
        /// Declined.
        case declined
        /// Taken back by who sent it.
        case revoked
    }

    public var id: ID
    /// The game.
    public var event: Event.ID
    /// Who invited.
    public var inviter: Person
    /// Who was invited.
    public var invitee: Person
    /// Where it stands.
    public var status: Status
    /// When it was sent.
    public var createdAt: Date

    init(_ invitation: Components.Schemas.Invitation) throws {
        id = try .parse(invitation.id)
        event = try .parse(invitation.eventId)
        inviter = try Person(invitation.inviter)
        invitee = try Person(invitation.invitee)
        status = Status(rawValue: invitation.status.rawValue) ?? .pending
        createdAt = invitation.createdAt
    }
}

extension SportLookClient {
    /// People: find players nearby, see one, block and unblock.
    public var people: People { People(client: self) }
    /// The inbox.
    public var notifications: Notifications { Notifications(client: self) }
    /// Invitations to games, sent and received.
    public var invitations: Invitations { Invitations(client: self) }

    /// People: find players nearby, see one, block and unblock.
    public struct People: Sendable {
        let client: SportLookClient

        /// Discoverable people within `kilometres` of `place`, nearest first, page by page.
        public func nearby(around place: Place, within kilometres: Double = 10, pageSize: Int = 50) -> Pages<PersonNearby> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.peopleNearby(
                        query: .init(lat: place.latitude, lon: place.longitude, radiusKm: kilometres, limit: pageSize, cursor: cursor)
                    ).ok.body.json
                }
                let people = try page.items.map {
                    PersonNearby(
                        person: Person(id: try .parse($0.id), name: $0.name), bio: $0.bio, sports: $0.sports,
                        distanceKilometres: $0.distanceKm)
                }
                return (people, page.nextCursor)
            }
        }

        /// Blocks someone: neither sees the other in lists, chats or searches.
        public func block(_ person: Person.ID) async throws {
            _ = try await client.call { try await $0.blockUser(path: .init(id: person.description)).noContent }
        }

        /// Lifts a block.
        public func unblock(_ person: Person.ID) async throws {
            _ = try await client.call { try await $0.unblockUser(path: .init(id: person.description)).noContent }
        }

        /// The people the signed-in person blocked, page by page.
        public func blocked() -> Pages<Person> {
            Pages { cursor in
                let page = try await client.call { try await $0.myBlocks(query: .init(cursor: cursor)).ok.body.json }
                return (try page.items.map { Person(id: try .parse($0.id), name: $0.name) }, page.nextCursor)
            }
        }
    }

    /// The inbox.
    public struct Notifications: Sendable {
        let client: SportLookClient

        /// Notifications, newest first, page by page (`unreadOnly`: those not read yet).
        public func list(unreadOnly: Bool = false) -> Pages<InboxItem> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.myNotifications(query: .init(unread: unreadOnly ? true : nil, limit: 100, cursor: cursor))
                        .ok.body.json
                }
                return (try page.items.map(InboxItem.init), page.nextCursor)
            }
        }

        /// Marks these notifications read.
        public func markRead(_ ids: [InboxItem.ID]) async throws {
            guard !ids.isEmpty else { return }
            _ = try await client.call {
                try await $0.markNotificationsRead(body: .json(.case1(.init(ids: ids.map(\.description))))).noContent
            }
        }

        /// Marks every notification read.
        public func markAllRead() async throws {
            _ = try await client.call { try await $0.markNotificationsRead(body: .json(.case2(.init(all: true)))).noContent }
        }
    }

    /// Invitations to games, sent and received.
    public struct Invitations: Sendable {
        let client: SportLookClient

        /// Invites people to a game (each is notified).
        @discardableResult
        public func invite(_ people: [Person.ID], to event: Event.ID) async throws -> [Invitation] {
            try await client.call {
                try await $0.invite(path: .init(id: event.description), body: .json(.init(userIds: people.map(\.description))))
                    .created.body.json.items.map(Invitation.init)
            }
        }

        /// The signed-in person's invitations, page by page.
        public func received(_ status: Invitation.Status? = nil) -> Pages<Invitation> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.myInvitations(
                        query: .init(status: status.flatMap { .init(rawValue: $0.rawValue) }, limit: 100, cursor: cursor)
                    ).ok.body.json
                }
                return (try page.items.map(Invitation.init), page.nextCursor)
            }
        }

        /// Accepts: a place is taken (or one on the waitlist).
        @discardableResult
        public func accept(_ id: Invitation.ID) async throws -> Invitation {
            try Invitation(try await client.call { try await $0.acceptInvitation(path: .init(id: id.description)).ok.body.json })
        }

        /// Declines an invitation.
        @discardableResult
        public func decline(_ id: Invitation.ID) async throws -> Invitation {
            try Invitation(try await client.call { try await $0.declineInvitation(path: .init(id: id.description)).ok.body.json })
        }
    }
}

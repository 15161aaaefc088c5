import Foundation
internal import SportLookAPI

/// Asking for someone to take one's place in a game.
public struct SubstituteRequest: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<SubstituteRequest>
    public var id: ID
    /// The game.
    public var event: Event.ID
    /// Who asked for a substitute.
    public var requester: Person
    /// `open`, `filled`, `expired`, `withdrawn`…
    public var status: String
    /// When the offers end (before the start).
    public var expiresAt: Date
    /// Who took the place, once someone has.
    public var filledBy: Person?
    /// How many people were offered it.
    public var offeredCount: Int

    init(_ request: Components.Schemas.SubstituteRequest) throws {
        id = try .parse(request.id)
        event = try .parse(request.eventId)
        requester = try Person(request.requester)
        status = request.status.rawValue
        expiresAt = request.expiresAt
        filledBy = try request.filledBy.map { try Person($0.value1) }
        offeredCount = request.offeredCount
    }
}

/// Game day: the people going, a waitlist offer, checking in, a substitute, the score.
extension SportLookClient.Events {
    /// The people going (and waiting), page by page, each with where they stand.
    public func attendees(of id: Event.ID) -> Pages<Attendee> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.listAttendees(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
            }
            let people = try page.items.map {
                Attendee(
                    person: Person(id: try .parse($0.id), name: $0.name), attendance: Attendance(rawValue: $0.status.rawValue) ?? .going)
            }
            return (people, page.nextCursor)
        }
    }

    /// Takes the place the waitlist offered.
    @discardableResult
    public func acceptOffer(_ id: Event.ID) async throws -> Attendance {
        let joined = try await client.call { try await $0.acceptOffer(path: .init(id: id.description)).ok.body.json }
        return Attendance(rawValue: joined.status.rawValue) ?? .going
    }

    /// Lets the offered place go to the next on the waitlist.
    public func declineOffer(_ id: Event.ID) async throws {
        _ = try await client.call { try await $0.declineOffer(path: .init(id: id.description)).noContent }
    }

    /// Checks in at the game, from where the phone is (the server checks it is near).
    public func checkIn(_ id: Event.ID, at place: Place) async throws {
        _ = try await client.call {
            try await $0.checkIn(
                path: .init(id: id.description), body: .json(.init(location: .init(lat: place.latitude, lon: place.longitude)))
            ).ok
        }
    }

    /// Asks for a substitute: the waitlist first, else up to 20 fitting people nearby, or
    /// only `person`.
    public func askForSubstitute(_ id: Event.ID, only person: Person.ID? = nil) async throws -> SubstituteRequest {
        try SubstituteRequest(
            try await client.call {
                try await $0.askForSubstitute(path: .init(id: id.description), body: .json(.init(userId: person?.description)))
                    .created.body.json
            })
    }

    /// Takes a place offered as a substitute (the first to accept takes it).
    @discardableResult
    public func acceptSubstituteOffer(_ id: SubstituteRequest.ID) async throws -> SubstituteRequest {
        try SubstituteRequest(try await client.call { try await $0.acceptSubstituteOffer(path: .init(id: id.description)).ok.body.json })
    }

    /// Withdraws one's own request.
    public func withdraw(_ id: SubstituteRequest.ID) async throws {
        _ = try await client.call { try await $0.withdrawSubstituteRequest(path: .init(id: id.description)).noContent }
    }

    /// Enters the score, one number per team in the teams' order (the other side confirms or disputes).
    public func enterScore(_ id: Event.ID, _ scores: [Int]) async throws {
        _ = try await client.call { try await $0.enterResult(path: .init(id: id.description), body: .json(.init(scores: scores))).created }
    }

    /// Confirms the score the other side entered.
    public func confirmScore(_ id: Event.ID) async throws {
        _ = try await client.call { try await $0.confirmResult(path: .init(id: id.description)).ok }
    }

    /// Disputes it: a disputed score counts for nothing.
    public func disputeScore(_ id: Event.ID) async throws {
        _ = try await client.call { try await $0.disputeResult(path: .init(id: id.description)).ok }
    }
}

import Foundation
internal import SportLookAPI

/// A game's score as entered, and where it stands.
public struct GameScore: Hashable, Sendable, Codable {
    /// One per team, in the teams' order.
    public var scores: [Int]
    /// `pending` (the other side may confirm or dispute), `confirmed`, `disputed` (counts for nothing), `stood`.
    public var status: String
    /// Who entered it.
    public var enteredBy: Person?
    /// Whether the game moved levels.
    public var levelsMoved: Bool
}

/// A group's dues: the owner and admins record payments, waive, refund; members claim.
extension SportLookClient.MoneyClient {
    /// Records dues paid outside the app for these members (their owner or an admin); the sheet after.
    @discardableResult
    public func markDuesPaid(_ people: [Person.ID], in id: Group.ID, by means: PaidBy, amount: Int? = nil) async throws -> MoneySheet {
        let body = Operations.MarkDuesPaid.Input.Body.JsonPayload(
            userIds: people.map(\.description), means: .init(rawValue: means.rawValue) ?? .cash, amount: amount)
        return try MoneySheet(
            try await client.call { try await $0.markDuesPaid(path: .init(id: id.description), body: .json(body)).ok.body.json })
    }

    /// Lets a member off this month's dues; the sheet after.
    @discardableResult
    public func waiveDues(of person: Person.ID, in id: Group.ID, note: String? = nil) async throws -> MoneySheet {
        try MoneySheet(
            try await client.call {
                try await $0.waiveDues(path: .init(id: id.description), body: .json(.init(userId: person.description, note: note))).ok.body
                    .json
            })
    }

    /// Gives back dues paid (cash or a transfer, made outside the app).
    @discardableResult
    public func refundDues(_ amount: Int, to person: Person.ID, in id: Group.ID, by means: PaidBy, note: String? = nil) async throws
        -> MoneySheet
    {
        let body = Operations.RefundDues.Input.Body.JsonPayload(
            userId: person.description, amount: amount, means: .init(rawValue: means.rawValue) ?? .cash, note: note)
        return try MoneySheet(
            try await client.call { try await $0.refundDues(path: .init(id: id.description), body: .json(body)).ok.body.json })
    }

    /// Says one paid one's dues (the owner or an admin confirms or declines).
    @discardableResult
    public func claimDuesPaid(in id: Group.ID, by means: PaidBy, amount: Int? = nil, note: String? = nil) async throws -> PaymentClaim {
        let body = Operations.ClaimDuesPayment.Input.Body.JsonPayload(
            means: .init(rawValue: means.rawValue) ?? .cash, amount: amount, note: note)
        return try PaymentClaim(
            try await client.call { try await $0.claimDuesPayment(path: .init(id: id.description), body: .json(body)).created.body.json })
    }

    /// Gives back a game payment: cash or a transfer outside the app, or a card payment
    /// through Stripe (then the sheet shows it once Stripe confirms).
    @discardableResult
    public func refund(
        _ amount: Int, to person: Person.ID, for id: Event.ID, byCard: Bool = false, by means: PaidBy = .cash, note: String? = nil
    )
        async throws -> MoneySheet
    {
        let body = Operations.RefundPayment.Input.Body.JsonPayload(
            userId: person.description, amount: amount, means: byCard ? .card : (.init(rawValue: means.rawValue) ?? .cash), note: note)
        switch try await client.call({ try await $0.refundPayment(path: .init(id: id.description), body: .json(body)) }) {
        case .ok(let ok): return try MoneySheet(try ok.body.json)
        case .accepted(let accepted): return try MoneySheet(try accepted.body.json)
        case let other: throw SportLookError.unexpected(other)
        }
    }

    /// Whether this server takes cards, and whether the signed-in person can be paid by card.
    public func payouts() async throws -> Payouts {
        let body = try await client.call { try await $0.myPayouts().ok.body.json }
        return Payouts(cardPayments: body.cardPayments, connected: body.connected, chargesEnabled: body.chargesEnabled)
    }

    /// A Stripe page where the signed-in person sets up being paid by card (open it in a browser).
    public func connectPayouts() async throws -> URL {
        let link = try await client.call { try await $0.connectPayouts().created.body.json }
        guard let url = URL(string: link.url) else { throw SportLookError.malformed("not a URL: \(link.url)") }
        return url
    }
}

extension SportLookClient.Events {
    /// The score entered for a game, and where it stands.
    public func score(of id: Event.ID) async throws -> GameScore {
        let result = try await client.call { try await $0.eventResult(path: .init(id: id.description)).ok.body.json }
        return GameScore(
            scores: result.scores, status: result.status.rawValue, enteredBy: try result.enteredBy.map { try Person($0.value1) },
            levelsMoved: result.levelsMoved)
    }

    /// Games inside a map's visible box (south-west and north-east corners), page by page.
    public func inBox(southWest: Place, northEast: Place, filter: Filter = .init(), pageSize: Int = 100) -> Pages<Event> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.eventsInBox(
                    query: .init(
                        minLat: southWest.latitude, minLon: southWest.longitude, maxLat: northEast.latitude, maxLon: northEast.longitude,
                        sport: try filter.sport.map(Self.slug), startsAfter: filter.startsAfter, startsBefore: filter.startsBefore,
                        level: filter.level, limit: pageSize, cursor: cursor)
                ).ok.body.json
            }
            return (try page.items.map(Event.init), page.nextCursor)
        }
    }
}

extension SportLookClient.SeriesClient {
    /// Changes a series from one of its dates on (`2027-01-05`): the games before keep the
    /// old series, a new series takes the rest.
    public func change(_ id: Series.ID, from date: String, title: String? = nil, startTime: String? = nil, capacity: Int? = nil)
        async throws -> Series
    {
        let change = Components.Schemas.SeriesChange(from: date, title: title, capacity: capacity, startTime: startTime)
        return try Series(
            try await client.call { try await $0.splitSeries(path: .init(id: id.description), body: .json(change)).created.body.json })
    }
}

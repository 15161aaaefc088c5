import Foundation
internal import SportLookAPI

/// Who owes what for a game (or a group's dues): one line per person, in minor units.
public struct MoneySheet: Hashable, Sendable, Codable {
    /// One person's account.
    public struct Line: Hashable, Sendable, Codable {
        /// Nil on the total line.
        public var person: Person?
        /// What they owe in all.
        public var charged: Int
        /// What they paid.
        public var paid: Int
        /// What was let off.
        public var waived: Int
        /// What was paid back to them.
        public var refunded: Int
        /// What is still owed (negative: owed to them).
        public var balance: Int
    }

    /// The currency of every amount.
    public var currency: String
    /// Whether the signed-in person sees everyone's lines (the organiser) or only their own.
    public var organiserView: Bool
    /// Whether a share can be paid by card here.
    public var payByCard: Bool
    /// Each person's line.
    public var lines: [Line]
    /// The sheet's totals.
    public var total: Line
    /// Claims of payment that wait for the organiser.
    public var claims: [PaymentClaim]

    init(_ sheet: Components.Schemas.LedgerSheet) throws {
        func line(_ l: Components.Schemas.LedgerLine) throws -> Line {
            Line(
                person: try l.user.map(Person.init), charged: l.charged, paid: l.paid, waived: l.waived, refunded: l.refunded,
                balance: l.balance)
        }
        currency = sheet.currency ?? ""
        organiserView = sheet.organiserView
        payByCard = sheet.payByCard
        lines = try sheet.lines.map(line)
        total = try line(sheet.total)
        claims = try sheet.claims.map(PaymentClaim.init)
    }
}

/// Someone saying they paid (cash or a transfer), for the organiser to confirm.
public struct PaymentClaim: Hashable, Sendable, Codable, Identifiable {
    public typealias ID = Identifier<PaymentClaim>
    public var id: ID
    /// Who says they paid.
    public var person: Person
    /// How much, in minor units.
    public var amount: Money
    /// `cash` or `transfer`.
    public var means: String
    /// Their words.
    public var note: String?
    /// `pending`, `confirmed`, `declined`.
    public var status: String

    init(_ claim: Components.Schemas.PaymentClaim) throws {
        id = try .parse(claim.id)
        person = try Person(claim.user)
        amount = Money(minorUnits: claim.amount, currency: claim.currency)
        means = claim.means.rawValue
        note = claim.note
        status = claim.status.rawValue
    }
}

/// How a payment was made outside the app.
public enum PaidBy: String, Hashable, Sendable, Codable, CaseIterable {
    /// In cash.
    case cash
    /// By bank transfer or a payment app.
    case transfer
}

extension SportLookClient {
    /// Who paid for the pitch: a game's money sheet, a group's dues, claims, card payments.
    public var money: MoneyClient { MoneyClient(client: self) }

    /// Who paid for the pitch: a game's money sheet, a group's dues, claims, card payments.
    public struct MoneyClient: Sendable {
        let client: SportLookClient

        /// A game's sheet (everyone's lines for its organiser, one's own for the rest).
        public func sheet(of id: Event.ID) async throws -> MoneySheet {
            try MoneySheet(try await client.call { try await $0.eventLedger(path: .init(id: id.description)).ok.body.json })
        }

        /// A group's dues sheet.
        public func dues(of id: Group.ID) async throws -> MoneySheet {
            try MoneySheet(try await client.call { try await $0.groupLedger(path: .init(id: id.description)).ok.body.json })
        }

        /// The organiser records payments (`amount` for one person only; default what they owe).
        @discardableResult
        public func markPaid(_ people: [Person.ID], for id: Event.ID, by means: PaidBy, amount: Int? = nil) async throws -> MoneySheet {
            let body = Operations.MarkPaid.Input.Body.JsonPayload(
                userIds: people.map(\.description), means: .init(rawValue: means.rawValue) ?? .cash, amount: amount)
            return try MoneySheet(
                try await client.call { try await $0.markPaid(path: .init(id: id.description), body: .json(body)).ok.body.json })
        }

        /// The organiser lets someone off what they owe.
        @discardableResult
        public func waive(_ person: Person.ID, for id: Event.ID, note: String? = nil) async throws -> MoneySheet {
            try MoneySheet(
                try await client.call {
                    try await $0.waiveDebt(path: .init(id: id.description), body: .json(.init(userId: person.description, note: note))).ok
                        .body.json
                })
        }

        /// Says one paid (the organiser confirms or declines).
        @discardableResult
        public func claimPaid(for id: Event.ID, by means: PaidBy, amount: Int? = nil, note: String? = nil) async throws -> PaymentClaim {
            let body = Operations.ClaimPayment.Input.Body.JsonPayload(
                means: .init(rawValue: means.rawValue) ?? .cash, amount: amount, note: note)
            return try PaymentClaim(
                try await client.call { try await $0.claimPayment(path: .init(id: id.description), body: .json(body)).created.body.json })
        }

        /// The organiser confirms a claim: it becomes a payment.
        @discardableResult
        public func confirm(_ claim: PaymentClaim.ID) async throws -> MoneySheet {
            try MoneySheet(try await client.call { try await $0.confirmPaymentClaim(path: .init(id: claim.description)).ok.body.json })
        }

        /// The organiser declines a claim.
        @discardableResult
        public func decline(_ claim: PaymentClaim.ID) async throws -> MoneySheet {
            try MoneySheet(try await client.call { try await $0.declinePaymentClaim(path: .init(id: claim.description)).ok.body.json })
        }

        /// A card payment page for one's share (open it in a browser); a server that takes no
        /// cards refuses (``MoneySheet/payByCard`` says which).
        public func payByCard(_ id: Event.ID) async throws -> URL {
            let link = try await client.call { try await $0.payByCard(path: .init(id: id.description)).created.body.json }
            guard let url = URL(string: link.url) else { throw SportLookError.malformed("not a URL: \(link.url)") }
            return url
        }

        /// What the signed-in person owes (positive) or is owed, per game and per group.
        public func balances() async throws -> Balances {
            let body = try await client.call { try await $0.myBalances().ok.body.json }
            return Balances(
                games: try body.items.map {
                    .init(event: try .parse($0.eventId), title: $0.title, amount: Money(minorUnits: $0.amount, currency: $0.currency))
                },
                groups: try body.groups.map {
                    .init(group: try .parse($0.groupId), name: $0.name, amount: Money(minorUnits: $0.amount, currency: $0.currency))
                })
        }
    }
}

import Foundation
import SQLKit

/// Card payments in SQL: organisers' connected accounts (`payout_accounts`), the Checkout
/// Sessions made (`card_payments`), refunds asked of Stripe (`card_refunds`), and the
/// webhook events applied (`stripe_events`, one row per event id).
struct CardPaymentStore: Store {
    let database: Database

    struct PayoutAccount: Sendable, Hashable {
        var user: UUID
        var stripeID: String
        var chargesEnabled: Bool
    }

    struct Session: Sendable, Hashable {
        var id: String
        var eventID: UUID
        var user: UUID
        var account: String
        var amount: Int
        var currency: String
        var paid: Bool
        var paymentIntent: String?
    }

    struct Refund: Sendable, Hashable {
        enum Status: String, Sendable { case pending, succeeded, failed }
        /// Ours: the request's idempotency key.
        var id: UUID
        /// Stripe's, once it answered.
        var stripeID: String?
        var eventID: UUID
        var user: UUID
        var paymentIntent: String
        var amount: Int
        var status: Status
        var recordedBy: UUID?
    }

    // MARK: Accounts

    func payoutAccount(of user: UUID, on sql: (any SQLDatabase)? = nil) async throws -> PayoutAccount? {
        try await reading(on: sql) { sql in
            try await sql.raw(
                "SELECT user_id, stripe_account_id, charges_enabled FROM payout_accounts WHERE user_id = \(bind: user)"
            ).first().map(Self.account)
        }
    }

    func payoutAccount(stripeID: String, on sql: (any SQLDatabase)? = nil) async throws -> PayoutAccount? {
        try await reading(on: sql) { sql in
            try await sql.raw(
                "SELECT user_id, stripe_account_id, charges_enabled FROM payout_accounts WHERE stripe_account_id = \(bind: stripeID)"
            ).first().map(Self.account)
        }
    }

    private static func account(_ row: any SQLRow) throws -> PayoutAccount {
        PayoutAccount(
            user: try row.value("user_id"), stripeID: try row.value("stripe_account_id"), chargesEnabled: try row.value("charges_enabled"))
    }

    /// Keeps the user's account (the first one made stands).
    func insertAccount(_ account: PayoutAccount, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO payout_accounts (user_id, stripe_account_id, charges_enabled, created_at, updated_at)
            VALUES (\(bind: account.user), \(bind: account.stripeID), \(bind: account.chargesEnabled), \(bind: now), \(bind: now))
            ON CONFLICT (user_id) DO NOTHING
            """
        ).run()
    }

    func setChargesEnabled(_ enabled: Bool, stripeID: String, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE payout_accounts SET charges_enabled = \(bind: enabled), updated_at = \(bind: now) WHERE stripe_account_id = \(bind: stripeID)
            """
        ).run()
    }

    // MARK: Sessions and refunds

    func insert(_ session: Session, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO card_payments (session_id, event_id, user_id, stripe_account_id, amount, currency, status, created_at)
            VALUES (\(bind: session.id), \(bind: session.eventID), \(bind: session.user), \(bind: session.account), \(bind: session.amount),
                    \(bind: session.currency), 'open', \(bind: now))
            ON CONFLICT (session_id) DO NOTHING
            """
        ).run()
    }

    private static let sessionColumns = "session_id, event_id, user_id, stripe_account_id, amount, currency, status, payment_intent_id"

    private static func session(_ row: any SQLRow) throws -> Session {
        Session(
            id: try row.value("session_id"), eventID: try row.value("event_id"), user: try row.value("user_id"),
            account: try row.value("stripe_account_id"), amount: try row.value("amount"), currency: try row.value("currency"),
            paid: try row.value("status", as: String.self) == "paid", paymentIntent: try row.optional("payment_intent_id"))
    }

    func session(_ id: String, on sql: any SQLDatabase) async throws -> Session? {
        try await sql.raw("SELECT \(unsafeRaw: Self.sessionColumns) FROM card_payments WHERE session_id = \(bind: id)").first().map(
            Self.session)
    }

    /// The session a payment was made through.
    func session(forIntent intent: String, on sql: (any SQLDatabase)? = nil) async throws -> Session? {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.sessionColumns) FROM card_payments WHERE payment_intent_id = \(bind: intent)")
                .first().map(Self.session)
        }
    }

    /// A session Stripe's webhook told of before ours was kept (or that was made elsewhere), as paid.
    func insertPaid(_ session: Session, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO card_payments (session_id, event_id, user_id, stripe_account_id, amount, currency, status, payment_intent_id, created_at)
            VALUES (\(bind: session.id), \(bind: session.eventID), \(bind: session.user), \(bind: session.account), \(bind: session.amount),
                    \(bind: session.currency), 'paid', \(bind: session.paymentIntent), \(bind: now))
            ON CONFLICT (session_id) DO NOTHING
            """
        ).run()
    }

    func markPaid(_ id: String, paymentIntent: String, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE card_payments SET status = 'paid', payment_intent_id = \(bind: paymentIntent) WHERE session_id = \(bind: id)"
        ).run()
    }

    /// A person's card payments at a game that went through, oldest first: what a card refund draws on.
    func paidSessions(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> [Session] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.sessionColumns) FROM card_payments
            WHERE event_id = \(bind: event) AND user_id = \(bind: user) AND status = 'paid' ORDER BY created_at, session_id
            """
        ).all().map(Self.session)
    }

    /// What was asked back of a payment and did not fail (pending or made).
    func refunded(paymentIntent: String, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM card_refunds
            WHERE payment_intent_id = \(bind: paymentIntent) AND status <> 'failed'
            """
        ).first()?.value("total") ?? 0
    }

    /// What is asked back of a person's card payments at a game and not yet made.
    func pendingRefunds(event: UUID, user: UUID, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM card_refunds
            WHERE event_id = \(bind: event) AND user_id = \(bind: user) AND status = 'pending'
            """
        ).first()?.value("total") ?? 0
    }

    func insert(_ refund: Refund, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO card_refunds (id, refund_id, event_id, user_id, payment_intent_id, amount, status, recorded_by, created_at)
            VALUES (\(bind: refund.id), \(bind: refund.stripeID), \(bind: refund.eventID), \(bind: refund.user), \(bind: refund.paymentIntent),
                    \(bind: refund.amount), \(bind: refund.status.rawValue), \(bind: refund.recordedBy), \(bind: now))
            """
        ).run()
    }

    /// Stripe's id for our refund, once it answered (a webhook may have named it first).
    func setStripeID(_ stripeID: String, of id: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE card_refunds SET refund_id = \(bind: stripeID) WHERE id = \(bind: id) AND refund_id IS NULL"
        ).run()
    }

    func setStatus(_ status: Refund.Status, of id: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE card_refunds SET status = \(bind: status.rawValue) WHERE id = \(bind: id)").run()
    }

    /// Our refund that Stripe names `stripeID`, or that `metadata[refund]` says is ours.
    func refund(stripeID: String, ours: UUID?, on sql: any SQLDatabase) async throws -> Refund? {
        let byOurs: SQLQueryString = ours.map { " OR id = \(bind: $0)" } ?? ""
        return try await sql.raw(
            """
            SELECT id, refund_id, event_id, user_id, payment_intent_id, amount, status, recorded_by FROM card_refunds
            WHERE refund_id = \(bind: stripeID)\(byOurs) ORDER BY created_at LIMIT 1
            """
        ).first().map { row in
            Refund(
                id: try row.value("id"), stripeID: try row.optional("refund_id"), eventID: try row.value("event_id"),
                user: try row.value("user_id"), paymentIntent: try row.value("payment_intent_id"), amount: try row.value("amount"),
                status: Refund.Status(rawValue: try row.value("status")) ?? .pending, recordedBy: try row.optional("recorded_by"))
        }
    }

    // MARK: Webhook events

    /// Notes a webhook event; false when it was noted already (its effect is applied).
    func noteEvent(_ id: String, type: String, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO stripe_events (id, type, received_at) VALUES (\(bind: id), \(bind: type), \(bind: now))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """
        ).first() != nil
    }
}

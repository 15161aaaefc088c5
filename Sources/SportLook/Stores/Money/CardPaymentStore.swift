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
        var id: String
        var eventID: UUID
        var user: UUID
        var paymentIntent: String
        var amount: Int
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

    func payoutAccount(stripeID: String, on sql: any SQLDatabase) async throws -> PayoutAccount? {
        try await sql.raw(
            "SELECT user_id, stripe_account_id, charges_enabled FROM payout_accounts WHERE stripe_account_id = \(bind: stripeID)"
        ).first().map(Self.account)
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
    func session(forIntent intent: String, on sql: any SQLDatabase) async throws -> Session? {
        try await sql.raw("SELECT \(unsafeRaw: Self.sessionColumns) FROM card_payments WHERE payment_intent_id = \(bind: intent)").first()
            .map(Self.session)
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

    /// What was asked back of a payment already.
    func refunded(paymentIntent: String, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM card_refunds WHERE payment_intent_id = \(bind: paymentIntent)"
        ).first()?.value("total") ?? 0
    }

    func insert(_ refund: Refund, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO card_refunds (refund_id, event_id, user_id, payment_intent_id, amount, recorded_by, created_at)
            VALUES (\(bind: refund.id), \(bind: refund.eventID), \(bind: refund.user), \(bind: refund.paymentIntent), \(bind: refund.amount),
                    \(bind: refund.recordedBy), \(bind: now))
            ON CONFLICT (refund_id) DO NOTHING
            """
        ).run()
    }

    func refund(_ id: String, on sql: any SQLDatabase) async throws -> Refund? {
        try await sql.raw(
            """
            SELECT refund_id, event_id, user_id, payment_intent_id, amount, recorded_by FROM card_refunds WHERE refund_id = \(bind: id)
            """
        ).first().map { row in
            Refund(
                id: try row.value("refund_id"), eventID: try row.value("event_id"), user: try row.value("user_id"),
                paymentIntent: try row.value("payment_intent_id"), amount: try row.value("amount"),
                recordedBy: try row.optional("recorded_by"))
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

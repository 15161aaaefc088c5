import Foundation

/// Card payments through Stripe, when the server has its keys (`STRIPE_SECRET_KEY`,
/// `STRIPE_WEBHOOK_SECRET`): an organiser connects an Express account; a player pays what
/// they owe at a game through a Checkout Session on that account; an organiser's card
/// refund goes back through Stripe. The ledger gets a card payment or refund only from
/// Stripe's signed webhook — each event applied once by its id, and each payment and refund
/// once by its own id, so a repeated or reordered delivery changes nothing twice.
/// Without the keys, the ledger works with cash and transfers alone (409 `card_payments_off`).
struct CardPayments: Sendable {
    let stripe: StripeClient?
    let store: CardPaymentStore
    let ledger: Ledger
    let accounts: AccountStore
    let write: Writer
    let clock: any AppClock

    var enabled: Bool { stripe != nil }

    private func requireStripe() throws -> StripeClient {
        guard let stripe else { throw DomainError.conflict("card_payments_off", "Card payments are not set up on this server.") }
        return stripe
    }

    static func unavailable(_ error: any Error) -> DomainError {
        DomainError(
            .unavailable, code: "payment_provider_unavailable",
            message: "The card payment provider did not answer as it should; try again shortly.",
            retryAfter: 5)
    }

    /// Runs a Stripe call; a refusal or silence is a 503 (`payment_provider_unavailable`).
    private func calling<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DomainError { throw error } catch { throw Self.unavailable(error) }
    }

    // MARK: The organiser's account

    /// `{connected, charges_enabled}`: looked up at Stripe while charges are not enabled yet.
    func payoutStatus(of user: UUID) async throws -> (connected: Bool, chargesEnabled: Bool) {
        guard let stripe, let account = try await store.payoutAccount(of: user) else { return (false, false) }
        if account.chargesEnabled { return (true, true) }
        let enabled = try await calling { try await stripe.chargesEnabled(account.stripeID) }
        if enabled {
            let now = clock.now()
            try await write { [store] sql, _ in try await store.setChargesEnabled(true, stripeID: account.stripeID, at: now, on: sql) }
        }
        return (true, enabled)
    }

    /// The organiser's onboarding link at Stripe (an account is made the first time).
    func onboard(_ user: UUID) async throws -> URL {
        let stripe = try requireStripe()
        var account = try await store.payoutAccount(of: user)
        if account == nil {
            guard let person = try await accounts.user(user) else { throw DomainError.notFound("user") }
            let id = try await calling { try await stripe.createAccount(email: person.email, user: user) }
            let now = clock.now()
            try await write { [store] sql, _ in
                try await store.insertAccount(.init(user: user, stripeID: id, chargesEnabled: false), at: now, on: sql)
            }
            account = try await store.payoutAccount(of: user)
        }
        guard let account else { throw DomainError.notFound("user") }
        let back = stripe.settings.returnURL.absoluteString + "#/money"
        return try await calling { try await stripe.onboardingLink(account.stripeID, returnTo: URL(string: back)!) }
    }

    /// Whether a player may pay the organiser by card now.
    func takesCards(_ organiser: UUID) async throws -> Bool {
        guard enabled else { return false }
        return try await store.payoutAccount(of: organiser)?.chargesEnabled ?? false
    }

    // MARK: Paying

    /// A Checkout Session for what the caller owes at the game, on its organiser's account:
    /// its page, to send the player to. 409 `nothing_owed`, `organiser_not_connected`.
    func checkout(_ id: UUID, by user: UUID) async throws -> (session: String, url: URL) {
        let stripe = try requireStripe()
        let sheet = try await ledger.sheet(id, for: user)
        guard !sheet.organiserView, let line = sheet.lines.first, line.balance > 0, let currency = sheet.currency else {
            throw DomainError.conflict("nothing_owed", "You owe nothing at this game.")
        }
        guard let account = try await store.payoutAccount(of: sheet.event.organiserID), account.chargesEnabled else {
            throw DomainError.conflict("organiser_not_connected", "The organiser does not take card payments.")
        }
        let back = stripe.settings.returnURL.absoluteString + "#/events/\(id.lowercased)"
        // One session per debt and amount: a double tap makes one.
        let key = "checkout-\(id.lowercased)-\(user.lowercased)-\(line.balance)-\(sheet.entries.last?.seq ?? 0)"
        let made = try await calling {
            try await stripe.checkoutSession(
                account: account.stripeID, amount: line.balance, currency: currency, name: String(sheet.event.title.prefix(200)),
                successURL: URL(string: back)!, cancelURL: URL(string: back)!,
                metadata: ["event_id": id.lowercased, "user_id": user.lowercased], idempotencyKey: key)
        }
        let now = clock.now()
        try await write { [store] sql, _ in
            try await store.insert(
                .init(
                    id: made.id, eventID: id, user: user, account: account.stripeID, amount: line.balance, currency: currency, paid: false,
                    paymentIntent: nil), at: now, on: sql)
        }
        return (made.id, made.url)
    }

    /// The organiser's refund of a card payment, through Stripe: what the person paid by
    /// card and was not refunded, from their oldest card payment on. The ledger gets the
    /// refund when Stripe's webhook says it went through.
    func refund(_ id: UUID, to person: UUID, amount: Int, by organiser: UUID) async throws {
        let stripe = try requireStripe()
        let now = clock.now()
        let asks: [(session: CardPaymentStore.Session, amount: Int)] = try await write { [self] sql, _ in
            _ = try await ledger.organisersGame(id, organiser, on: sql)
            var left = amount
            var asks: [(session: CardPaymentStore.Session, amount: Int)] = []
            for session in try await store.paidSessions(event: id, user: person, on: sql) where left > 0 {
                guard let intent = session.paymentIntent else { continue }
                let open = session.amount - (try await store.refunded(paymentIntent: intent, on: sql))
                if open > 0 {
                    asks.append((session, min(open, left)))
                    left -= min(open, left)
                }
            }
            guard left == 0 else {
                throw DomainError.validation(["amount": "must not be more than what they paid by card and was not refunded"])
            }
            return asks
        }
        for (session, part) in asks {
            guard let intent = session.paymentIntent else { continue }
            let refund = try await calling {
                try await stripe.refund(
                    account: session.account, paymentIntent: intent, amount: part,
                    metadata: ["event_id": id.lowercased, "user_id": person.lowercased],
                    idempotencyKey: "refund-\(intent)-\(part)-\(now.millisecondsSince1970)")
            }
            try await write { [store] sql, _ in
                try await store.insert(
                    .init(id: refund, eventID: id, user: person, paymentIntent: intent, amount: part, recordedBy: organiser), at: now,
                    on: sql)
            }
        }
    }

    // MARK: The webhook

    /// One webhook delivery: its signature and age checked (400 `bad_signature`,
    /// `stale_signature`), then its event applied once.
    func receive(payload: [UInt8], signature: String?) async throws {
        let stripe = try requireStripe()
        let now = clock.now()
        do {
            try StripeClient.verify(
                payload: payload, header: signature ?? "", secret: stripe.settings.webhookSecret, now: now,
                tolerance: stripe.settings.tolerance)
        } catch .stale {
            throw DomainError(.invalid, code: "stale_signature", message: "The webhook's signature is too old.")
        } catch {
            throw DomainError(.invalid, code: "bad_signature", message: "The webhook's signature does not match.")
        }
        guard let event = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any], let id = event["id"] as? String,
            let type = event["type"] as? String, let object = (event["data"] as? [String: Any])?["object"] as? [String: Any]
        else { throw DomainError(.invalid, code: "bad_event", message: "The webhook's body is not a Stripe event.") }
        // What the event says, read once into plain values.
        let objectID = object["id"] as? String
        let paid = object["payment_status"] as? String == "paid"
        let intentID = object["payment_intent"] as? String
        let succeeded = object["status"] as? String == "succeeded"
        let chargesEnabled = object["charges_enabled"] as? Bool
        try await write { [self] sql, _ in
            guard try await store.noteEvent(id, type: type, at: now, on: sql) else { return }
            switch type {
            case "checkout.session.completed", "checkout.session.async_payment_succeeded":
                guard paid, let sessionID = objectID, let intent = intentID, let session = try await store.session(sessionID, on: sql),
                    !session.paid,
                    let game = try await ledger.events.lock(session.eventID, on: sql)
                else { return }
                try await store.markPaid(sessionID, paymentIntent: intent, on: sql)
                let reference = "stripe:" + intent
                guard !(try await ledger.store.hasReference(reference, on: sql)) else { return }
                try await ledger.store.append(
                    [
                        NewLedgerEntry(
                            user: session.user, kind: .paid, reason: .paid, amount: -session.amount, means: .card, reference: reference)
                    ],
                    event: game.id, currency: session.currency, at: now, on: sql)
            case "refund.created", "refund.updated":
                guard succeeded, let refundID = objectID,
                    let refund = try await store.refund(refundID, on: sql), try await ledger.events.lock(refund.eventID, on: sql) != nil
                else { return }
                let reference = "stripe:" + refundID
                guard !(try await ledger.store.hasReference(reference, on: sql)) else { return }
                let currency = try await store.session(forIntent: refund.paymentIntent, on: sql)?.currency ?? "EUR"
                try await ledger.store.append(
                    [
                        NewLedgerEntry(
                            user: refund.user, kind: .refunded, reason: .refunded, amount: refund.amount, means: .card,
                            recordedBy: refund.recordedBy, reference: reference)
                    ], event: refund.eventID, currency: currency, at: now, on: sql)
            case "account.updated":
                guard let account = objectID, let enabled = chargesEnabled else { return }
                try await store.setChargesEnabled(enabled, stripeID: account, at: now, on: sql)
            default:
                return
            }
        }
    }
}

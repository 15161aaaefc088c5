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
        guard let stripe else { throw DomainError.conflict("card_payments_off", Sentence("Card payments are not set up on this server.")) }
        return stripe
    }

    static func unavailable(_ error: any Error) -> DomainError {
        DomainError(
            .unavailable, code: "payment_provider_unavailable",
            message: Sentence("The card payment provider did not answer as it should; try again shortly."),
            retryAfter: 5)
    }

    /// Runs a Stripe call: Stripe's refusal is a 409 `payment_refused` saying what it said;
    /// silence, a 5xx or a 429 is a 503 (`payment_provider_unavailable`), worth trying again.
    private func calling<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DomainError {
            throw error
        } catch let failure as StripeClient.Failure where failure.isRefusal {
            throw DomainError.conflict("payment_refused", Sentence("The card payment provider refused it: \(failure.message)"))
        } catch {
            throw Self.unavailable(error)
        }
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
            guard let person = try await accounts.user(user) else { throw DomainError.notFound(.user) }
            let id = try await calling { try await stripe.createAccount(email: person.email, user: user) }
            let now = clock.now()
            try await write { [store] sql, _ in
                try await store.insertAccount(.init(user: user, stripeID: id, chargesEnabled: false), at: now, on: sql)
            }
            account = try await store.payoutAccount(of: user)
        }
        guard let account else { throw DomainError.notFound(.user) }
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
        guard let event = sheet.event, !sheet.organiserView, let line = sheet.lines.first, line.balance > 0, let currency = sheet.currency
        else {
            throw DomainError.conflict("nothing_owed", Sentence("You owe nothing at this game."))
        }
        // Asked of Stripe while not known here to be enabled: its webhook may still be on the way.
        guard try await payoutStatus(of: event.organiserID).chargesEnabled,
            let account = try await store.payoutAccount(of: event.organiserID)
        else {
            throw DomainError.conflict("organiser_not_connected", Sentence("The organiser does not take card payments."))
        }
        let back = stripe.settings.returnURL.absoluteString + "#/events/\(id.lowercased)"
        // One session per debt and amount: a double tap makes one.
        let key = "checkout-\(id.lowercased)-\(user.lowercased)-\(line.balance)-\(sheet.entries.last?.seq ?? 0)"
        let made = try await calling {
            try await stripe.checkoutSession(
                account: account.stripeID, amount: line.balance, currency: currency, name: String(event.title.prefix(200)),
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

    /// The organiser's refund of a card payment, through Stripe: at most what the person
    /// paid and was not given back, and of that what they paid by card, from their oldest
    /// card payment on. Each part is kept as pending under the game's lock before Stripe is
    /// asked (its id the request's idempotency key), so retries and taps at once never ask
    /// for more; the ledger gets the refund when Stripe's webhook says it went through.
    func refund(_ id: UUID, to person: UUID, amount: Int, by organiser: UUID) async throws {
        let stripe = try requireStripe()
        let now = clock.now()
        let asks: [CardPaymentStore.Refund] = try await write { [self] sql, _ in
            _ = try await ledger.organisersGame(id, organiser, on: sql)
            let line = try await ledger.line(of: person, at: .event(id), on: sql)
            let pending = try await store.pendingRefunds(event: id, user: person, on: sql)
            guard amount <= line.paid - line.refunded - pending else {
                throw DomainError.validation(["amount": Sentence("must not be more than what they paid and was not given back")])
            }
            var left = amount
            var asks: [CardPaymentStore.Refund] = []
            for session in try await store.paidSessions(event: id, user: person, on: sql) where left > 0 {
                guard let intent = session.paymentIntent else { continue }
                let part = min(left, session.amount - (try await store.refunded(paymentIntent: intent, on: sql)))
                guard part > 0 else { continue }
                let refund = CardPaymentStore.Refund(
                    id: UUID(), stripeID: nil, eventID: id, user: person, paymentIntent: intent, amount: part, status: .pending,
                    recordedBy: organiser)
                try await store.insert(refund, at: now, on: sql)
                asks.append(refund)
                left -= part
            }
            guard left == 0 else {
                throw DomainError.validation(["amount": Sentence("must not be more than what they paid by card and was not refunded")])
            }
            return asks
        }
        for ask in asks {
            guard let session = try await store.session(forIntent: ask.paymentIntent) else { continue }
            do {
                let stripeID = try await calling {
                    try await stripe.refund(
                        account: session.account, paymentIntent: ask.paymentIntent, amount: ask.amount,
                        metadata: ["event_id": id.lowercased, "user_id": person.lowercased, "refund": ask.id.lowercased],
                        idempotencyKey: "refund-\(ask.id.lowercased)")
                }
                try await write { [store] sql, _ in try await store.setStripeID(stripeID, of: ask.id, on: sql) }
            } catch let refused as DomainError where refused.code == "payment_refused" {
                // Stripe said no: nothing was refunded, and the amount may be asked again.
                try await write { [store] sql, _ in try await store.setStatus(.failed, of: ask.id, on: sql) }
                throw refused
            }
        }
    }

    // MARK: The webhook

    /// What a webhook event says, read once into plain values.
    struct Event: Sendable {
        var id: String
        var type: String
        /// The connected account it happened on.
        var account: String?
        var live: Bool
        var objectID: String?
        var paid: Bool
        var paymentIntent: String?
        var amount: Int?
        var currency: String?
        var status: String?
        var metadata: [String: String]

        init?(_ payload: [UInt8]) {
            guard let event = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any], let id = event["id"] as? String,
                let type = event["type"] as? String, let object = (event["data"] as? [String: Any])?["object"] as? [String: Any]
            else { return nil }
            self.id = id
            self.type = type
            account = event["account"] as? String
            live = event["livemode"] as? Bool ?? false
            objectID = object["id"] as? String
            paid = object["payment_status"] as? String == "paid"
            paymentIntent = object["payment_intent"] as? String
            amount = (object["amount_total"] ?? object["amount"]) as? Int
            currency = (object["currency"] as? String)?.uppercased()
            status = object["status"] as? String
            metadata = object["metadata"] as? [String: String] ?? [:]
        }
    }

    /// A refund of a payment not known here yet (its event still on the way): 503, so that
    /// Stripe delivers it again.
    static let notReady = DomainError(
        .unavailable, code: "not_ready", message: Sentence("This event names something not recorded here yet; deliver it again later."),
        retryAfter: 60)

    /// One webhook delivery: its signature and age checked (400 `bad_signature`,
    /// `stale_signature`), then its event applied once, in the transaction that notes it.
    /// An event of another mode (test or live) than the key's, or of another account than
    /// the payment's, changes nothing.
    func receive(payload: [UInt8], signature: String?) async throws {
        let stripe = try requireStripe()
        let now = clock.now()
        do {
            try StripeClient.verify(
                payload: payload, header: signature ?? "", secret: stripe.settings.webhookSecret, now: now,
                tolerance: stripe.settings.tolerance)
        } catch .stale {
            throw DomainError(.invalid, code: "stale_signature", message: Sentence("The webhook's signature is too old."))
        } catch {
            throw DomainError(.invalid, code: "bad_signature", message: Sentence("The webhook's signature does not match."))
        }
        guard let event = Event(payload) else {
            throw DomainError(.invalid, code: "bad_event", message: Sentence("The webhook's body is not a Stripe event."))
        }
        // Account events may come out of order: the account as Stripe has it now decides.
        var current: Bool?
        if event.type == "account.updated", let account = event.objectID, try await store.payoutAccount(stripeID: account) != nil {
            current = try await calling { try await stripe.chargesEnabled(account) }
        }
        let enabled = current
        let live = stripe.settings.secretKey.hasPrefix("sk_live")
        try await write { [self] sql, _ in
            guard try await store.noteEvent(event.id, type: event.type, at: now, on: sql), event.live == live else { return }
            switch event.type {
            case "checkout.session.completed", "checkout.session.async_payment_succeeded":
                try await paid(event, at: now, on: sql)
            case "refund.created", "refund.updated":
                try await refunded(event, at: now, on: sql)
            case "account.updated":
                if let account = event.objectID, let enabled {
                    try await store.setChargesEnabled(enabled, stripeID: account, at: now, on: sql)
                }
            default:
                return
            }
        }
    }

    /// A Checkout Session paid: the payment in the ledger, once, of what Stripe took.
    private func paid(_ event: Event, at now: Date, on sql: DatabaseSession) async throws {
        guard event.paid, let sessionID = event.objectID, let intent = event.paymentIntent, let amount = event.amount, amount > 0,
            let currency = event.currency
        else { return }
        var session: CardPaymentStore.Session
        if let known = try await store.session(sessionID, on: sql) {
            guard known.account == event.account else { return }
            session = known
        } else {
            // Told before ours was kept (or made elsewhere): from its metadata, on the game's
            // organiser's account alone; anything else is not a payment of ours.
            guard let game = event.metadata["event_id"].flatMap(UUID.init(uuidString:)),
                let user = event.metadata["user_id"].flatMap(UUID.init(uuidString:)),
                let organiser = try await ledger.events.event(game, on: sql)?.organiserID,
                let account = try await store.payoutAccount(of: organiser, on: sql), account.stripeID == event.account
            else { return }
            session = .init(
                id: sessionID, eventID: game, user: user, account: account.stripeID, amount: amount, currency: currency, paid: true,
                paymentIntent: intent)
            try await store.insertPaid(session, at: now, on: sql)
        }
        guard let game = try await ledger.events.lock(session.eventID, on: sql) else { return }
        if !session.paid { try await store.markPaid(sessionID, paymentIntent: intent, on: sql) }
        session.paymentIntent = intent
        let reference = "stripe:" + intent
        guard !(try await ledger.store.hasReference(reference, on: sql)) else { return }
        try await ledger.store.append(
            [NewLedgerEntry(user: session.user, kind: .paid, reason: .paid, amount: -amount, means: .card, reference: reference)],
            to: .event(game.id), currency: session.currency, at: now, on: sql)
    }

    /// A refund made (or failed): in the ledger once when it went through.
    private func refunded(_ event: Event, at now: Date, on sql: DatabaseSession) async throws {
        guard let stripeID = event.objectID, let intent = event.paymentIntent, let amount = event.amount, amount > 0 else { return }
        guard let session = try await store.session(forIntent: intent, on: sql) else { throw Self.notReady }
        guard session.account == event.account else { return }
        var refund: CardPaymentStore.Refund
        if let known = try await store.refund(stripeID: stripeID, ours: event.metadata["refund"].flatMap { UUID(uuidString: $0) }, on: sql)
        {
            refund = known
            if known.stripeID == nil { try await store.setStripeID(stripeID, of: known.id, on: sql) }
        } else {
            // Made elsewhere (Stripe's dashboard), or told before Stripe's answer reached us.
            refund = .init(
                id: UUID(), stripeID: stripeID, eventID: session.eventID, user: session.user, paymentIntent: intent, amount: amount,
                status: .pending, recordedBy: nil)
            try await store.insert(refund, at: now, on: sql)
        }
        switch event.status {
        case "succeeded":
            guard let game = try await ledger.events.lock(refund.eventID, on: sql) else { return }
            try await store.setStatus(.succeeded, of: refund.id, on: sql)
            let reference = "stripe:" + stripeID
            guard !(try await ledger.store.hasReference(reference, on: sql)) else { return }
            try await ledger.store.append(
                [
                    NewLedgerEntry(
                        user: refund.user, kind: .refunded, reason: .refunded, amount: amount, means: .card, recordedBy: refund.recordedBy,
                        reference: reference)
                ], to: .event(game.id), currency: session.currency, at: now, on: sql)
        case "failed", "canceled":
            try await store.setStatus(.failed, of: refund.id, on: sql)
        default:
            return
        }
    }
}

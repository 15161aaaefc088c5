import Foundation

/// What money tells people: what they still owe at a game (reminders, three at most), and
/// the organiser that a player says they paid.
extension Notifier {
    /// Tells each person owing at the game how much, in their language.
    func paymentDue(
        _ event: Event, owing: [(user: UUID, currency: String, amount: Int)], round: Int, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        guard !owing.isEmpty else { return }
        let languages = try await accounts.languages(of: owing.map(\.user), on: sql)
        let messages = owing.map { person in
            let language = languages[person.user] ?? .en
            let amount = Texts.money(person.amount, currency: person.currency, in: language)
            return (
                NotificationMessage(
                    to: person.user, .paymentDue,
                    title: Catalogue.text(.paymentDueTitle, ["amount": .text(amount), "event": .text(event.title)], in: language),
                    body: Catalogue.text(.paymentDueBody, ["organiser": .text(event.organiserName)], in: language),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title), "amount": .number(Double(person.amount)),
                        "currency": .string(person.currency), "organiser": .person(event.organiserID, event.organiserName),
                    ], collapseKey: "payment_due:\(event.id.lowercased)"
                ), "payment_due:\(event.id.lowercased):\(person.user.lowercased):\(round)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// Tells the organiser of a player's "I paid".
    func paymentClaimed(_ event: Event, claim: PaymentClaim, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let language = try await accounts.languages(of: [event.organiserID], on: sql)[event.organiserID] ?? .en
        let amount = Texts.money(claim.amount, currency: claim.currency, in: language)
        let message = NotificationMessage(
            to: event.organiserID, .paymentClaimed,
            title: Catalogue.text(.paymentClaimedTitle, ["person": .text(claim.user.name), "amount": .text(amount)], in: language),
            body: Catalogue.text(.paymentClaimedBody, ["event": .text(event.title)], in: language),
            data: [
                "event_id": .id(event.id), "event_title": .string(event.title), "claim_id": .id(claim.id),
                "amount": .number(Double(claim.amount)), "currency": .string(claim.currency),
                // Named in data, so that blocks either way hold it back as any naming notification.
                "claimed_by": .person(claim.user.id, claim.user.name),
            ])
        try await jobs.enqueue(message, dedupeKey: "payment_claimed:\(claim.id.lowercased)", on: sql)
        changes.record(.jobs)
    }
}

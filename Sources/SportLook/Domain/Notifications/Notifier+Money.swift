import Foundation

/// Whose money a notice is about: a game (its organiser keeps its ledger) or a group's
/// dues (its owner collects them).
struct LedgerSubject: Sendable {
    var account: LedgerAccount
    var title: String
    var keeper: UserSummary

    init(_ event: Event) {
        account = .event(event.id)
        title = event.title
        keeper = UserSummary(id: event.organiserID, name: event.organiserName)
    }

    init(_ group: Group) {
        account = .group(group.id)
        title = group.name
        keeper = group.owner
    }

    /// `event_id` or `group_id`, and the title, for a notification's data.
    var data: [String: JSONValue] {
        switch account {
        case .event(let id): ["event_id": .id(id), "event_title": .string(title)]
        case .group(let id): ["group_id": .id(id), "group_name": .string(title)]
        }
    }

    /// The game's id, or `group:<id>`, for collapse and dedupe keys.
    var key: String {
        switch account {
        case .event(let id): id.lowercased
        case .group(let id): "group:" + id.lowercased
        }
    }
}

/// What money tells people: what they still owe at a game or in a group's dues (reminders,
/// three at most), and the keeper that a player says they paid.
extension Notifier {
    /// Tells each person owing at the game (or in the group) how much, in their language.
    /// `round` names the reminder (with the period, for dues) so each goes once.
    func paymentDue(
        _ subject: LedgerSubject, owing: [(user: UUID, currency: String, amount: Int)], round: String, at now: Date,
        on sql: DatabaseSession,
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
                    title: Catalogue.text(
                        subject.account.eventID != nil ? .paymentDueTitle : .duesDueTitle,
                        ["amount": .text(amount), "event": .text(subject.title), "group": .text(subject.title)], in: language),
                    body: Catalogue.text(
                        subject.account.eventID != nil ? .paymentDueBody : .duesDueBody,
                        ["organiser": .text(subject.keeper.name), "owner": .text(subject.keeper.name)], in: language),
                    data: subject.data.merging([
                        "amount": .number(Double(person.amount)), "currency": .string(person.currency),
                        "organiser": .person(subject.keeper.id, subject.keeper.name),
                    ]) { a, _ in a }, collapseKey: "payment_due:\(subject.key)"
                ), "payment_due:\(subject.key):\(person.user.lowercased):\(round)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// Tells the game's organiser (the group's owner) of a player's "I paid".
    func paymentClaimed(
        _ subject: LedgerSubject, claim: PaymentClaim, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let keeper = subject.keeper.id
        let language = try await accounts.languages(of: [keeper], on: sql)[keeper] ?? .en
        let amount = Texts.money(claim.amount, currency: claim.currency, in: language)
        let message = NotificationMessage(
            to: keeper, .paymentClaimed,
            title: Catalogue.text(.paymentClaimedTitle, ["person": .text(claim.user.name), "amount": .text(amount)], in: language),
            body: Catalogue.text(
                subject.account.eventID != nil ? .paymentClaimedBody : .duesClaimedBody,
                ["event": .text(subject.title), "group": .text(subject.title)],
                in: language),
            data: subject.data.merging([
                "claim_id": .id(claim.id), "amount": .number(Double(claim.amount)), "currency": .string(claim.currency),
                // Named in data, so that blocks either way hold it back as any naming notification.
                "claimed_by": .person(claim.user.id, claim.user.name),
            ]) { a, _ in a })
        try await jobs.enqueue(message, dedupeKey: "payment_claimed:\(claim.id.lowercased)", on: sql)
        changes.record(.jobs)
    }
}

import Foundation

/// What game day tells the people going: their team when teams are published (or when
/// they join a game whose teams are out), their new team when a rebalance moved them, a
/// score to answer, a substitute's place; and a poll's reminder and close.
extension Notifier {
    enum TeamNotice: Sendable {
        case published
        case moved
    }

    /// Tells each of `people` which team (numbered from 0) is theirs.
    func teams(
        _ notice: TeamNotice, _ event: Event, people: [(user: UUID, team: Int)], at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        guard !people.isEmpty else { return }
        let languages = try await accounts.languages(of: people.map(\.user), on: sql)
        let (kind, titleKey, bodyKey): (NotificationKind, Catalogue.Key, Catalogue.Key) =
            switch notice {
            case .published: (.teamsPublished, .teamsPublishedTitle, .teamsPublishedBody)
            case .moved: (.teamMoved, .teamMovedTitle, .teamMovedBody)
            }
        let messages = people.map { person in
            let language = languages[person.user] ?? .en
            return (
                NotificationMessage(
                    to: person.user, kind, title: Catalogue.text(titleKey, ["event": .text(event.title)], in: language),
                    body: Catalogue.text(bodyKey, ["team": .number(Double(person.team + 1))], in: language),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "starts_at": .string(RFC3339.format(event.startsAt)), "team": .number(Double(person.team + 1)),
                    ]
                ), "\(kind.rawValue):\(event.id.lowercased):\(person.user.lowercased):\(person.team):\(now.millisecondsSince1970)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// The players of the other teams hear of an entered score, to confirm or dispute it.
    func resultEntered(
        _ event: Event, scores: [Int], by person: UserSummary, to people: [UUID], at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        guard !people.isEmpty else { return }
        let languages = try await accounts.languages(of: people, on: sql)
        let score = scores.map(String.init).joined(separator: "–")
        let messages = people.map { user in
            let language = languages[user] ?? .en
            return (
                NotificationMessage(
                    to: user, .resultEntered,
                    title: Catalogue.text(.resultEnteredTitle, ["event": .text(event.title), "score": .text(score)], in: language),
                    body: Catalogue.text(.resultEnteredBody, ["person": .text(person.name)], in: language),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "scores": .array(scores.map { .number(Double($0)) }),
                        // Named in data, so that blocks either way hold it back as any naming notification.
                        "entered_by": .person(person.id, person.name),
                    ]
                ), "result_entered:\(event.id.lowercased):\(user.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// The people a substitute's place is offered to, until the request runs out.
    func substituteOffer(
        _ event: Event, request: SubstituteRequest, to people: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        guard !people.isEmpty else { return }
        let languages = try await accounts.languages(of: people, on: sql)
        let messages = people.map { user in
            let language = languages[user] ?? .en
            let when = Texts.localWhen(language, request.expiresAt, timeZone: event.timeZone, now: now)
            return (
                NotificationMessage(
                    to: user, .substituteOffer, title: Catalogue.text(.substituteOfferTitle, ["event": .text(event.title)], in: language),
                    body: Catalogue.text(
                        .substituteOfferBody, ["person": .text(request.requester.name), "when": .text(when)], in: language),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "starts_at": .string(RFC3339.format(event.startsAt)),
                        "request_id": .id(request.id), "expires_at": .string(RFC3339.format(request.expiresAt)),
                        "requester": .person(request.requester.id, request.requester.name),
                    ]
                ), "substitute_offer:\(request.id.lowercased):\(user.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// The player who asked hears who took their place.
    func substituteFound(
        _ event: Event, request: UUID, by person: UserSummary, to requester: UUID, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        let language = try await accounts.languages(of: [requester], on: sql)[requester] ?? .en
        let message = NotificationMessage(
            to: requester, .substituteFound, title: Catalogue.text(.substituteFoundTitle, ["person": .text(person.name)], in: language),
            body: Catalogue.text(.substituteFoundBody, ["person": .text(person.name), "event": .text(event.title)], in: language),
            data: ["event_id": .id(event.id), "event_title": .string(event.title), "substitute": .person(person.id, person.name)])
        try await jobs.enqueue(
            message, dedupeKey: "substitute_found:\(request.lowercased)", on: sql)
        changes.record(.jobs)
    }

    enum PollNotice: Sendable {
        /// To those who have not answered, before it closes.
        case reminder
        /// To its author, when it closed.
        case closed
    }

    /// Tells `people` of the poll `message` holds.
    func poll(
        _ notice: PollNotice, _ message: ChatMessage, to people: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    )
        async throws
    {
        guard !people.isEmpty else { return }
        let languages = try await accounts.languages(of: people, on: sql)
        let question = String(message.body.prefix(80))
        let (kind, titleKey, bodyKey): (NotificationKind, Catalogue.Key, Catalogue.Key) =
            switch notice {
            case .reminder: (.pollReminder, .pollReminderTitle, .pollReminderBody)
            case .closed: (.pollClosed, .pollClosedTitle, .pollClosedBody)
            }
        var data: [String: JSONValue] = [
            "room_id": .id(message.roomID), "seq": .number(Double(message.seq)), "question": .string(question),
            // Named in data, so that blocks either way hold it back as any naming notification.
            "sender": .person(message.sender.id, message.sender.name),
        ]
        if let event = message.eventID { data["event_id"] = .id(event) }
        let messages = people.map { user in
            let language = languages[user] ?? .en
            return (
                NotificationMessage(
                    to: user, kind, title: Catalogue.text(titleKey, ["question": .text(question)], in: language),
                    body: Catalogue.text(bodyKey, ["person": .text(message.sender.name)], in: language), data: data),
                "\(kind.rawValue):\(message.roomID.lowercased):\(message.seq):\(user.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }
}

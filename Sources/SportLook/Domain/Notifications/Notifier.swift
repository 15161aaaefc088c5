import Foundation

/// Queues the notifications a change causes, in the change's own transaction, each in
/// its recipient's language (``Catalogue``).
struct Notifier: Sendable {
    let jobs: JobStore
    let accounts: AccountStore

    /// `key` with `arguments`, in `user`'s language.
    private func text(_ key: Catalogue.Key, _ arguments: [String: MessageArgument] = [:], for user: UUID, _ languages: [UUID: Language])
        -> String
    {
        Catalogue.text(key, arguments, in: languages[user] ?? .en)
    }

    func waitlistPromoted(_ event: Event, users: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let languages = try await accounts.languages(of: users, on: sql)
        for user in users {
            let message = NotificationMessage(
                to: user, .waitlistPromoted, title: text(.waitlistPromotedTitle, ["event": .text(event.title)], for: user, languages),
                body: text(.waitlistPromotedBody, for: user, languages),
                data: [
                    "event_id": .id(event.id), "event_title": .string(event.title), "starts_at": .string(RFC3339.format(event.startsAt)),
                ]
            )
            try await jobs.enqueue(
                message, dedupeKey: "waitlist_promoted:\(event.id.lowercased):\(user.lowercased):\(event.version)", on: sql)
            changes.record(.jobs)
        }
    }

    /// A place is offered to each of `users` until `expiresAt`.
    func waitlistOffer(_ event: Event, users: [UUID], expiresAt: Date, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        let languages = try await accounts.languages(of: users, on: sql)
        let messages = users.map { user in
            let language = languages[user] ?? .en
            let when = Texts.localWhen(language, expiresAt, timeZone: event.timeZone, now: now)
            return (
                NotificationMessage(
                    to: user, .waitlistOffer, title: Catalogue.text(.waitlistOfferTitle, ["event": .text(event.title)], in: language),
                    body: Catalogue.text(.waitlistOfferBody, ["when": .text(when)], in: language),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "starts_at": .string(RFC3339.format(event.startsAt)),
                        "expires_at": .string(RFC3339.format(expiresAt)),
                    ]
                ), "waitlist_offer:\(event.id.lowercased):\(user.lowercased):\(expiresAt.millisecondsSince1970)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// Someone asks to join a group: each of its admins is told.
    func groupRequest(
        _ group: Group, from person: UserSummary, to admins: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let languages = try await accounts.languages(of: admins, on: sql)
        let messages = admins.map { admin in
            (
                NotificationMessage(
                    to: admin, .groupRequest,
                    title: text(.groupRequestTitle, ["person": .text(person.name), "group": .text(group.name)], for: admin, languages),
                    body: text(.groupRequestBody, for: admin, languages),
                    data: ["group_id": .id(group.id), "group_name": .string(group.name), "requester": .person(person.id, person.name)],
                    collapseKey: "group_request:\(group.id.lowercased)"
                        // At most one a day per person, group and admin, however often they ask and withdraw.
                ),
                "group_request:\(group.id.lowercased):\(person.id.lowercased):\(admin.lowercased):\(now.millisecondsSince1970 / 86_400_000)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// A group's admin made an event: its members hear of it (those who muted the
    /// group do not), once each.
    func groupEvent(_ event: Event, group: Group, to members: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        guard !members.isEmpty else { return }
        let languages = try await accounts.languages(of: members, on: sql)
        let messages = members.map { member in
            (
                NotificationMessage(
                    to: member, .groupEvent,
                    title: text(.groupEventTitle, ["group": .text(group.name), "event": .text(event.title)], for: member, languages),
                    body: text(event.membersOnly ? .groupEventMembersOnlyBody : .groupEventBody, for: member, languages),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "starts_at": .string(RFC3339.format(event.startsAt)),
                        "group_id": .id(group.id), "group_name": .string(group.name),
                    ],
                    collapseKey: "group_event:\(event.id.lowercased)"
                ), "group_event:\(event.id.lowercased):\(member.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// An admin answered someone's request to join.
    func groupAnswer(_ group: Group, accepted: Bool, to person: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        let languages = try await accounts.languages(of: [person], on: sql)
        let named: [String: MessageArgument] = ["group": .text(group.name)]
        let message = NotificationMessage(
            to: person, accepted ? .groupRequestAccepted : .groupRequestRefused,
            title: text(accepted ? .groupAcceptedTitle : .groupRefusedTitle, named, for: person, languages),
            body: text(accepted ? .groupAcceptedBody : .groupRefusedBody, for: person, languages),
            data: ["group_id": .id(group.id), "group_name": .string(group.name)]
        )
        try await jobs.enqueue(
            message, dedupeKey: "group_answer:\(group.id.lowercased):\(person.lowercased):\(now.millisecondsSince1970)", on: sql)
        changes.record(.jobs)
    }

    /// The offer ran out: the person is off the waitlist.
    func offerExpired(_ event: Event, user: UUID, expiredAt: Date, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        let languages = try await accounts.languages(of: [user], on: sql)
        let message = NotificationMessage(
            to: user, .waitlistOfferExpired, title: text(.offerExpiredTitle, ["event": .text(event.title)], for: user, languages),
            body: text(.offerExpiredBody, for: user, languages),
            data: ["event_id": .id(event.id), "event_title": .string(event.title), "expired_at": .string(RFC3339.format(expiredAt))]
        )
        try await jobs.enqueue(
            message, dedupeKey: "offer_expired:\(event.id.lowercased):\(user.lowercased):\(expiredAt.millisecondsSince1970)", on: sql)
        changes.record(.jobs)
    }

    func eventUpdated(
        _ event: Event, changed: [String], recipients: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let languages = try await accounts.languages(of: recipients, on: sql)
        for user in recipients {
            let message = NotificationMessage(
                to: user, .eventUpdated, title: text(.eventUpdatedTitle, ["event": .text(event.title)], for: user, languages),
                body: text(changed.contains("location") ? .eventUpdatedPlaceBody : .eventUpdatedTimeBody, for: user, languages),
                data: [
                    "event_id": .id(event.id), "event_title": .string(event.title), "changed": .array(changed.map(JSONValue.string)),
                    "starts_at": .string(RFC3339.format(event.startsAt)),
                ]
            )
            try await jobs.enqueue(message, dedupeKey: "event_updated:\(event.id.lowercased):\(event.version):\(user.lowercased)", on: sql)
            changes.record(.jobs)
        }
    }

    /// Why a game was cancelled: by its organiser, or (`not_enough_players`) at its
    /// decision time with fewer going than it needed.
    enum CancelReason: Sendable, Equatable {
        case organiser
        case notEnoughPlayers(going: Int, needed: Int)
        /// Its group was deleted.
        case groupEnded(name: String)
        /// Its organiser is no longer in its group (a members-only game).
        case organiserLeftGroup(name: String)

        var code: String {
            switch self {
            case .organiser: "organiser"
            case .notEnoughPlayers: "not_enough_players"
            case .groupEnded: "group_deleted"
            case .organiserLeftGroup: "organiser_left_group"
            }
        }
        /// The reason as a sentence of the catalogue, with its arguments.
        var sentence: (key: Catalogue.Key, arguments: [String: MessageArgument]) {
            switch self {
            case .organiser: (.cancelledByOrganiser, [:])
            case .groupEnded(let name): (.cancelledGroupDeleted, ["group": .text(name)])
            case .organiserLeftGroup(let name): (.cancelledOrganiserLeftGroup, ["group": .text(name)])
            case .notEnoughPlayers(let going, let needed):
                (.cancelledNotEnoughPlayers, ["going": .number(Double(going)), "needed": .number(Double(needed))])
            }
        }
    }

    func eventCancelled(
        _ event: Event, recipients: [UUID], reason: CancelReason = .organiser, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        let languages = try await accounts.languages(of: recipients, on: sql)
        let sentence = reason.sentence
        for user in recipients {
            let message = NotificationMessage(
                to: user, .eventCancelled, title: text(.eventCancelledTitle, ["event": .text(event.title)], for: user, languages),
                body: text(sentence.key, sentence.arguments, for: user, languages),
                data: ["event_id": .id(event.id), "event_title": .string(event.title), "reason": .string(reason.code)]
            )
            try await jobs.enqueue(message, dedupeKey: "event_cancelled:\(event.id.lowercased):\(user.lowercased)", on: sql)
            changes.record(.jobs)
        }
    }

    /// Enough players are going: everyone going is told the game is on.
    func gameOn(_ event: Event, recipients: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let languages = try await accounts.languages(of: recipients, on: sql)
        let messages = recipients.map { user in
            (
                NotificationMessage(
                    to: user, .gameOn, title: text(.gameOnTitle, ["event": .text(event.title)], for: user, languages),
                    body: text(.gameOnBody, ["event": .text(event.title)], for: user, languages),
                    data: [
                        "event_id": .id(event.id), "event_title": .string(event.title),
                        "starts_at": .string(RFC3339.format(event.startsAt)),
                        "going_count": .number(Double(event.goingCount)),
                    ]
                ), "game_on:\(event.id.lowercased):\(user.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    func invitations(_ invitations: [Invitation], event: Event, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        let languages = try await accounts.languages(of: invitations.map(\.invitee.id), on: sql)
        let messages = invitations.map { invitation in
            (
                NotificationMessage(
                    to: invitation.invitee.id, .invitation,
                    title: text(.invitationTitle, ["event": .text(event.title)], for: invitation.invitee.id, languages),
                    body: text(
                        .invitationBody, ["inviter": .text(invitation.inviter.name), "event": .text(event.title)],
                        for: invitation.invitee.id,
                        languages),
                    data: [
                        "invitation_id": .id(invitation.id), "event_id": .id(event.id), "event_title": .string(event.title),
                        "inviter": .person(invitation.inviter.id, invitation.inviter.name),
                        "starts_at": .string(RFC3339.format(event.startsAt)),
                    ]
                ), "invitation:\(invitation.id.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    func invitationAccepted(
        id: UUID, event: Event, invitee: UserSummary, inviter: UUID, status: AttendanceStatus, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        let languages = try await accounts.languages(of: [inviter], on: sql)
        let named: [String: MessageArgument] = ["invitee": .text(invitee.name), "event": .text(event.title)]
        let message = NotificationMessage(
            to: inviter, .invitationAccepted, title: text(.invitationAcceptedTitle, named, for: inviter, languages),
            body: text(.invitationAcceptedBody, named, for: inviter, languages),
            data: [
                "invitation_id": .id(id), "event_id": .id(event.id), "event_title": .string(event.title),
                "invitee": .person(invitee.id, invitee.name), "status": .string(status.rawValue),
            ]
        )
        try await jobs.enqueue(message, dedupeKey: "invitation_accepted:\(id.lowercased)", on: sql)
        changes.record(.jobs)
    }

    /// One collapsed notification per person and room while they have not read it
    /// (an event's room is titled after the event, a conversation after the sender).
    /// Those mentioned are told so, muted room or not, in their language; a photo
    /// without text is named in each person's language (`preview` nil).
    func chatMessage(
        _ heading: ChatHeading, seq: Int64, sender: UserSummary, preview: String?, recipients: [UUID], mentioned: Set<UUID>,
        at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let worded = preview == nil ? recipients : Array(mentioned)
        let languages = worded.isEmpty ? [:] : try await accounts.languages(of: worded, on: sql)
        // In one order for every message: two sends at once upsert the same rows, and in
        // different orders they deadlocked on PostgreSQL (a 500 seen in CI).
        for user in recipients.sorted(by: { $0.uuidString < $1.uuidString }) {
            let (message, dedupeKey) = Self.chatNotification(
                heading, seq: seq, sender: sender, preview: preview, to: user, mentioned: mentioned.contains(user),
                language: languages[user] ?? .en)
            // A short delay lets a client that reconnects at once read it in the chat instead.
            try await jobs.enqueueCollapsing(message, dedupeKey: dedupeKey, delay: Self.chatDelay, on: sql)
            changes.record(.jobs)
        }
    }

    /// How long a chat message's notification waits before it is pushed.
    static let chatDelay: TimeInterval = 2

    /// The notification of a chat message to one person, in their `language`, and its
    /// job's dedupe key. A plain text message's reads the same in every language (the
    /// statement that stores a message queues it for everyone at once: ``chatJobs``).
    static func chatNotification(
        _ heading: ChatHeading, seq: Int64, sender: UserSummary, preview: String?, to user: UUID, mentioned: Bool,
        language: Language
    ) -> (message: NotificationMessage, dedupeKey: String) {
        let room: UUID
        let title: String
        var data: [String: JSONValue] = ["seq": .number(Double(seq)), "sender": .person(sender.id, sender.name)]
        switch heading {
        case .event(let id, let eventTitle):
            room = id
            title = eventTitle
            data["event_id"] = .id(id)
            data["event_title"] = .string(eventTitle)
        case .conversation(let id):
            room = id
            title = sender.name
        case .group(let id, let name):
            room = id
            title = name
            data["group_id"] = .id(id)
            data["group_name"] = .string(name)
        }
        data["room_id"] = .id(room)
        let words = preview.map { String($0.prefix(120)) } ?? Catalogue.text(.chatPhoto, in: language)
        let body = Catalogue.text(
            mentioned ? .chatMentionBody : .chatMessageBody, ["sender": .text(sender.name), "preview": .text(words)], in: language)
        if mentioned { data["mentioned"] = .bool(true) }
        let message = NotificationMessage(
            to: user, .chatMessage, title: title, body: body, data: data, collapseKey: "chat:\(room.lowercased)")
        return (message, "chat_message:\(room.lowercased):\(user.lowercased)")
    }

    /// A chat message's notification for a statement that stores the message to queue
    /// itself, for people it learns of only then (none mentioned): the job's payload as
    /// the text before the seq, between the seq and the recipient's id (upper case, as
    /// `JSONEncoder` writes a `UUID`), and after it; the dedupe key before the recipient's
    /// id (lower case); the job's kind and its times. The same bytes as
    /// ``chatMessage(_:seq:sender:preview:recipients:mentioned:at:on:changes:)`` queues.
    /// `nil` if the encoder's text cannot be cut so (the caller then queues them itself).
    func chatJobs(_ heading: ChatHeading, sender: UserSummary, preview: String) -> ChatJobs? {
        let (seq, user) = (Int64(918_273_645), UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!)
        let (message, dedupeKey) = Self.chatNotification(
            heading, seq: seq, sender: sender, preview: preview, to: user, mentioned: false, language: .en)
        let payload = message.encoded
        let seqText = "\"seq\":\(seq)"
        let userText = "\"\(user.uuidString)\""
        let seqParts = payload.components(separatedBy: seqText)
        let userParts = payload.components(separatedBy: userText)
        let keyParts = dedupeKey.components(separatedBy: user.lowercased)
        guard seqParts.count == 2, userParts.count == 2, keyParts.count == 2, keyParts[1].isEmpty,
            let afterSeq = seqParts[1].range(of: userText)
        else { return nil }
        let now = jobs.clock.now()
        return ChatJobs(
            head: seqParts[0] + "\"seq\":", middle: String(seqParts[1][..<afterSeq.lowerBound]) + "\"",
            tail: "\"" + seqParts[1][afterSeq.upperBound...], dedupePrefix: keyParts[0], kind: message.kind,
            now: now, runAt: now.addingTimeInterval(Self.chatDelay))
    }

    /// An edited or deleted message's old text leaves the pushes queued (or kept) for
    /// it: where a chat notification of the room shows it, it now shows the new text,
    /// or (`to` nil) says, in its recipient's language, that the message was deleted.
    /// A few statements whatever the room's size: one per language and kind of body.
    func chatMessageChanged(room: UUID, sender: UserSummary, from body: String, to new: String?, on sql: DatabaseSession) async throws {
        guard !body.isEmpty else { return }
        let prefix = "chat_message:\(room.lowercased):"
        let old = String(body.prefix(120))
        let waiting = try await jobs.jobs(dedupePrefix: prefix, payloadHolding: old, on: sql).compactMap { job in
            UUID(uuidString: String(job.dedupeKey.dropFirst(prefix.count))).map { (id: job.id, user: $0) }
        }
        guard !waiting.isEmpty else { return }
        let languages = try await accounts.languages(of: waiting.map(\.user), on: sql)
        let byLanguage = Dictionary(grouping: waiting) { languages[$0.user] ?? .en }
        let name = MessageArgument.text(sender.name)
        func worded(_ key: Catalogue.Key, _ text: String, _ language: Language) -> String {
            Catalogue.text(key, ["sender": name, "preview": .text(text)], in: language)
        }
        for (language, group) in byLanguage.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let ids = group.map(\.id)
            let deleted = Catalogue.text(.chatMessageDeleted, ["sender": name], in: language)
            // A mention was worded in the language the person had then: each is looked for.
            for written in Language.allCases {
                for key in [Catalogue.Key.chatMessageBody, .chatMentionBody] where written == .en || key == .chatMentionBody {
                    let replacement = new.map { worded(key, String($0.prefix(120)), written) } ?? deleted
                    try await jobs.replaceInPayloads(of: ids, field: "body", from: worded(key, old, written), to: replacement, on: sql)
                }
            }
        }
    }
}

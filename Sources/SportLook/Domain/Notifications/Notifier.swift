import Foundation

/// Queues the notifications a change causes, in the change's own transaction.
struct Notifier: Sendable {
    let jobs: JobStore

    func waitlistPromoted(_ event: Event, users: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        for user in users {
            let message = NotificationMessage(
                to: user, .waitlistPromoted, title: "You're in: \(event.title)", body: "A place opened up: you are now going.",
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
        let messages = users.map { user in
            (
                NotificationMessage(
                    to: user, .waitlistOffer, title: "A place for you: \(event.title)",
                    body: "A place opened up: take it by \(RFC3339.format(expiresAt)) or it passes on.",
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
        let messages = admins.map { admin in
            (
                NotificationMessage(
                    to: admin, .groupRequest, title: "\(person.name) asks to join \(group.name)",
                    body: "Accept or refuse the request in the group.",
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
        let messages = members.map { member in
            (
                NotificationMessage(
                    to: member, .groupEvent, title: "\(group.name): \(event.title)",
                    body: "A new \(event.membersOnly ? "members-only " : "")game in the group. Join it in the app.",
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
        let message = NotificationMessage(
            to: person, accepted ? .groupRequestAccepted : .groupRequestRefused,
            title: accepted ? "Welcome to \(group.name)" : "\(group.name) did not accept your request",
            body: accepted ? "Your request to join was accepted: you are a member." : "An admin refused your request to join.",
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
        let message = NotificationMessage(
            to: user, .waitlistOfferExpired, title: "The place passed on: \(event.title)",
            body: "The place offered to you was not taken in time; you are off the waitlist.",
            data: ["event_id": .id(event.id), "event_title": .string(event.title), "expired_at": .string(RFC3339.format(expiredAt))]
        )
        try await jobs.enqueue(
            message, dedupeKey: "offer_expired:\(event.id.lowercased):\(user.lowercased):\(expiredAt.millisecondsSince1970)", on: sql)
        changes.record(.jobs)
    }

    func eventUpdated(
        _ event: Event, changed: [String], recipients: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        for user in recipients {
            let message = NotificationMessage(
                to: user, .eventUpdated, title: "\(event.title) has changed",
                body: "New \(changed.contains("location") ? "place" : "time"): check the details.",
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
        var sentence: String {
            switch self {
            case .organiser: "The organiser cancelled it."
            case .groupEnded(let name): "Its group, \(name), was deleted."
            case .organiserLeftGroup(let name): "Its organiser is no longer in \(name)."
            case .notEnoughPlayers(let going, let needed): "Not enough players: \(going) of the \(needed) needed were going."
            }
        }
    }

    func eventCancelled(
        _ event: Event, recipients: [UUID], reason: CancelReason = .organiser, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        for user in recipients {
            let message = NotificationMessage(
                to: user, .eventCancelled, title: "\(event.title) is cancelled", body: reason.sentence,
                data: ["event_id": .id(event.id), "event_title": .string(event.title), "reason": .string(reason.code)]
            )
            try await jobs.enqueue(message, dedupeKey: "event_cancelled:\(event.id.lowercased):\(user.lowercased)", on: sql)
            changes.record(.jobs)
        }
    }

    /// Enough players are going: everyone going is told the game is on.
    func gameOn(_ event: Event, recipients: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        let messages = recipients.map { user in
            (
                NotificationMessage(
                    to: user, .gameOn, title: "Game on: \(event.title)", body: "Enough players are going: \(event.title) happens.",
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
        let messages = invitations.map { invitation in
            (
                NotificationMessage(
                    to: invitation.invitee.id, .invitation, title: "Invitation: \(event.title)",
                    body: "\(invitation.inviter.name) invites you to \(event.title).",
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
        let message = NotificationMessage(
            to: inviter, .invitationAccepted, title: "\(invitee.name) is coming",
            body: "\(invitee.name) accepted your invitation to \(event.title).",
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
    /// Those mentioned are told so, muted room or not.
    func chatMessage(
        _ heading: ChatHeading, seq: Int64, sender: UserSummary, preview: String, recipients: [UUID], mentioned: Set<UUID>,
        at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        // In one order for every message: two sends at once upsert the same rows, and in
        // different orders they deadlocked on PostgreSQL (a 500 seen in CI).
        for user in recipients.sorted(by: { $0.uuidString < $1.uuidString }) {
            let (message, dedupeKey) = Self.chatNotification(
                heading, seq: seq, sender: sender, preview: preview, to: user, mentioned: mentioned.contains(user))
            // A short delay lets a client that reconnects at once read it in the chat instead.
            try await jobs.enqueueCollapsing(message, dedupeKey: dedupeKey, delay: Self.chatDelay, on: sql)
            changes.record(.jobs)
        }
    }

    /// How long a chat message's notification waits before it is pushed.
    static let chatDelay: TimeInterval = 2

    /// The notification of a chat message to one person, and its job's dedupe key.
    static func chatNotification(
        _ heading: ChatHeading, seq: Int64, sender: UserSummary, preview: String, to user: UUID,
        mentioned: Bool
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
        var body = "\(sender.name): \(preview.prefix(120))"
        if mentioned {
            body = "\(sender.name) mentioned you: \(preview.prefix(120))"
            data["mentioned"] = .bool(true)
        }
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
        let (message, dedupeKey) = Self.chatNotification(heading, seq: seq, sender: sender, preview: preview, to: user, mentioned: false)
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
    /// or (`to` nil) says the message was deleted.
    func chatMessageChanged(room: UUID, sender: UserSummary, from body: String, to new: String?, on sql: DatabaseSession) async throws {
        guard !body.isEmpty else { return }
        for prefix in ["\(sender.name): ", "\(sender.name) mentioned you: "] {
            let replacement = new.map { prefix + $0.prefix(120) } ?? "\(sender.name): Message deleted"
            try await jobs.replaceInPayloads(
                dedupePrefix: "chat_message:\(room.lowercased):", field: "body", from: prefix + body.prefix(120), to: replacement, on: sql)
        }
    }
}

import Foundation

/// Polls in the chat: a poll is sent as a message (``ChatService/send(to:from:_:)``
/// with a ``Draft``); votes, closing, the reminder of those who have not voted, and a
/// closed time poll made into a game or a weekly series are here. Votes change the
/// message, so their counts travel on the room's change stream to every socket.
struct Polls: Sendable {
    let chat: ChatService
    let store: ChatStore
    let safety: SafetyStore
    let events: EventService
    let series: SeriesService
    let invitations: InvitationService
    let notifier: Notifier
    let write: Writer
    let clock: any AppClock

    static let options = 2...10
    static let labelLimit = 1...80
    /// How long a poll may stay open, and how long it stays open unless told.
    static let longest: TimeInterval = 30 * 86_400
    static let usual: TimeInterval = 7 * 86_400
    static let shortest: TimeInterval = 5 * 60
    /// The reminder comes this long before the close (or half-way, for a short poll).
    static let reminderLead: TimeInterval = 86_400

    /// A poll as sent.
    struct Draft: Decodable, Sendable {
        var kind: String?
        var options: [OptionDraft]?
        var multiple: Bool?
        var anonymous: Bool?
        var onePerOption: Bool?
        var closesAt: String?

        struct OptionDraft: Decodable, Sendable {
            var label: String?
            var startsAt: String?
            var endsAt: String?
        }
    }

    /// The poll a draft asks for, checked, as of `now`.
    static func poll(_ draft: Draft, at now: Date, into v: inout Validator) -> ChatPoll? {
        let kind = ChatPoll.Kind(rawValue: draft.kind ?? "choice")
        if kind == nil { v.fail("poll.kind", Sentence("must be choice or time")) }
        let drafts = draft.options ?? []
        guard Self.options.contains(drafts.count) else {
            v.fail("poll.options", Sentence("must list \(Self.options.lowerBound)–\(Self.options.upperBound) options"))
            return nil
        }
        var options: [PollOption] = []
        for (i, option) in drafts.enumerated() {
            let field = "poll.options[\(i)]"
            if kind == .time {
                // A slot's label is optional: clients show its time.
                let label = (option.label ?? "").isEmpty ? "" : v.text(option.label, field + ".label", Self.labelLimit) ?? ""
                guard let startsAt = option.startsAt.flatMap(RFC3339.parse)?.wholeMilliseconds, startsAt > now else {
                    v.fail(field + ".starts_at", Sentence("must be a coming date and time (RFC 3339)"))
                    continue
                }
                var endsAt: Date?
                if let text = option.endsAt {
                    endsAt = RFC3339.parse(text)?.wholeMilliseconds
                    if endsAt.map({ $0 <= startsAt || $0.timeIntervalSince(startsAt) > 86_400 }) ?? true {
                        v.fail(field + ".ends_at", Sentence("must be a date and time after starts_at, within a day"))
                    }
                }
                if options.contains(where: { $0.startsAt == startsAt }) {
                    v.fail(field + ".starts_at", Sentence("is another option's time too"))
                }
                options.append(PollOption(label: label, startsAt: startsAt, endsAt: endsAt))
            } else {
                guard let label = v.text(option.label, field + ".label", Self.labelLimit) else { continue }
                if options.contains(where: { $0.label.lowercased() == label.lowercased() }) {
                    v.fail(field + ".label", Sentence("is another option's label too"))
                }
                options.append(PollOption(label: label))
            }
        }
        let onePerOption = draft.onePerOption ?? false
        let anonymous = draft.anonymous ?? false
        if onePerOption, anonymous {
            v.fail("poll.anonymous", Sentence("a sign-up list shows who took each option: it cannot be anonymous"))
        }
        // A time poll closes by its first slot at the latest.
        let firstSlot = options.compactMap(\.startsAt).min()
        var closesAt = min(now.addingTimeInterval(Self.usual), firstSlot ?? .distantFuture)
        if let text = draft.closesAt {
            guard let date = RFC3339.parse(text) else {
                v.fail("poll.closes_at", Sentence("must be a date and time (RFC 3339)"))
                return nil
            }
            closesAt = date.wholeMilliseconds
        }
        if closesAt < now.addingTimeInterval(Self.shortest) || closesAt > now.addingTimeInterval(Self.longest) {
            v.fail("poll.closes_at", Sentence("must be between 5 minutes and 30 days from now"))
        } else if let firstSlot, closesAt > firstSlot {
            v.fail("poll.closes_at", Sentence("must be no later than the first time offered"))
        }
        guard let kind, options.count == drafts.count else { return nil }
        return ChatPoll(
            kind: kind, options: options, multiple: draft.multiple ?? false, anonymous: anonymous, onePerOption: onePerOption,
            closesAt: closesAt, closedAt: nil)
    }

    /// The poll's close and its reminder, on the queue's clock (in the caller's transaction).
    static func schedule(_ poll: ChatPoll, room: UUID, seq: Int64, at now: Date, scheduler: Scheduler, on sql: DatabaseSession)
        async throws
    {
        let key = "\(room.lowercased):\(seq)"
        let open = poll.closesAt.timeIntervalSince(now)
        try await scheduler.schedule(
            .pollClose(room: room, seq: seq, closesAt: poll.closesAt), dedupeKey: "poll_close:" + key, after: open, on: sql)
        let lead = min(Self.reminderLead, open / 2)
        try await scheduler.schedule(
            .pollReminder(room: room, seq: seq, closesAt: poll.closesAt), dedupeKey: "poll_reminder:" + key, after: open - lead, on: sql)
    }

    // MARK: Voting

    /// Makes the caller's choices exactly `positions` (empty: no vote). One choice
    /// unless the poll allows several; in a sign-up list, an option someone else took
    /// is refused. The message as the caller sees it now.
    ///
    /// Votes come many a second in one room, each taking the room's next change number
    /// under its lock: the room's rules (taking part, a cancelled game, a block either way)
    /// and the poll's are read before, without the lock, and the answer after the vote; the
    /// lock covers only what the vote decides on and writes
    /// (``ChatStore/castVote(room:seq:user:_:onePerOption:at:notification:on:)``). So a vote
    /// racing a leave, a cancellation or a block lands as if cast just before it (a vote
    /// is kept when its voter leaves, as then), while the poll's close and deletion are
    /// decided under the lock.
    func vote(_ roomID: UUID, seq: Int64, by user: UUID, positions: [Int]?) async throws -> ChatMessage {
        guard let positions else {
            throw DomainError.validation(["options": Sentence("is required: the positions chosen (empty for none)")])
        }
        let chosen = Set(positions)
        guard chosen.count == positions.count, positions.allSatisfy({ $0 >= 0 && $0 < Self.options.upperBound }) else {
            throw DomainError.validation(["options": Sentence("must be distinct positions of the poll's options")])
        }
        let now = clock.now()
        let poll = try await chat.database.read { [chat, store] sql in
            guard let check = try await store.voteCheck(room: roomID, seq: seq, user: user, on: sql) else {
                throw DomainError.notFound(.room)
            }
            try await chat.admitChange(in: check.room, by: user, writing: true, known: (check.member, check.eventActive), on: sql)
            // A poll of someone the caller blocked, or whose author blocked the caller, is not there for them.
            guard check.sender != nil, !check.hidden else { throw DomainError.notFound(.message) }
            guard let poll = check.poll else { throw DomainError.conflict("not_a_poll", Sentence("The message is not a poll.")) }
            return poll
        }
        try Self.check(chosen, in: poll, at: now)
        // A vote is sent to every socket in the room: it counts against the sender's chat rate, as a message
        // does. One that changed nothing (refused, or the choices already made) is not counted.
        let place: RateLimiter.Place
        switch chat.limiter.take(user.lowercased) {
        case .counted(let counted): place = counted
        case .wait(let wait): throw DomainError.tooManyRequests(retryAfter: wait, message: Sentence("You are voting too fast."))
        }
        let notification = write.feed.chatChangeNotification(room: roomID)
        let cast: @Sendable (DatabaseSession, inout ChangeSet) async throws -> ChatStore.VoteOutcome = { [store] sql, changes in
            let outcome = try await store.castVote(
                room: roomID, seq: seq, user: user, chosen, onePerOption: poll.onePerOption, at: now, notification: notification, on: sql)
            if case .voted(let change, let announced) = outcome {
                changes.record(.chatChange(room: roomID, change: change), announced: announced)
            }
            return outcome
        }
        // PostgreSQL: one statement, no transaction around it. SQLite: the single writer's
        // transaction, whose changes reach the sockets after its COMMIT.
        let outcome = try await notification != nil ? write.single(cast) : write(cast)
        if case .voted = outcome {} else { chat.limiter.giveBack(place) }
        switch outcome {
        case .voted, .unchanged: break
        // (The room was there a moment ago: the poll went with its message's deletion, as a read now shows.)
        case .gone: throw DomainError.conflict("not_a_poll", Sentence("The message is not a poll."))
        case .closed: throw DomainError.conflict("poll_closed", Sentence("The poll is closed."))
        case .taken(let position):
            let label = try await store.pollOptionLabel(room: roomID, seq: seq, position: position) ?? "option \(position + 1)"
            throw DomainError.conflict("option_taken", Sentence("Someone already took “\(label)”."))
        }
        // The poll as it is after the vote (other votes committed since included; its change number is read
        // just before them, so never newer), as the voter sees it: counts, not the room's thousand voters.
        let (current, hidden) = try await chat.database.read { [store, safety] sql in
            (try await store.message(room: roomID, seq: seq, seenBy: user, on: sql), try await safety.blockedBy(user, on: sql))
        }
        guard let current, let seen = Blocks.view(current, hiding: hidden, viewer: user) else { throw DomainError.notFound(.message) }
        return seen
    }

    /// Whether `chosen` are positions the poll takes, while it is open.
    private static func check(_ chosen: Set<Int>, in poll: ChatStore.PollRules, at now: Date) throws {
        guard poll.isOpen(at: now) else { throw DomainError.conflict("poll_closed", Sentence("The poll is closed.")) }
        guard chosen.allSatisfy({ $0 < poll.options }) else {
            throw DomainError.validation(["options": Sentence("must be positions of the poll's options (0–\(poll.options - 1))")])
        }
        if !poll.multiple, chosen.count > 1 { throw DomainError.validation(["options": Sentence("this poll takes one choice")]) }
    }

    /// Its author closes the poll before its time.
    func close(_ roomID: UUID, seq: Int64, by user: UUID) async throws -> ChatMessage {
        let now = clock.now()
        return try await chat.change(roomID, seq: seq, by: user, writing: false) { [store] room, message, sql in
            let poll = try Self.poll(of: message)
            guard message.sender.id == user else { throw DomainError.forbidden("not_yours", Sentence("Only its author can close a poll.")) }
            guard poll.closedAt == nil, try await store.closePoll(room: room.id, seq: seq, at: now, on: sql) else { return nil }
            return try await store.nextChange(room: room.id, seq: seq, on: sql)
        }
    }

    private static func poll(of message: ChatMessage) throws -> ChatPoll {
        guard let poll = message.poll else { throw DomainError.conflict("not_a_poll", Sentence("The message is not a poll.")) }
        return poll
    }

    // MARK: Timed

    /// The close of a poll due at `closesAt` (a poll closed early, or gone, is left).
    /// Its author is told.
    func closeDue(room roomID: UUID, seq: Int64, closesAt: Date) async throws {
        let now = clock.now()
        try await write { [store, notifier] sql, changes in
            guard try await store.lockRoom(roomID, on: sql) != nil, let message = try await store.message(room: roomID, seq: seq, on: sql),
                let poll = message.poll, poll.closedAt == nil, poll.closesAt.millisecondsSince1970 == closesAt.millisecondsSince1970,
                try await store.closePoll(room: roomID, seq: seq, at: now, on: sql)
            else { return }
            changes.record(.chatChange(room: roomID, change: try await store.nextChange(room: roomID, seq: seq, on: sql)))
            try await notifier.poll(.closed, message, to: [message.sender.id], at: now, on: sql, changes: &changes)
        }
    }

    /// The reminder of a poll closing at `closesAt`, once: to the people in the room
    /// who have not voted, as a chat message's push would reach them (not muted, shown
    /// the room), but its author and anyone blocked either way with them.
    func remindDue(room roomID: UUID, seq: Int64, closesAt: Date) async throws {
        let now = clock.now()
        try await write { [store, safety, events, notifier] sql, changes in
            guard let room = try await store.lockRoom(roomID, on: sql),
                let message = try await store.message(room: roomID, seq: seq, on: sql),
                let poll = message.poll, poll.isOpen(at: now),
                poll.closesAt.millisecondsSince1970 == closesAt.millisecondsSince1970,
                try await store.markPollReminded(room: roomID, seq: seq, at: now, on: sql)
            else { return }
            let author = message.sender.id
            // A cancelled game's chat takes no votes.
            if let event = room.eventID, try await events.store.event(event, on: sql)?.status != .active { return }
            let voted = Set(poll.options.flatMap(\.voters))
            let blocked = try await safety.blockedEitherWay(among: [author], on: sql)[author] ?? []
            // Those a chat message would be pushed to (in the room and shown it, not muted),
            // present or not: a reminder is not the message itself.
            let members = try await store.absentMembers(
                room: room, except: author, mentioned: [], freshSince: .distantFuture, now: now, on: sql)
            let people = Set(members).subtracting(voted).subtracting(blocked)
            try await notifier.poll(
                .reminder, message, to: people.sorted { $0.lowercased < $1.lowercased }, at: now, on: sql, changes: &changes)
        }
    }
}

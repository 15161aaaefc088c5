import Foundation
import SQLKit

/// Polls in SQL: `chat_polls`, their options and votes. A poll is a message
/// (`chat_messages.poll` says so); its votes move the message's change number, as
/// reactions do.
extension ChatStore {
    // MARK: Polls

    /// Stores the poll of the message just stored at `seq`.
    func insertPoll(_ poll: ChatPoll, room: UUID, seq: Int64, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE chat_messages SET poll = \(bind: true) WHERE room_id = \(bind: room) AND seq = \(bind: seq)").run()
        try await sql.raw(
            """
            INSERT INTO chat_polls (room_id, seq, kind, multiple, anonymous, one_per_option, closes_at)
            VALUES (\(bind: room), \(bind: seq), \(bind: poll.kind.rawValue), \(bind: poll.multiple), \(bind: poll.anonymous),
                \(bind: poll.onePerOption), \(bind: poll.closesAt))
            """
        ).run()
        for (position, option) in poll.options.enumerated() {
            try await sql.raw(
                """
                INSERT INTO chat_poll_options (room_id, seq, position, label, starts_at, ends_at)
                VALUES (\(bind: room), \(bind: seq), \(bind: position), \(bind: option.label), \(bind: option.startsAt), \(bind: option.endsAt))
                """
            ).run()
        }
    }

    /// Fills in the polls of the messages that are polls, with their votes and the
    /// people each poll's author blocked; or, for a `viewer`, each as they see it
    /// (``ChatStatements/PollSeen``).
    func withPolls(_ messages: [ChatMessage], room: UUID, seenBy viewer: UUID? = nil, on sql: any SQLDatabase) async throws
        -> [ChatMessage]
    {
        let seqs = messages.filter { $0.isPoll && $0.deletedAt == nil }.map(\.seq)
        guard !seqs.isEmpty else { return messages }
        var polls: [Int64: ChatPoll] = [:]
        if let viewer {
            for seq in seqs { polls[seq] = try await Self.poll(room: room, seq: seq, seenBy: viewer, on: sql) }
        } else if sql.isPostgres {
            polls = try await Self.pollsInOneRead(room: room, seqs: seqs, on: sql)
        } else {
            polls = try await Self.polls(room: room, seqs: seqs, on: sql)
        }
        return messages.map { message in
            var out = message
            out.poll = polls[message.seq]
            return out
        }
    }

    /// PostgreSQL's read of the polls at `seqs` (``ChatStatements/PollsRead``): one round trip.
    private static func pollsInOneRead(room: UUID, seqs: [Int64], on sql: any SQLDatabase) async throws -> [Int64: ChatPoll] {
        func ids(_ text: String?) -> [UUID] { text.map(UUID.list(commaSeparated:)) ?? [] }
        var polls: [Int64: ChatPoll] = [:]
        for row in try await sql.rows(ChatStatements.PollsRead(room: room, seqs: seqs)) {
            let seq: Int64 = try row.value("seq")
            if polls[seq] == nil {
                var poll = try decodePoll(row)
                poll.hiddenFrom = Set(ids(try row.optional("hidden")))
                polls[seq] = poll
            }
            var option = try decodeOption(row)
            option.voters = ids(try row.optional("voters"))
            polls[seq]?.options.append(option)
        }
        return polls
    }

    /// The poll at `seq` as `viewer` sees it (``ChatStatements/PollSeen``): counts and
    /// each option's first voters, in one statement (one snapshot).
    private static func poll(room: UUID, seq: Int64, seenBy viewer: UUID, on sql: any SQLDatabase) async throws -> ChatPoll? {
        var poll: ChatPoll?
        var seen = ChatPoll.Seen(viewer: viewer, counts: [], votersCount: 0)
        // Counted apart only when several choices each are allowed.
        var distinctVoters: Int?
        for row in try await sql.rows(ChatStatements.PollSeen(room: room, seq: seq, viewer: viewer)) {
            if poll == nil {
                poll = try decodePoll(row)
                if try row.value("hidden", as: Int.self) == 1 { poll?.hiddenFrom = [viewer] }
                distinctVoters = try row.optional("voters_count")
            }
            let position: Int = try row.value("position")
            if position == poll?.options.count {
                var option = try decodeOption(row)
                option.voters = try row.optional("voters", as: String.self).map(UUID.list(commaSeparated:)) ?? []
                poll?.options.append(option)
                seen.counts.append(try row.value("count"))
                if try row.value("mine", as: Int.self) == 1 { poll?.mine.append(position) }
            }
            // SQLite's first voters: a row each.
            if !sql.isPostgres, let voter: UUID = try row.optional("voter"), position < poll?.options.count ?? 0 {
                poll?.options[position].voters.append(voter)
            }
        }
        guard var poll else { return nil }
        // One choice each: as many voted as chose.
        seen.votersCount = distinctVoters ?? seen.counts.reduce(0, +)
        poll.seen = seen
        return poll
    }

    /// A poll's own fields (its options come apart).
    private static func decodePoll(_ row: any SQLRow) throws -> ChatPoll {
        ChatPoll(
            kind: ChatPoll.Kind(rawValue: try row.value("kind")) ?? .choice, options: [], multiple: try row.value("multiple"),
            anonymous: try row.value("anonymous"), onePerOption: try row.value("one_per_option"), closesAt: try row.value("closes_at"),
            closedAt: try row.optional("closed_at"), eventID: try row.optional("made_event_id"),
            seriesID: try row.optional("made_series_id"))
    }

    /// An option's own fields (its voters come apart).
    private static func decodeOption(_ row: any SQLRow) throws -> PollOption {
        PollOption(label: try row.value("label"), startsAt: try row.optional("starts_at"), endsAt: try row.optional("ends_at"))
    }

    /// SQLite's read of the polls at `seqs`: four statements, in the process.
    private static func polls(room: UUID, seqs: [Int64], on sql: any SQLDatabase) async throws -> [Int64: ChatPoll] {
        var polls: [Int64: ChatPoll] = [:]
        for row in try await sql.raw(
            """
            SELECT seq, kind, multiple, anonymous, one_per_option, closes_at, closed_at, made_event_id, made_series_id
            FROM chat_polls WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs))
            """
        ).all() {
            polls[try row.value("seq")] = try decodePoll(row)
        }
        for row in try await sql.raw(
            """
            SELECT seq, position, label, starts_at, ends_at FROM chat_poll_options
            WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs)) ORDER BY seq, position
            """
        ).all() {
            let seq: Int64 = try row.value("seq")
            polls[seq]?.options.append(try decodeOption(row))
        }
        for (seq, position, voters) in try await voters(room: room, seqs: seqs, on: sql) {
            if let count = polls[seq]?.options.count, position < count { polls[seq]?.options[position].voters = voters }
        }
        for row in try await sql.raw(
            """
            SELECT m.seq, b.blocked_id FROM chat_messages m JOIN blocks b ON b.blocker_id = m.sender_id
            WHERE m.room_id = \(bind: room) AND m.seq IN (\(binds: seqs))
            """
        ).all() {
            polls[try row.value("seq")]?.hiddenFrom.insert(try row.value("blocked_id"))
        }
        return polls
    }

    /// What a vote is checked against before it is cast (``ChatStatements/VoteCheck``).
    struct VoteCheck: Sendable {
        var room: Room
        var member: Bool
        /// An event's room: whether the event is on.
        var eventActive: Bool?
        /// The message's sender; nil for no such message.
        var sender: UUID?
        /// Whether the voter or the sender blocked the other.
        var hidden: Bool
        /// The poll's rules; nil for a message that is no poll (or no longer: deleted).
        var poll: PollRules?
    }

    /// A poll's rules, without its options' labels and votes.
    struct PollRules: Sendable {
        var multiple: Bool
        var onePerOption: Bool
        var closesAt: Date
        var closedAt: Date?
        var options: Int

        func isOpen(at now: Date) -> Bool { ChatPoll.isOpen(closesAt: closesAt, closedAt: closedAt, at: now) }
    }

    func voteCheck(room: UUID, seq: Int64, user: UUID, on sql: any SQLDatabase) async throws -> VoteCheck? {
        guard let row = try await sql.rows(ChatStatements.VoteCheck(room: room, user: user, seq: seq)).first else { return nil }
        var poll: PollRules?
        if let closesAt: Date = try row.optional("closes_at") {
            poll = PollRules(
                multiple: try row.value("multiple"), onePerOption: try row.value("one_per_option"), closesAt: closesAt,
                closedAt: try row.optional("closed_at"), options: try row.value("options"))
        }
        let status: String? = try row.optional("event_status")
        return VoteCheck(
            room: try Self.decodeRoom(row), member: try row.value("is_member", as: Int.self) == 1,
            eventActive: status.map { $0 == EventStatus.active.rawValue }, sender: try row.optional("sender_id"),
            hidden: try row.value("hidden", as: Int.self) == 1, poll: poll)
    }

    /// The label of a poll's option.
    func pollOptionLabel(room: UUID, seq: Int64, position: Int) async throws -> String? {
        try await reading(on: nil) { sql in
            try await sql.raw(
                """
                SELECT label FROM chat_poll_options WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND position = \(bind: position)
                """
            ).first().map { try $0.value("label", as: String.self) }
        }
    }

    /// What became of a vote (``castVote(room:seq:user:_:onePerOption:at:notification:on:)``).
    enum VoteOutcome: Equatable, Sendable {
        /// The choices changed and took change number `change`; `announced` when the
        /// statement put the change on the bus itself.
        case voted(change: Int64, announced: Bool)
        /// The choices were these already.
        case unchanged
        /// No such room, or no such poll (the message was deleted).
        case gone
        case closed
        /// In a sign-up list, this option of those chosen is someone else's.
        case taken(Int)
    }

    /// Makes `user`'s choices in the poll exactly `chosen` under the room's lock, the poll
    /// read afresh after the lock: when it is there and open and, in a sign-up list
    /// (`onePerOption`), no option chosen is someone else's. Takes the room's next change
    /// number. Votes come many a second to one room: on PostgreSQL this is one round trip
    /// (the function `chat_poll_vote`, which also puts the change on the bus with
    /// `notification`), so the lock is never held across round trips; SQLite's single
    /// writer runs the same steps here, one after another.
    func castVote(
        room: UUID, seq: Int64, user: UUID, _ chosen: Set<Int>, onePerOption: Bool, at now: Date,
        notification: (head: String, tail: String)?, on sql: any SQLDatabase
    ) async throws -> VoteOutcome {
        if sql.isPostgres, let notification {
            let positions = chosen.sorted().map(String.init).joined(separator: ",")
            guard
                let row = try await sql.raw(
                    """
                    SELECT outcome, change, taken FROM chat_poll_vote(\(bind: room), \(bind: seq), \(bind: user),
                        string_to_array(\(bind: positions), ',')::integer[], \(bind: onePerOption), \(bind: now),
                        \(bind: Bus.channel), \(bind: notification.head), \(bind: notification.tail))
                    """
                ).first()
            else { return .gone }
            switch try row.value("outcome", as: String.self) {
            case "voted": return .voted(change: try row.value("change"), announced: true)
            case "unchanged": return .unchanged
            case "closed": return .closed
            case "taken": return .taken(try row.value("taken"))
            default: return .gone
            }
        }
        guard try await lockRoom(room, on: sql) != nil,
            let ballot = try await ballot(room: room, seq: seq, user: user, asked: onePerOption ? chosen : [], on: sql)
        else { return .gone }
        guard ballot.isOpen(at: now) else { return .closed }
        if let taken = chosen.sorted().first(where: ballot.takenByOthers.contains) { return .taken(taken) }
        guard ballot.mine != chosen else { return .unchanged }
        try await setVotes(room: room, seq: seq, user: user, from: ballot.mine, to: chosen, at: now, on: sql)
        return .voted(change: try await nextChange(room: room, seq: seq, on: sql), announced: false)
    }

    /// What a vote checks under the room's lock, in one read: whether the poll is still
    /// there (not deleted) and open, the options `user` chose, and whether anyone else
    /// holds any of `asked` (a sign-up list's options): not the poll's thousand votes.
    private struct Ballot: Sendable {
        var closesAt: Date
        var closedAt: Date?
        var mine: Set<Int> = []
        var takenByOthers: Set<Int> = []

        func isOpen(at now: Date) -> Bool { ChatPoll.isOpen(closesAt: closesAt, closedAt: closedAt, at: now) }
    }

    private func ballot(room: UUID, seq: Int64, user: UUID, asked: Set<Int>, on sql: any SQLDatabase) async throws -> Ballot? {
        let others: SQLQueryString = asked.isEmpty ? "" : " OR v.position IN (\(binds: asked.sorted()))"
        let rows = try await sql.raw(
            """
            SELECT p.closes_at, p.closed_at, v.position, v.user_id FROM chat_polls p
            LEFT JOIN chat_poll_votes v ON v.room_id = p.room_id AND v.seq = p.seq AND (v.user_id = \(bind: user)\(others))
            WHERE p.room_id = \(bind: room) AND p.seq = \(bind: seq)
            """
        ).all()
        guard let first = rows.first else { return nil }
        var ballot = Ballot(closesAt: try first.value("closes_at"), closedAt: try first.optional("closed_at"))
        for row in rows {
            guard let position: Int = try row.optional("position") else { continue }
            if try row.value("user_id", as: UUID.self) == user {
                ballot.mine.insert(position)
            } else {
                ballot.takenByOthers.insert(position)
            }
        }
        return ballot
    }

    /// Who chose each option of the polls at `seqs`, in the order they voted: SQLite's
    /// read, in the process. PostgreSQL reads them with the poll in one statement
    /// (`ChatStatements.PollsRead`), each option's voters as one text.
    private static func voters(room: UUID, seqs: [Int64], on sql: any SQLDatabase) async throws -> [(Int64, Int, [UUID])] {
        var found: [Int64: [Int: [UUID]]] = [:]
        for row in try await sql.raw(
            """
            SELECT seq, position, user_id FROM chat_poll_votes
            WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs)) ORDER BY created_at, user_id
            """
        ).all() {
            found[try row.value("seq"), default: [:]][try row.value("position"), default: []].append(try row.value("user_id"))
        }
        return found.flatMap { seq, options in options.map { (seq, $0.key, $0.value) } }
    }

    /// Makes the user's choices in the poll `positions`, where they were `before`.
    private func setVotes(
        room: UUID, seq: Int64, user: UUID, from before: Set<Int>, to positions: Set<Int>, at now: Date, on sql: any SQLDatabase
    )
        async throws
    {
        let gone = before.subtracting(positions).sorted()
        if !gone.isEmpty {
            try await sql.raw(
                """
                DELETE FROM chat_poll_votes WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND user_id = \(bind: user) AND position IN (\(binds: gone))
                """
            ).run()
        }
        let added = positions.subtracting(before).sorted()
        guard !added.isEmpty else { return }
        let rows = added.map { "(\(bind: room), \(bind: seq), \(bind: $0), \(bind: user), \(bind: now))" as SQLQueryString }
        try await sql.raw(
            "INSERT INTO chat_poll_votes (room_id, seq, position, user_id, created_at) VALUES \(rows.joined(separator: ", "))"
        ).run()
    }

    /// Closes the poll; `false` when it was closed already.
    func closePoll(room: UUID, seq: Int64, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE chat_polls SET closed_at = \(bind: now) WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND closed_at IS NULL RETURNING seq
            """
        ).first() != nil
    }

    /// Notes the reminder of the poll's non-voters; `false` when it was noted already.
    func markPollReminded(room: UUID, seq: Int64, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE chat_polls SET reminded_at = \(bind: now) WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND reminded_at IS NULL RETURNING seq
            """
        ).first() != nil
    }

    /// Claims the making of a game or a series from the poll; `false` when it was claimed.
    /// A claim that made nothing within ``claimLifetime`` (its maker stopped midway) is
    /// taken over.
    func claimPoll(room: UUID, seq: Int64, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE chat_polls SET made_at = \(bind: now) WHERE room_id = \(bind: room) AND seq = \(bind: seq)
                AND (made_at IS NULL OR (made_at < \(bind: now.addingTimeInterval(-Self.claimLifetime)) AND made_event_id IS NULL AND made_series_id IS NULL))
            RETURNING seq
            """
        ).first() != nil
    }

    static let claimLifetime: TimeInterval = 10 * 60

    /// Gives a claim back (the game or series was refused).
    func releasePoll(room: UUID, seq: Int64, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE chat_polls SET made_at = NULL WHERE room_id = \(bind: room) AND seq = \(bind: seq)").run()
    }

    /// Notes the game or the series a closed time poll became.
    func pollMade(room: UUID, seq: Int64, event: UUID?, series: UUID?, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE chat_polls SET made_event_id = \(bind: event), made_series_id = \(bind: series) WHERE room_id = \(bind: room) AND seq = \(bind: seq)
            """
        ).run()
    }

    /// A deleted message's poll goes with its options and votes.
    func deletePoll(room: UUID, seq: Int64, on sql: any SQLDatabase) async throws {
        for table in ["chat_poll_votes", "chat_poll_options", "chat_polls"] {
            try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE room_id = \(bind: room) AND seq = \(bind: seq)").run()
        }
        try await sql.raw("UPDATE chat_messages SET poll = \(bind: false) WHERE room_id = \(bind: room) AND seq = \(bind: seq)").run()
    }
}

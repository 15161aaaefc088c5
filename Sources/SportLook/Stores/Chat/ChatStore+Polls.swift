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
    /// people each poll's author blocked.
    func withPolls(_ messages: [ChatMessage], room: UUID, on sql: any SQLDatabase) async throws -> [ChatMessage] {
        let seqs = messages.filter { $0.isPoll && $0.deletedAt == nil }.map(\.seq)
        guard !seqs.isEmpty else { return messages }
        var polls: [Int64: ChatPoll] = [:]
        for row in try await sql.raw(
            """
            SELECT seq, kind, multiple, anonymous, one_per_option, closes_at, closed_at, made_event_id, made_series_id
            FROM chat_polls WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs))
            """
        ).all() {
            polls[try row.value("seq")] = ChatPoll(
                kind: ChatPoll.Kind(rawValue: try row.value("kind")) ?? .choice, options: [], multiple: try row.value("multiple"),
                anonymous: try row.value("anonymous"), onePerOption: try row.value("one_per_option"), closesAt: try row.value("closes_at"),
                closedAt: try row.optional("closed_at"), eventID: try row.optional("made_event_id"),
                seriesID: try row.optional("made_series_id"))
        }
        for row in try await sql.raw(
            """
            SELECT seq, position, label, starts_at, ends_at FROM chat_poll_options
            WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs)) ORDER BY seq, position
            """
        ).all() {
            let seq: Int64 = try row.value("seq")
            polls[seq]?.options.append(
                PollOption(label: try row.value("label"), startsAt: try row.optional("starts_at"), endsAt: try row.optional("ends_at")))
        }
        for row in try await sql.raw(
            """
            SELECT seq, position, user_id FROM chat_poll_votes
            WHERE room_id = \(bind: room) AND seq IN (\(binds: seqs)) ORDER BY created_at, user_id
            """
        ).all() {
            let (seq, position): (Int64, Int) = (try row.value("seq"), try row.value("position"))
            if let count = polls[seq]?.options.count, position < count {
                polls[seq]?.options[position].voters.append(try row.value("user_id"))
            }
        }
        for row in try await sql.raw(
            """
            SELECT m.seq, b.blocked_id FROM chat_messages m JOIN blocks b ON b.blocker_id = m.sender_id
            WHERE m.room_id = \(bind: room) AND m.seq IN (\(binds: seqs))
            """
        ).all() {
            polls[try row.value("seq")]?.hiddenFrom.insert(try row.value("blocked_id"))
        }
        return messages.map { message in
            var out = message
            out.poll = polls[message.seq]
            return out
        }
    }

    /// Makes the user's choices in the poll exactly `positions`; whether anything changed.
    func setVotes(room: UUID, seq: Int64, user: UUID, _ positions: Set<Int>, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        let before = Set(
            try await sql.raw(
                "SELECT position FROM chat_poll_votes WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND user_id = \(bind: user)"
            ).all().map { try $0.value("position", as: Int.self) })
        guard before != positions else { return false }
        let gone = Array(before.subtracting(positions))
        if !gone.isEmpty {
            try await sql.raw(
                """
                DELETE FROM chat_poll_votes WHERE room_id = \(bind: room) AND seq = \(bind: seq) AND user_id = \(bind: user) AND position IN (\(binds: gone))
                """
            ).run()
        }
        for position in positions.subtracting(before).sorted() {
            try await sql.raw(
                """
                INSERT INTO chat_poll_votes (room_id, seq, position, user_id, created_at)
                VALUES (\(bind: room), \(bind: seq), \(bind: position), \(bind: user), \(bind: now))
                """
            ).run()
        }
        return true
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

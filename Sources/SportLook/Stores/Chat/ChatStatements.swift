import Foundation

/// A chat message's statements, one SQL text for both engines: PostgreSQL prepares
/// each once per connection (it parsed and planned them again for every message,
/// and that was most of its work for one), SQLite runs the same text.
enum ChatStatements {
    /// The room, locked for the rest of the transaction on PostgreSQL.
    struct LockRoom: SharedStatement {
        static let text = "SELECT \(ChatStore.roomColumns) FROM rooms r WHERE r.id = $1"
        static let postgresSuffix = " FOR UPDATE"
        var room: UUID
        var values: [StatementValue] { [.uuid(room)] }
    }

    /// The room and what a send checks (``ChatStore/Sending``): whether the sender
    /// takes part, their name, a message already stored with the `client_id`, the event.
    /// On PostgreSQL it also locks the room, unless another transaction holds it (no
    /// row then); `seen_seq` is the room's last seq as the statement's snapshot has it,
    /// which differs from `last_message_seq` (the locked row's) when a message was
    /// committed after the snapshot (``ChatStore/lockForSending(_:user:clientID:on:)``).
    struct Sending: SharedStatement {
        static let postgresSuffix = " FOR UPDATE OF r SKIP LOCKED"
        static let text = """
            SELECT \(ChatStore.roomColumns),
                   \(ChatStatements.isMember("$2")) AS is_member,
                   (SELECT g.name FROM sport_groups g WHERE g.id = r.group_id) AS group_name,
                   (SELECT u.name FROM users u WHERE u.id = $2) AS sender_name,
                   (SELECT m.seq FROM chat_messages m WHERE m.room_id = r.id AND m.sender_id = $2 AND m.client_id = $3) AS existing_seq,
                   e.title AS event_title, e.status AS event_status,
                   (SELECT r0.last_message_seq FROM rooms r0 WHERE r0.id = r.id) AS seen_seq
            FROM rooms r LEFT JOIN events e ON e.id = COALESCE(r.event_id, r.id) WHERE r.id = $1
            """
        var room: UUID
        var user: UUID
        var clientID: String
        var values: [StatementValue] { [.uuid(room), .uuid(user), .text(clientID)] }
    }

    /// Whether the person `user` (an SQL expression: `$2`, `p.user_id`) takes part in
    /// room `r`, whose event (for an event's room) is `e`: 1 or 0. The one rule, for
    /// every read of it: an event's room is the people going (the organiser among
    /// them; a waitlist place, which anyone can take on a full event, shows no one who
    /// talks there), and of a members-only event only while they are in its group; a
    /// conversation its two people; a group's room its members.
    static func isMember(_ user: String) -> String {
        """
        CASE WHEN EXISTS (SELECT 1 FROM attendances a WHERE a.event_id = COALESCE(r.event_id, r.id) AND a.user_id = \(user) AND a.status = 'going' AND r.kind = 'event'
                                 AND \(EventStore.visible("e", toUserIn: user)))
                      OR EXISTS (SELECT 1 FROM conversations c WHERE c.room_id = r.id AND (c.user_low = \(user) OR c.user_high = \(user)) AND r.kind = 'conversation')
                      OR EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = r.group_id AND gm.user_id = \(user) AND r.kind = 'group')
                    THEN 1 ELSE 0 END
        """
    }

    /// What a vote checks before it is cast, in one read: the room, whether the voter
    /// `$2` takes part in it and its event's status (``isMember(_:)``), and the message at
    /// seq `$3`: its sender, whether either of the two blocked the other, and its poll's
    /// rules (no poll row: not a poll, or deleted).
    struct VoteCheck: SharedStatement {
        static let text = """
            SELECT \(ChatStore.roomColumns), \(ChatStatements.isMember("$2")) AS is_member, e.status AS event_status,
                   m.sender_id, CASE WHEN EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $2 AND b.blocked_id = m.sender_id)
                                                                     OR (b.blocker_id = m.sender_id AND b.blocked_id = $2)) THEN 1 ELSE 0 END AS hidden,
                   p.multiple, p.one_per_option, p.closes_at, p.closed_at,
                   (SELECT count(*) FROM chat_poll_options o WHERE o.room_id = p.room_id AND o.seq = p.seq) AS options
            FROM rooms r LEFT JOIN events e ON e.id = COALESCE(r.event_id, r.id)
                 LEFT JOIN chat_messages m ON m.room_id = r.id AND m.seq = $3
                 LEFT JOIN chat_polls p ON p.room_id = m.room_id AND p.seq = m.seq
            WHERE r.id = $1
            """
        var room: UUID
        var user: UUID
        var seq: Int64
        var values: [StatementValue] { [.uuid(room), .uuid(user), .integer(seq)] }
    }

    /// The polls of room `$1` at the seqs `$2` (written `1,5,9`), whole, in one read on
    /// PostgreSQL: a row per option, in order, with the poll's fields, the option's voters
    /// in the order they voted and the people the poll's author blocked (each as one text
    /// of ids, comma-separated). Read on every change of a poll for the sockets' frames,
    /// where four round trips each waited their turn on a busy server (a vote's answer
    /// reads ``PollSeen``). SQLite reads the same in four statements
    /// (``ChatStore/withPolls(_:room:seenBy:on:)``), in
    /// the process and without round trips: this text is PostgreSQL's only. The voters and
    /// the hidden are gathered once each (`MATERIALIZED`): planned on a table that was empty
    /// when last analysed, a nested loop gathered the voters again for every option (7.5 ms
    /// rather than 1.6 for a poll of 1,000 voters and 10 options).
    struct PollsRead: SharedStatement {
        static let text = """
            WITH v AS MATERIALIZED (
                SELECT seq, position, string_agg(user_id::text, ',' ORDER BY created_at, user_id) AS voters FROM chat_poll_votes
                WHERE room_id = $1 AND seq = ANY (string_to_array($2, ',')::bigint[]) GROUP BY seq, position),
            h AS MATERIALIZED (
                SELECT m.seq, string_agg(b.blocked_id::text, ',') AS hidden FROM chat_messages m JOIN blocks b ON b.blocker_id = m.sender_id
                WHERE m.room_id = $1 AND m.seq = ANY (string_to_array($2, ',')::bigint[]) GROUP BY m.seq)
            SELECT p.seq, p.kind, p.multiple, p.anonymous, p.one_per_option, p.closes_at, p.closed_at, p.made_event_id, p.made_series_id,
                   o.position, o.label, o.starts_at, o.ends_at, v.voters, h.hidden
            FROM chat_polls p JOIN chat_poll_options o ON o.room_id = p.room_id AND o.seq = p.seq
                 LEFT JOIN v ON v.seq = o.seq AND v.position = o.position
                 LEFT JOIN h ON h.seq = p.seq
            WHERE p.room_id = $1 AND p.seq = ANY (string_to_array($2, ',')::bigint[])
            ORDER BY p.seq, o.position
            """
        var room: UUID
        var seqs: [Int64]
        var values: [StatementValue] { [.uuid(room), .text(seqs.map(String.init).joined(separator: ","))] }
    }

    /// The poll at seq `$2` of room `$1` as the person `$3` sees it, in one read: its
    /// options in order, with the poll's fields; each option's count and whether `$3`
    /// chose it; how many voted, for a poll of several choices (otherwise the counts'
    /// sum); whether the poll's author blocked `$3`; and each option's first voters
    /// (``ChatPoll/votersShown``, in the order they voted, along the index
    /// `chat_poll_votes_order`): on PostgreSQL as one text of ids, on SQLite as a row each
    /// (`voter`, after its option's fields: no `group_concat` in order before 3.44). The
    /// votes of the people `$3` blocked are left out, but from an anonymous poll's counts,
    /// which are everyone's: the rule of ``Blocks/view(_:hiding:viewer:)``. A vote's
    /// answer: it needs counts, not the thousand voters ``PollsRead`` gathers for the
    /// sockets.
    struct PollSeen: SharedStatement {
        /// Whether the vote `v` is one `$3` sees, in a poll whose `anonymous` is `anonymous`:
        /// looked up vote by vote only when `$3` blocked anyone (read once).
        static func shown(_ anonymous: String) -> String {
            """
            (\(anonymous) OR NOT EXISTS (SELECT 1 FROM blocks b0 WHERE b0.blocker_id = $3)
                OR NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = $3 AND b.blocked_id = v.user_id))
            """
        }
        /// The first voters of an option, in the order they voted.
        static let firstFew = "ORDER BY v.created_at, v.user_id LIMIT \(ChatPoll.votersShown)"
        /// The first voters of option `o` of poll `p`.
        static let firstVoters = """
            SELECT v.user_id, v.created_at FROM chat_poll_votes v WHERE v.room_id = o.room_id AND v.seq = o.seq AND v.position = o.position
                AND \(shown("p.anonymous")) \(firstFew)
            """
        /// A row per option, with `voters` for its first voters.
        static func options(voters: String) -> String {
            """
            SELECT p.seq, p.kind, p.multiple, p.anonymous, p.one_per_option, p.closes_at, p.closed_at, p.made_event_id, p.made_series_id,
                   o.position, o.label, o.starts_at, o.ends_at,
                   (SELECT count(*) FROM chat_poll_votes v WHERE v.room_id = o.room_id AND v.seq = o.seq AND v.position = o.position
                        AND \(shown("p.anonymous"))) AS count,
                   CASE WHEN EXISTS (SELECT 1 FROM chat_poll_votes v WHERE v.room_id = o.room_id AND v.seq = o.seq AND v.position = o.position
                                         AND v.user_id = $3) THEN 1 ELSE 0 END AS mine,
                   CASE WHEN p.multiple THEN (SELECT count(DISTINCT v.user_id) FROM chat_poll_votes v JOIN chat_polls q ON q.room_id = v.room_id AND q.seq = v.seq
                                              WHERE v.room_id = $1 AND v.seq = $2 AND \(shown("q.anonymous"))) END AS voters_count,
                   CASE WHEN EXISTS (SELECT 1 FROM chat_messages m JOIN blocks b ON b.blocker_id = m.sender_id
                                     WHERE m.room_id = p.room_id AND m.seq = p.seq AND b.blocked_id = $3) THEN 1 ELSE 0 END AS hidden,
                   \(voters) AS voters
            FROM chat_polls p JOIN chat_poll_options o ON o.room_id = p.room_id AND o.seq = p.seq
            WHERE p.room_id = $1 AND p.seq = $2
            """
        }
        /// SQLite: the options' rows first (`MATERIALIZED`: their counts once each), then a
        /// row per first voter, found by rowid along the index.
        static let text = """
            WITH o AS MATERIALIZED (\(options(voters: "NULL")))
            SELECT o.*, v.user_id AS voter FROM o LEFT JOIN chat_poll_votes v ON NOT o.anonymous AND v.rowid IN (
                SELECT v.rowid FROM chat_poll_votes v WHERE v.room_id = $1 AND v.seq = $2 AND v.position = o.position
                    AND \(shown("0")) \(firstFew))
            ORDER BY o.position, v.created_at, v.user_id
            """
        static let postgresText =
            options(
                voters: """
                    CASE WHEN NOT p.anonymous THEN (SELECT string_agg(f.user_id::text, ',' ORDER BY f.created_at, f.user_id) FROM (\(firstVoters)) f) END
                    """) + "\nORDER BY o.position"
        var room: UUID
        var seq: Int64
        var viewer: UUID
        var values: [StatementValue] { [.uuid(room), .integer(seq), .uuid(viewer)] }
    }

    /// Takes the room's next seq (the row update serialises concurrent senders).
    struct NextSeq: SharedStatement {
        static let text =
            "UPDATE rooms SET last_message_seq = last_message_seq + 1, last_activity_at = $2 WHERE id = $1 RETURNING last_message_seq, event_id"
        var room: UUID
        var now: Date
        var values: [StatementValue] { [.uuid(room), .date(now)] }
    }

    /// The message itself; answers the time as stored. The image's size goes to
    /// `integer` columns: cast, so that PostgreSQL takes `$10` and `$11` as the
    /// 64-bit integers they are bound as even when it first sees them null.
    struct Insert: SharedStatement {
        static let text = """
            INSERT INTO chat_messages (id, room_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height,
                                       reply_to_seq, mentions, change_seq)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CAST($10 AS BIGINT), CAST($11 AS BIGINT), $12, $13, 0)
            RETURNING created_at
            """
        var id: UUID
        var room: UUID
        var seq: Int64
        var message: ChatStore.NewMessage
        var now: Date
        var values: [StatementValue] {
            let mentions = message.mentions.isEmpty ? nil : message.mentions.map(\.lowercased).joined(separator: " ")
            return [
                .uuid(id), .uuid(room), .integer(seq), .uuid(message.sender.id), .text(message.clientID), .text(message.body), .date(now),
                .uuid(message.attachment?.image.id), .text(message.attachment?.image.stored), .integer(message.attachment?.width),
                .integer(message.attachment?.height), .integer(message.replyTo), .text(mentions),
            ]
        }
    }

    /// Members to tell of a message (``ChatStore/absentMembers(room:except:mentioned:freshSince:now:on:)``):
    /// `$1` the room, `$2` the event, `$3` the sender, `$4` fresh since, `$5` now, and
    /// `$6` … the people mentioned (other numbers with `values`, in that order).
    static func absentText(_ kind: RoomKind, mentioned: Int, values: [String] = ["$1", "$2", "$3", "$4", "$5"]) -> String {
        precondition(mentioned == 0 || values == ["$1", "$2", "$3", "$4", "$5"], "the people mentioned follow $5")
        let (room, event, sender, fresh, now) = (values[0], values[1], values[2], values[3], values[4])
        let members =
            switch kind {
            case .event:
                "SELECT a.user_id FROM attendances a JOIN events ev ON ev.id = a.event_id WHERE a.event_id = \(event) AND a.status = 'going' AND \(EventStore.visible("ev", toUserIn: "a.user_id"))"
            case .conversation:
                "SELECT c.user_low AS user_id FROM conversations c WHERE c.room_id = \(room) UNION ALL SELECT c.user_high AS user_id FROM conversations c WHERE c.room_id = \(room)"
            case .group: "SELECT gm.user_id FROM group_members gm WHERE gm.group_id = \(room)"
            }
        let mentions = mentioned == 0 ? "" : "OR member.user_id IN (\((0..<mentioned).map { "$\($0 + 6)" }.joined(separator: ", ")))"
        return """
            SELECT member.user_id FROM (\(members)) member
            WHERE member.user_id <> \(sender)
              AND NOT EXISTS (SELECT 1 FROM chat_presence p JOIN chat_instances ci ON ci.instance_id = p.instance_id WHERE p.room_id = \(room) AND p.user_id = member.user_id AND ci.seen_at >= \(fresh))
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = member.user_id AND b.blocked_id = \(sender))
              AND (NOT EXISTS (SELECT 1 FROM chat_reads cr WHERE cr.room_id = \(room) AND cr.user_id = member.user_id AND cr.muted_until > \(now))
                   \(mentions))
            """
    }

    /// PostgreSQL: a message that mentions no one stored in one statement — the
    /// room's next seq, the message, its notification on the bus, and the members to
    /// tell of it (as ``absentText(_:mentioned:values:)``) — instead of four round
    /// trips. One row is the message's (`seq`, `created_at`, `event_id`), each other
    /// a member to tell (`user_id`, the rest null); no row when the room is gone. `$1` the
    /// message's id, `$2` the room, `$3` the event, `$4` the sender, `$5` … `$13` as
    /// ``Insert``'s `$5` …, `$14` and `$15` the notification's text before and after
    /// the seq (``Bus/chatNotification(room:)``), `$16` fresh since (`$7` is now).
    static func storeText(_ kind: RoomKind) -> String {
        """
        WITH s AS (UPDATE rooms SET last_message_seq = last_message_seq + 1, last_activity_at = $7 WHERE id = $2 RETURNING last_message_seq, event_id),
             i AS (INSERT INTO chat_messages (id, room_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width,
                                              attachment_height, reply_to_seq, mentions, change_seq)
                   SELECT $1, $2, s.last_message_seq, $4, $5, $6, $7, $8, $9, CAST($10 AS BIGINT), CAST($11 AS BIGINT), $12, $13, 0 FROM s
                   RETURNING seq, created_at)
        SELECT i.seq, i.created_at, s.event_id, CAST(NULL AS uuid) AS user_id FROM i CROSS JOIN s CROSS JOIN pg_notify('\(Bus.channel)', $14 || i.seq || $15) AS n
        UNION ALL
        SELECT NULL, NULL, NULL, absent.user_id FROM (\(absentText(kind, mentioned: 0, values: ["$2", "$3", "$4", "$16", "$7"]))) absent
        """
    }

    /// The values of ``storeText(_:)``.
    static func storeValues(
        id: UUID, room: Room, message: ChatStore.NewMessage, now: Date, freshSince: Date,
        notification: (head: String, tail: String)
    ) -> [StatementValue] {
        let insert = Insert(id: id, room: room.id, seq: 0, message: message, now: now).values
        return [.uuid(id), .uuid(room.id), .uuid(room.eventID ?? room.id), .uuid(message.sender.id)] + insert[4...]
            + [.text(notification.head), .text(notification.tail), .date(freshSince)]
    }

    /// ``storeText(_:)`` of an event's room.
    struct StoreInEvent: SharedStatement {
        static let text = ChatStatements.storeText(.event)
        var values: [StatementValue]
    }

    /// ``storeText(_:)`` of a conversation.
    struct StoreInConversation: SharedStatement {
        static let text = ChatStatements.storeText(.conversation)
        var values: [StatementValue]
    }

    /// ``storeText(_:)`` of a group's room.
    struct StoreInGroup: SharedStatement {
        static let text = ChatStatements.storeText(.group)
        var values: [StatementValue]
    }

    /// PostgreSQL: a message of the usual kind (text only, in an event's or a group's
    /// room, mentioning no one, replying to none) stored in one statement without a
    /// transaction around it — what a send checks (``Sending``, the room locked unless
    /// another transaction holds it), the room's next seq, the message, the members to
    /// tell of it, their notifications' jobs and the bus's notifications — given what
    /// the sender expects the checks to find: the room's kind and event, the heading's
    /// name (the event's title or the group's name) and the sender's name, which the
    /// jobs' payloads hold. When anything differs (not a member, a cancelled event, a
    /// message already stored with the `client_id`, another send holding the room, a
    /// name changed) nothing is written and no row comes back: the caller sends through
    /// the transaction instead. One row is the message's (`seq`, `created_at`,
    /// `event_id`), each other a member told of it (`user_id`).
    ///
    /// `$1` the room, `$2` the sender, `$3` the `client_id` (as ``Sending``), `$4` the
    /// message's id, `$5` its body, `$6` now, `$7` fresh since, `$8` and `$9` the bus's
    /// notification before and after the seq, `$10` the heading's name, `$11` the
    /// sender's name, `$12` the event (the room's own id for a group), `$13` … `$15` the
    /// job's payload before the seq, between it and the recipient, after the recipient,
    /// `$16` the dedupe key before the recipient, `$17` the job's kind, `$18` and `$19`
    /// its enqueued and due times, `$20` the bus's notification of new jobs.
    static func quickText(_ kind: RoomKind) -> String {
        precondition(kind != .conversation, "a conversation's message goes through its rules, in a transaction")
        let heading = kind == .event ? "c.event_status = '\(EventStatus.active.rawValue)' AND c.event_title = $10" : "c.group_name = $10"
        return """
            WITH c AS (\(Sending.text)\(Sending.postgresSuffix)),
                 ok AS (SELECT c.id FROM c WHERE c.kind = '\(kind.rawValue)' AND c.is_member = 1 AND c.existing_seq IS NULL AND c.seen_seq = c.last_message_seq
                        AND COALESCE(c.event_id, c.id) = $12 AND c.sender_name = $11 AND \(heading)),
                 s AS (UPDATE rooms SET last_message_seq = last_message_seq + 1, last_activity_at = $6 WHERE id = (SELECT id FROM ok) RETURNING last_message_seq, event_id),
                 i AS (INSERT INTO chat_messages (id, room_id, seq, sender_id, client_id, body, created_at, change_seq)
                       SELECT $4, $1, s.last_message_seq, $2, $3, $5, $6, 0 FROM s RETURNING seq, created_at),
                 absent AS (SELECT a.user_id FROM (\(absentText(kind, mentioned: 0, values: ["$1", "$12", "$2", "$7", "$6"]))) a WHERE EXISTS (SELECT 1 FROM i)),
                 j AS (INSERT INTO jobs (id, kind, payload, dedupe_key, state, attempts, run_at, enqueued_at)
                       SELECT gen_random_uuid(), $17, $13 || i.seq || $14 || upper(absent.user_id::text) || $15, $16 || absent.user_id::text, 'queued', 0, $19, $18
                       FROM absent CROSS JOIN i ORDER BY absent.user_id
                       \(JobStore.collapsing))
            SELECT i.seq, i.created_at, s.event_id, CAST(NULL AS uuid) AS user_id
            FROM i CROSS JOIN s CROSS JOIN pg_notify('\(Bus.channel)', $8 || i.seq || $9) AS n
                 CROSS JOIN (SELECT CASE WHEN EXISTS (SELECT 1 FROM absent) THEN pg_notify('\(Bus.channel)', $20) END) AS jn
            UNION ALL
            SELECT NULL, NULL, NULL, absent.user_id FROM absent
            """
    }

    /// What the sender expects ``quickText(_:)`` to find, and the message.
    struct Quick: Sendable {
        var room: UUID
        var kind: RoomKind
        /// The event of an event's room.
        var eventID: UUID?
        /// The event's title or the group's name.
        var headingName: String
        var sender: UserSummary
        var clientID: String
        var body: String
    }

    /// The values of ``quickText(_:)``.
    static func quickValues(
        id: UUID, _ quick: Quick, now: Date, freshSince: Date, notification: (head: String, tail: String), jobs: ChatJobs,
        jobsNotification: String
    ) -> [StatementValue] {
        [
            .uuid(quick.room), .uuid(quick.sender.id), .text(quick.clientID), .uuid(id), .text(quick.body), .date(now), .date(freshSince),
            .text(notification.head), .text(notification.tail), .text(quick.headingName), .text(quick.sender.name),
            .uuid(quick.eventID ?? quick.room),
            .text(jobs.head), .text(jobs.middle), .text(jobs.tail), .text(jobs.dedupePrefix), .text(jobs.kind), .date(jobs.now),
            .date(jobs.runAt),
            .text(jobsNotification),
        ]
    }

    /// ``quickText(_:)`` of an event's room.
    struct QuickInEvent: SharedStatement {
        static let text = ChatStatements.quickText(.event)
        var values: [StatementValue]
    }

    /// ``quickText(_:)`` of a group's room.
    struct QuickInGroup: SharedStatement {
        static let text = ChatStatements.quickText(.group)
        var values: [StatementValue]
    }

    /// The members of an event's room to tell of a message that mentions no one.
    struct AbsentFromEvent: SharedStatement {
        static let text = ChatStatements.absentText(.event, mentioned: 0)
        var values: [StatementValue]
    }

    /// The other person of a conversation, to tell of a message that mentions no one.
    struct AbsentFromConversation: SharedStatement {
        static let text = ChatStatements.absentText(.conversation, mentioned: 0)
        var values: [StatementValue]
    }

    /// The members of a group's room to tell of a message that mentions no one.
    struct AbsentFromGroup: SharedStatement {
        static let text = ChatStatements.absentText(.group, mentioned: 0)
        var values: [StatementValue]
    }
}

/// A chat message's notification job as a statement writes it for each person it
/// tells (``ChatStatements/quickText(_:)``): the payload around the seq and the
/// recipient's id, the dedupe key before the recipient's id, the job's kind and times.
struct ChatJobs: Sendable {
    var head: String
    var middle: String
    var tail: String
    var dedupePrefix: String
    var kind: String
    var now: Date
    var runAt: Date
}

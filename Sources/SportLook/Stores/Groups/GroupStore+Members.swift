import Foundation
import SQLKit

/// A group's members, requests, bans and invite link in SQL.
extension GroupStore {
    /// The caller's role in each of these groups they belong to.
    func roles(of user: UUID, in groups: [UUID], on sql: (any SQLDatabase)? = nil) async throws -> [UUID: GroupRole] {
        guard !groups.isEmpty else { return [:] }
        return try await reading(on: sql) { sql in
            var out: [UUID: GroupRole] = [:]
            for row in try await sql.raw(
                "SELECT group_id, role FROM group_members WHERE user_id = \(bind: user) AND group_id IN (\(binds: groups))"
            ).all() {
                if let role = GroupRole(rawValue: try row.value("role")) { out[try row.value("group_id")] = role }
            }
            return out
        }
    }

    /// Which of these groups the person asked to join and waits for.
    func requested(by user: UUID, in groups: [UUID]) async throws -> Set<UUID> {
        guard !groups.isEmpty else { return [] }
        return try await database.read { sql in
            Set(
                try await sql.raw("SELECT group_id FROM group_requests WHERE user_id = \(bind: user) AND group_id IN (\(binds: groups))")
                    .all().map { try $0.value("group_id") })
        }
    }

    // MARK: Members

    /// Adds a member (nothing when they are one already); returns whether they were added.
    func addMember(_ user: UUID, to group: UUID, role: GroupRole = .member, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        let added =
            try await sql.raw(
                """
                INSERT INTO group_members (group_id, user_id, role, joined_at) VALUES (\(bind: group), \(bind: user), \(bind: role.rawValue), \(bind: now))
                ON CONFLICT (group_id, user_id) DO NOTHING RETURNING user_id
                """
            ).first() != nil
        try await sql.raw("DELETE FROM group_requests WHERE group_id = \(bind: group) AND user_id = \(bind: user)").run()
        if added { try await sql.raw("UPDATE sport_groups SET member_count = member_count + 1 WHERE id = \(bind: group)").run() }
        return added
    }

    /// Removes a member; returns whether they were one.
    func removeMember(_ user: UUID, from group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        let removed =
            try await sql.raw("DELETE FROM group_members WHERE group_id = \(bind: group) AND user_id = \(bind: user) RETURNING user_id")
            .first() != nil
        if removed { try await sql.raw("UPDATE sport_groups SET member_count = member_count - 1 WHERE id = \(bind: group)").run() }
        return removed
    }

    func setRole(_ role: GroupRole, of user: UUID, in group: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE group_members SET role = \(bind: role.rawValue) WHERE group_id = \(bind: group) AND user_id = \(bind: user)"
        ).run()
        if role == .owner { try await sql.raw("UPDATE sport_groups SET owner_id = \(bind: user) WHERE id = \(bind: group)").run() }
    }

    /// Who takes over from a leaving owner: the longest-standing admin, then member.
    func successor(in group: UUID, excluding owner: UUID, on sql: any SQLDatabase) async throws -> UUID? {
        try await sql.raw(
            """
            SELECT m.user_id FROM group_members m JOIN users u ON u.id = m.user_id
            WHERE m.group_id = \(bind: group) AND m.user_id <> \(bind: owner) AND u.deleted_at IS NULL
            ORDER BY CASE m.role WHEN 'admin' THEN 0 ELSE 1 END, m.joined_at, m.user_id LIMIT 1
            """
        ).first()?.value("user_id", as: UUID.self)
    }

    /// A group's members: the owner, then admins, then members, each by when they joined.
    func members(of group: UUID, cursor: MemberCursor?, limit: Int, on sql: (any SQLDatabase)? = nil) async throws -> Page<GroupMember> {
        try await reading(on: sql) { sql in
            let rank: SQLQueryString = "CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END"
            var after: SQLQueryString = ""
            if let cursor {
                let within = Keyset.after(
                    time: "m.joined_at", id: "m.user_id", after: TimeCursor(time: cursor.joinedAt, id: cursor.user), descending: false)
                after = " AND (\(rank) > \(bind: cursor.rank) OR (\(rank) = \(bind: cursor.rank) \(within)))"
            }
            let rows = try await sql.raw(
                """
                SELECT m.user_id, m.role, m.joined_at, u.name FROM group_members m JOIN users u ON u.id = m.user_id
                WHERE m.group_id = \(bind: group)\(after)
                ORDER BY \(rank), m.joined_at, m.user_id LIMIT \(bind: limit + 1)
                """
            ).all()
            let items = try rows.prefix(limit).map { row in
                GroupMember(
                    user: UserSummary(id: try row.value("user_id"), name: try row.value("name")),
                    role: GroupRole(rawValue: try row.value("role")) ?? .member, joinedAt: try row.value("joined_at"))
            }
            let next =
                rows.count > limit
                ? items.last.map { MemberCursor(rank: $0.role.rank, joinedAt: $0.joinedAt, user: $0.user.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    /// The groups a person belongs to, those they joined last first.
    func groups(of user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<(Group, GroupRole)> {
        try await database.read { [self] sql in
            let rows = try await sql.raw(
                """
                SELECT m.group_id, m.role, m.joined_at FROM group_members m WHERE m.user_id = \(bind: user)
                \(Keyset.after(time: "m.joined_at", id: "m.group_id", after: cursor, descending: true))
                ORDER BY m.joined_at DESC, m.group_id DESC LIMIT \(bind: limit + 1)
                """
            ).all()
            let listed: [(UUID, GroupRole, Date)] = try rows.prefix(limit).map {
                (try $0.value("group_id"), GroupRole(rawValue: try $0.value("role")) ?? .member, try $0.value("joined_at"))
            }
            let found = try await groups(listed.map(\.0), on: sql)
            let items = listed.compactMap { id, role, _ in found[id].map { ($0, role) } }
            let next = rows.count > limit ? listed.last.map { TimeCursor(time: $0.2, id: $0.0).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    /// Every group a person belongs to or asked to join, in id order (for a deleted account).
    func groupsWithStanding(of user: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            """
            SELECT group_id FROM group_members WHERE user_id = \(bind: user)
            UNION SELECT group_id FROM group_requests WHERE user_id = \(bind: user)
            ORDER BY group_id
            """
        ).all().map { try $0.value("group_id") }
    }

    // MARK: Requests

    /// Records a request to join (the first stays when asked again).
    func addRequest(_ user: UUID, to group: UUID, message: String, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO group_requests (group_id, user_id, message, created_at) VALUES (\(bind: group), \(bind: user), \(bind: message), \(bind: now))
            ON CONFLICT (group_id, user_id) DO NOTHING RETURNING user_id
            """
        ).first() != nil
    }

    /// Takes a request away; returns whether there was one.
    func removeRequest(_ user: UUID, from group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("DELETE FROM group_requests WHERE group_id = \(bind: group) AND user_id = \(bind: user) RETURNING user_id")
            .first() != nil
    }

    /// Requests waiting for an answer, oldest first.
    func requests(to group: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<GroupRequest> {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT r.user_id, r.message, r.created_at, u.name FROM group_requests r JOIN users u ON u.id = r.user_id
                WHERE r.group_id = \(bind: group) \(Keyset.after(time: "r.created_at", id: "r.user_id", after: cursor, descending: false))
                ORDER BY r.created_at, r.user_id LIMIT \(bind: limit + 1)
                """
            ).all()
            let items = try rows.prefix(limit).map { row in
                GroupRequest(
                    user: UserSummary(id: try row.value("user_id"), name: try row.value("name")), message: try row.value("message"),
                    createdAt: try row.value("created_at"))
            }
            let next = rows.count > limit ? items.last.map { TimeCursor(time: $0.createdAt, id: $0.user.id).cursor } : nil
            return Page(items: items, nextCursor: next)
        }
    }

    /// The admins (owner included) of a group.
    func admins(of group: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            "SELECT user_id FROM group_members WHERE group_id = \(bind: group) AND role IN ('owner', 'admin') ORDER BY user_id"
        ).all().map { try $0.value("user_id") }
    }

    // MARK: Bans

    func ban(_ user: UUID, from group: UUID, by admin: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO group_bans (group_id, user_id, banned_by, banned_at) VALUES (\(bind: group), \(bind: user), \(bind: admin), \(bind: now))
            ON CONFLICT (group_id, user_id) DO NOTHING
            """
        ).run()
        _ = try await removeRequest(user, from: group, on: sql)
    }

    func unban(_ user: UUID, from group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("DELETE FROM group_bans WHERE group_id = \(bind: group) AND user_id = \(bind: user) RETURNING user_id").first()
            != nil
    }

    func bans(of group: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<Ban> {
        try await database.read { sql in
            try await BanList.page(of: "group_bans", where: "group_id", is: group, cursor: cursor, limit: limit, on: sql)
        }
    }

    // MARK: Invite link

    /// Sets (or, with nil, revokes) the digest of the group's invite secret.
    func setInvite(digest: String?, of group: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE sport_groups SET invite_digest = \(bind: digest) WHERE id = \(bind: group)").run()
    }

    /// Whether `digest` is the group's live invite.
    func inviteMatches(_ digest: String, group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM sport_groups WHERE id = \(bind: group) AND invite_digest = \(bind: digest)").first() != nil
    }
}

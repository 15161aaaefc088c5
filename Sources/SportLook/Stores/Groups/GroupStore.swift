import Foundation
import SQLKit

/// Groups in SQL: `sport_groups` (GROUPS is an SQL keyword), their sports, members,
/// requests to join and bans.
struct GroupStore: Store {
    let database: Database

    static let columns = """
        g.id, g.name, g.description, g.lat, g.lon, g.policy, g.visibility, g.owner_id, o.name AS owner_name,
        g.member_count, g.status, g.version, g.created_at, g.updated_at, g.cover_id, g.cover_variants, g.dues
        """
    static let from = "sport_groups g JOIN users o ON o.id = g.owner_id"

    static func decode(_ row: any SQLRow, sports: [String]) throws -> Group {
        Group(
            id: try row.value("id"), name: try row.value("name"), description: try row.value("description"), sports: sports,
            location: Coordinate(lat: try row.value("lat"), lon: try row.value("lon")),
            policy: GroupPolicy(rawValue: try row.value("policy")) ?? .approval,
            visibility: GroupVisibility(rawValue: try row.value("visibility")) ?? .unlisted,
            owner: UserSummary(id: try row.value("owner_id"), name: try row.value("owner_name")),
            cover: MediaRef(id: try row.optional("cover_id"), stored: try row.optional("cover_variants")),
            dues: Dues(stored: try row.optional("dues")),
            memberCount: try row.value("member_count"), isDeleted: try row.value("status", as: String.self) == "deleted",
            version: try row.value("version"), createdAt: try row.value("created_at"), updatedAt: try row.value("updated_at")
        )
    }

    /// The sports of these groups, in catalogue slug order.
    private func sports(of ids: [UUID], on sql: any SQLDatabase) async throws -> [UUID: [String]] {
        guard !ids.isEmpty else { return [:] }
        var out: [UUID: [String]] = [:]
        for row in try await sql.raw("SELECT group_id, sport_slug FROM group_sports WHERE group_id IN (\(binds: ids)) ORDER BY sport_slug")
            .all()
        {
            out[try row.value("group_id"), default: []].append(try row.value("sport_slug"))
        }
        return out
    }

    /// A group, deleted ones included (the caller decides what a deleted group shows).
    func group(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Group? {
        try await groups([id], on: sql)[id]
    }

    func groups(_ ids: [UUID], on sql: (any SQLDatabase)? = nil) async throws -> [UUID: Group] {
        guard !ids.isEmpty else { return [:] }
        return try await reading(on: sql) { [self] sql in
            let rows = try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE g.id IN (\(binds: ids))")
                .all()
            let sports = try await sports(of: try rows.map { try $0.value("id") }, on: sql)
            var out: [UUID: Group] = [:]
            for row in rows {
                let id: UUID = try row.value("id")
                out[id] = try Self.decode(row, sports: sports[id] ?? [])
            }
            return out
        }
    }

    /// Every live, listed group, in pages of 2,000 handed to `each` (for the groups index).
    static func listedGroups(of database: Database, each: ([Group]) -> Void) async throws {
        var after: UUID?
        let store = GroupStore(database: database)
        while true {
            let page: [Group] = try await database.read(timeout: Database.bulkReadTimeout) { [after] sql in
                let from: SQLQueryString = after.map { "AND g.id > \(bind: $0)" } ?? ""
                let ids: [UUID] = try await sql.raw(
                    """
                    SELECT g.id FROM sport_groups g WHERE g.status = 'active' AND g.visibility = 'listed' \(from) ORDER BY g.id LIMIT 2000
                    """
                ).all().map { try $0.value("id") }
                let found = try await store.groups(ids, on: sql)
                return ids.compactMap { found[$0] }
            }
            each(page)
            guard page.count == 2000, let last = page.last else { return }
            after = last.id
        }
    }

    /// Groups whose rows changed at or after `since`.
    func updated(since: Date) async throws -> [Group] {
        try await database.read { [self] sql in
            let ids: [UUID] = try await sql.raw("SELECT id FROM sport_groups WHERE updated_at >= \(bind: since)").all().map {
                try $0.value("id")
            }
            return Array(try await groups(ids, on: sql).values)
        }
    }

    func insert(_ group: Group, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO sport_groups (id, name, description, lat, lon, policy, visibility, owner_id, member_count, status, version, created_at, updated_at,
                                      cover_id, cover_variants, dues)
            VALUES (\(bind: group.id), \(bind: group.name), \(bind: group.description), \(bind: group.location.lat), \(bind: group.location.lon),
                    \(bind: group.policy.rawValue), \(bind: group.visibility.rawValue), \(bind: group.owner.id), 1, 'active', 1,
                    \(bind: group.createdAt), \(bind: group.updatedAt), \(bind: group.cover?.id), \(bind: group.cover?.stored),
                    \(bind: group.dues?.stored))
            """
        ).run()
        try await setSports(group.sports, of: group.id, on: sql)
        try await sql.raw(
            """
            INSERT INTO group_members (group_id, user_id, role, joined_at) VALUES (\(bind: group.id), \(bind: group.owner.id), 'owner', \(bind: group.createdAt))
            """
        ).run()
        // The group's chat: a room with the group's id, its members taking part.
        try await sql.raw(
            """
            INSERT INTO rooms (id, kind, event_id, group_id, last_message_seq, last_change_seq, last_activity_at, created_at)
            VALUES (\(bind: group.id), 'group', NULL, \(bind: group.id), 0, 0, \(bind: group.createdAt), \(bind: group.createdAt))
            """
        ).run()
    }

    private func setSports(_ sports: [String], of id: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM group_sports WHERE group_id = \(bind: id)").run()
        for slug in Set(sports) {
            try await sql.raw("INSERT INTO group_sports (group_id, sport_slug) VALUES (\(bind: id), \(bind: slug))").run()
        }
    }

    struct Changes: Sendable {
        var name: String?
        var description: String?
        var sports: [String]?
        var location: Coordinate?
        var policy: GroupPolicy?
        var visibility: GroupVisibility?
        var cover: Patch<MediaRef> = .absent
        /// New dues; `clearsDues`: none from now on.
        var dues: Dues?
        var clearsDues = false
    }

    /// Applies the changes and bumps the version.
    func update(_ id: UUID, _ c: Changes, at now: Date, on sql: any SQLDatabase) async throws {
        var set: [SQLQueryString] = ["updated_at = \(bind: now)", "version = version + 1"]
        if let v = c.name { set.append("name = \(bind: v)") }
        if let v = c.description { set.append("description = \(bind: v)") }
        if let v = c.location { set.append("lat = \(bind: v.lat), lon = \(bind: v.lon)") }
        if let v = c.policy { set.append("policy = \(bind: v.rawValue)") }
        if let v = c.visibility { set.append("visibility = \(bind: v.rawValue)") }
        if case .value(let v) = c.cover {
            set.append("cover_id = \(bind: v.id), cover_variants = \(bind: v.stored)")
        } else if case .null = c.cover {
            set.append("cover_id = NULL, cover_variants = NULL")
        }
        if let dues = c.dues {
            set.append("dues = \(bind: dues.stored)")
        } else if c.clearsDues {
            set.append("dues = NULL")
        }
        try await sql.raw("UPDATE sport_groups SET \(set.joined(separator: ", ")) WHERE id = \(bind: id)").run()
        if let sports = c.sports { try await setSports(sports, of: id, on: sql) }
    }

    /// Locks the group's row for the rest of the transaction (membership changes of
    /// one group take turns) and bumps its version; nil when there is no live group.
    func lock(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Group? {
        guard
            try await sql.raw(
                """
                UPDATE sport_groups SET version = version + 1, updated_at = \(bind: now) WHERE id = \(bind: id) AND status = 'active' RETURNING id
                """
            ).first() != nil
        else { return nil }
        return try await group(id, on: sql)
    }

    /// Marks the group deleted; its members and requests go. Returns who were members.
    @discardableResult
    func markDeleted(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            """
            UPDATE sport_groups SET status = 'deleted', invite_digest = NULL, member_count = 0, updated_at = \(bind: now), version = version + 1 WHERE id = \(bind: id)
            """
        ).run()
        try await sql.raw("DELETE FROM group_requests WHERE group_id = \(bind: id)").run()
        return try await sql.raw("DELETE FROM group_members WHERE group_id = \(bind: id) RETURNING user_id").all().map {
            try $0.value("user_id")
        }
    }

    /// The groups `user` belongs to (live ones: a deleted group has no members).
    func memberships(of user: UUID) async throws -> Memberships {
        try await reading(on: nil) { sql in
            let rows = try await sql.raw("SELECT group_id FROM group_members WHERE user_id = \(bind: user)").all()
            return Memberships(groups: Set(try rows.map { try $0.value("group_id") }))
        }
    }

    /// Each of `users`' groups among `groups`, read in the caller's transaction.
    func memberships(of users: Set<UUID>, in groups: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: Memberships] {
        guard !users.isEmpty, !groups.isEmpty else { return [:] }
        var found: [UUID: Set<UUID>] = [:]
        for row in try await sql.raw(
            """
            SELECT user_id, group_id FROM group_members WHERE user_id IN (\(binds: Array(users))) AND group_id IN (\(binds: Array(groups)))
            """
        ).all() {
            found[try row.value("user_id"), default: []].insert(try row.value("group_id"))
        }
        return found.mapValues { Memberships(groups: $0) }
    }

    /// Whether `user` is a member of `group`, read in the caller's transaction and
    /// held there: a removal waits for it to end (and then finds what it wrote, a
    /// place at a game, to undo), or went first and is seen.
    func isMember(_ user: UUID, of group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "SELECT 1 AS one FROM group_members WHERE group_id = \(bind: group) AND user_id = \(bind: user) \(ForShareClause())"
        ).first() != nil
    }

    /// Mutes or unmutes a member's news of the group's new events; false when not a member.
    func setMuted(_ muted: Bool, user: UUID, in group: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE group_members SET muted = \(bind: muted) WHERE group_id = \(bind: group) AND user_id = \(bind: user) RETURNING user_id"
        ).first() != nil
    }

    /// The members to tell of a new event of the group: all but those who muted it
    /// and `except` (who made it).
    func unmutedMembers(of group: UUID, except: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw(
            """
            SELECT user_id FROM group_members WHERE group_id = \(bind: group) AND muted = \(bind: false) AND user_id <> \(bind: except) ORDER BY user_id
            """
        ).all().map { try $0.value("user_id") }
    }

    // MARK: Standing

    func standing(of user: UUID, in group: UUID, on sql: (any SQLDatabase)? = nil) async throws -> GroupStanding {
        try await reading(on: sql) { sql in
            let row = try await sql.raw(
                """
                SELECT (SELECT role FROM group_members WHERE group_id = \(bind: group) AND user_id = \(bind: user)) AS role,
                       (SELECT 1 FROM group_members WHERE group_id = \(bind: group) AND user_id = \(bind: user) AND muted = \(bind: true)) AS muted,
                       (SELECT 1 FROM group_requests WHERE group_id = \(bind: group) AND user_id = \(bind: user)) AS requested,
                       (SELECT 1 FROM group_bans WHERE group_id = \(bind: group) AND user_id = \(bind: user)) AS banned
                """
            ).first()
            guard let row else { return .none }
            return GroupStanding(
                role: (try row.optional("role", as: String.self)).flatMap(GroupRole.init(rawValue:)),
                requested: try row.optional("requested", as: Int.self) != nil,
                banned: try row.optional("banned", as: Int.self) != nil,
                muted: try row.optional("muted", as: Int.self) != nil
            )
        }
    }

}

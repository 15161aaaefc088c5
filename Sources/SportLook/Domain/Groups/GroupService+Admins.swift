import Crypto
import Foundation
import GeoGrid

/// What a group's owner and admins do (requests, removals, bans, roles, the invite link), finding groups, and lists.
extension GroupService {
    // MARK: Admins

    /// Waiting requests, oldest first (admins).
    func requests(_ id: UUID, for user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<GroupRequest> {
        try await requireRole(.admin, of: user, in: id)
        let hidden = try await blocks.eitherWay(user)
        let page = try await store.requests(to: id, cursor: cursor, limit: limit)
        return Page(items: page.items.filter { !hidden.contains($0.user.id) }, nextCursor: page.nextCursor)
    }

    /// Accepts (the person becomes a member) or refuses a request; the person is told.
    func answer(_ id: UUID, request person: UUID, accept: Bool, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store, accounts, notifier] sql, changes in
            // The person's row first, as a join does: a deleted account is not made a member.
            let live = try await accounts.lockLive(person, on: sql)
            let (group, _) = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            guard try await store.removeRequest(person, from: id, on: sql), live else { throw DomainError.notFound(.request) }
            if accept {
                try await admit(person, to: id, at: now, on: sql, &changes)
            }
            try await notifier.groupAnswer(group, accepted: accept, to: person, at: now, on: sql, changes: &changes)
        }
    }

    /// Removes a member, or with `ban` also keeps them (or anyone) from joining
    /// again. Admins remove members; only the owner removes admins; nobody removes
    /// the owner.
    func remove(_ id: UUID, member person: UUID, ban: Bool, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store] sql, changes in
            let (group, mine) = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            guard person != user else {
                throw DomainError.validation(["user_id": Sentence("leave the group instead of removing yourself")])
            }
            let theirs = try await store.standing(of: person, in: id, on: sql)
            if let role = theirs.role {
                guard role != .owner else { throw DomainError.forbidden("owner_only", Sentence("Nobody removes the group's owner.")) }
                guard role == .member || mine.role == .owner else {
                    throw DomainError.forbidden("owner_only", Sentence("Only the owner removes an admin."))
                }
                try await depart(person, role: role, from: group, byChoice: false, at: now, on: sql, &changes)
            } else if !ban {
                throw DomainError.notFound(.member)
            }
            if ban {
                guard try await accounts.user(person, on: sql) != nil else { throw DomainError.notFound(.user) }
                try await store.ban(person, from: id, by: user, at: now, on: sql)
            }
        }
    }

    func unban(_ id: UUID, user person: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store] sql, _ in
            _ = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            guard try await store.unban(person, from: id, on: sql) else { throw DomainError.notFound(.ban) }
        }
    }

    func bans(_ id: UUID, for user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<Ban> {
        try await requireRole(.admin, of: user, in: id)
        return try await store.bans(of: id, cursor: cursor, limit: limit)
    }

    /// Makes a member an admin or an admin a member (owner only).
    func setRole(_ id: UUID, member person: UUID, role: GroupRole, by user: UUID) async throws {
        guard role != .owner else {
            throw DomainError.validation(["role": Sentence("must be admin or member; hand the group over to make someone its owner")])
        }
        let now = clock.now()
        try await write { [store] sql, _ in
            _ = try await locked(id, by: user, needs: .owner, at: now, on: sql)
            guard let theirs = try await store.standing(of: person, in: id, on: sql).role, theirs != .owner else {
                throw DomainError.notFound(.member)
            }
            try await store.setRole(role, of: person, in: id, on: sql)
        }
    }

    /// The owner hands the group to a member, staying on as an admin.
    func handOver(_ id: UUID, to person: UUID, by user: UUID) async throws -> Group {
        let now = clock.now()
        return try await write { [store, ledger] sql, _ in
            let (current, _) = try await locked(id, by: user, needs: .owner, at: now, on: sql)
            guard person != user, try await store.standing(of: person, in: id, on: sql).role != nil else {
                throw DomainError.notFound(.member)
            }
            try await store.setRole(.owner, of: person, in: id, on: sql)
            try await store.setRole(.admin, of: user, in: id, on: sql)
            // No longer the owner: they owe the period's dues as members do.
            try await ledger.chargeDues(current, people: [user], at: now, on: sql)
            guard let group = try await store.group(id, on: sql) else { throw DomainError.notFound(.group) }
            return group
        }
    }

    // MARK: Invite link

    /// A new invite secret for the group (admins); the old one stops working. Only
    /// its digest is kept: the link is shown once, to the admin who made it.
    func newInvite(_ id: UUID, by user: UUID) async throws -> String {
        let secret = Self.newSecret()
        let now = clock.now()
        try await write { [store] sql, _ in
            _ = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            try await store.setInvite(digest: Self.digest(secret), of: id, on: sql)
        }
        return secret
    }

    func revokeInvite(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store] sql, _ in
            _ = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            try await store.setInvite(digest: nil, of: id, on: sql)
        }
    }

    /// 256 random bits, base64url, like an access token.
    static func newSecret() -> String { AccessToken.generate() }

    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array("sportlook-group-invite\n\(secret)".utf8)).hexString
    }

    // MARK: Finding groups

    /// A group found nearby, with the caller's standing and its distance.
    struct Found: Sendable {
        var group: Group
        var standing: GroupStanding
        var distance: Double
    }

    /// Listed groups within `metres` of `center`, nearest first: of `sport` when given,
    /// with at least `minMembers` members when given. The index answers both in its
    /// walk; each page's rows are read from the database and checked again, so a group
    /// that changed since the index heard of it is shown as it is now (or left out).
    func nearby(
        for viewer: UUID, center: GeoPoint, metres: Double, sport: String?, minMembers: Int?, limit: Int,
        cursor: EventSearch.DistanceCursor?
    ) async throws -> Page<Found> {
        guard index.isWarm else { throw DomainError.warmingUp }
        var query = QueryFingerprint()
        query.add(3)
        query.add(Int64(center.latitudeE7))
        query.add(Int64(center.longitudeE7))
        query.add(double: metres)
        query.add(text: sport)
        query.add(Int64(minMembers ?? 0))
        let queryID = query.value
        if let cursor, cursor.query != queryID { throw DomainError.invalidParameter("cursor", Sentence("belongs to another query")) }
        let sportMask = sport.map { sports.mask(of: [$0]) }
        let filter = GeoFilter(anyOf: sportMask, timeFrom: Int64(minMembers ?? 0))
        var after = cursor?.position
        var found: [Found] = []
        var more = false
        while true {
            let need = limit - found.count
            let hits = index.grid.search(within: metres, of: center, filter: filter, after: after, limit: need + 1)
            let page = Array(hits.prefix(need))
            let ids = page.map { UUID(geoKey: $0.entry.key) }
            let rows = try await store.groups(ids)
            let roles = try await store.roles(of: viewer, in: ids)
            let asked = try await store.requested(by: viewer, in: ids)
            for hit in page {
                after = hit.cursor
                let id = UUID(geoKey: hit.entry.key)
                guard let group = rows[id], GroupIndex.isFindable(group), group.memberCount >= (minMembers ?? 0),
                    sport.map(group.sports.contains) ?? true
                else { continue }
                found.append(
                    Found(group: group, standing: GroupStanding(role: roles[id], requested: asked.contains(id)), distance: hit.distance))
            }
            if hits.count <= need { break }
            if found.count == limit {
                more = true
                break
            }
        }
        return Page(items: found, nextCursor: more ? after.map { EventSearch.DistanceCursor(position: $0, query: queryID).cursor } : nil)
    }

    // MARK: Lists

    /// The members (members only).
    func members(_ id: UUID, for user: UUID, cursor: MemberCursor?, limit: Int) async throws -> Page<GroupMember> {
        try await requireRole(.member, of: user, in: id)
        let hidden = try await blocks.eitherWay(user)
        let page = try await Database.lagTolerant { try await store.members(of: id, cursor: cursor, limit: limit) }
        return Page(items: page.items.filter { !hidden.contains($0.user.id) }, nextCursor: page.nextCursor)
    }

    func myGroups(_ user: UUID, cursor: TimeCursor?, limit: Int) async throws -> Page<(Group, GroupRole)> {
        try await store.groups(of: user, cursor: cursor, limit: limit)
    }

    /// Throws unless `user` has at least `role` in the live group `id` (404 for a
    /// deleted or unknown group; 403 `members_only` or `admins_only` otherwise).
    func requireRole(_ role: GroupRole, of user: UUID, in id: UUID) async throws {
        guard let group = try await store.group(id), !group.isDeleted else { throw DomainError.notFound(.group) }
        guard let mine = try await store.standing(of: user, in: id).role, mine <= role else {
            throw role == .member
                ? DomainError.forbidden("members_only", Sentence("Only the group's members see this."))
                : DomainError.forbidden("admins_only", Sentence("Only the group's owner and admins see this."))
        }
    }
}

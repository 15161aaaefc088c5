import Crypto
import Foundation
import GeoGrid

/// Groups: making and editing them, joining by their policy (at once, by request,
/// or with the invite link), roles, removals, bans and handing over.
///
/// Every membership change of a group takes the group's row lock first, so two
/// changes of one group take turns (two admins answering one request, an owner
/// leaving while someone is promoted).
struct GroupService: Sendable {
    let store: GroupStore
    let index: GroupIndex
    let accounts: AccountStore
    let sports: SportCatalog
    let notifier: Notifier
    /// Cover photos.
    let media: MediaAttachments
    /// The group's events: off them when a member leaves, cancelled when the group ends.
    let events: EventService
    /// People blocked either way are not on each other's member lists or request lists.
    let blocks: Blocks
    /// The group's dues, charged as members come and periods start.
    let ledger: Ledger
    let write: Writer
    let clock: any AppClock

    static let maxSports = 10

    /// `{name, description?, sports?, location, policy?, visibility?, cover_id?, dues?}`; in
    /// an edit every field is optional. No field may be null but `cover_id` (no cover) and
    /// `dues` (none).
    struct Input: Decodable, Sendable {
        var name: Patch<String> = .absent
        var description: Patch<String> = .absent
        var sports: Patch<[String]> = .absent
        var location: Patch<Coordinate> = .absent
        var policy: Patch<String> = .absent
        var visibility: Patch<String> = .absent
        var coverId: Patch<String> = .absent
        var dues: Patch<Ledger.DuesInput> = .absent

        enum CodingKeys: String, CodingKey { case name, description, sports, location, policy, visibility, coverId, dues }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.patch(.name)
            description = try c.patch(.description)
            sports = try c.patch(.sports)
            location = try c.patch(.location)
            policy = try c.patch(.policy)
            visibility = try c.patch(.visibility)
            coverId = try c.patch(.coverId)
            dues = try c.patch(.dues)
        }
    }

    /// The changes asked, and the cover asked (an upload's id, resolved in the write).
    private func validate(_ input: Input, creating: Bool) throws -> (GroupStore.Changes, Patch<UUID>) {
        var v = Validator()
        var c = GroupStore.Changes()
        var cover = Patch<UUID>.absent
        switch input.coverId {
        case .value(let text): if let id = MediaAttachments.parseID(text, field: "cover_id", into: &v) { cover = .value(id) }
        case .null: cover = .null
        case .absent: break
        }
        let name = v.nonNull(input.name, "name")
        if creating || name != nil { c.name = v.name(name, "name") }
        if let description = v.nonNull(input.description, "description") {
            c.description = v.text(description, "description", 0...2_000, multiline: true)
        }
        if let list = v.nonNull(input.sports, "sports") {
            if list.count > Self.maxSports {
                v.fail("sports", Sentence("must name at most \(Self.maxSports) sports"))
            } else if let unknown = list.first(where: { sports[$0] == nil }) {
                v.fail("sports", Sentence("unknown sport '\(unknown.prefix(64))'"))
            } else {
                c.sports = Array(Set(list)).sorted()
            }
        }
        let location = v.nonNull(input.location, "location")
        if creating || location != nil {
            if let at = location, at.lat.isFinite, at.lon.isFinite, (-90...90).contains(at.lat), (-180...180).contains(at.lon) {
                // A home area, never a door: snapped as people's locations are.
                c.location = at.snappedForPrivacy
            } else {
                v.fail("location", location == nil ? Sentence("is required") : Sentence("must have lat -90…90 and lon -180…180"))
            }
        }
        if let text = v.nonNull(input.policy, "policy") {
            if let policy = GroupPolicy(rawValue: text) {
                c.policy = policy
            } else {
                v.fail("policy", Sentence("must be public, approval or invite"))
            }
        }
        if let text = v.nonNull(input.visibility, "visibility") {
            if let visibility = GroupVisibility(rawValue: text) {
                c.visibility = visibility
            } else {
                v.fail("visibility", Sentence("must be listed or unlisted"))
            }
        }
        switch input.dues {
        case .value(let dues): c.dues = dues.validated(into: &v)
        case .null: c.clearsDues = true
        case .absent: break
        }
        try v.throwIfInvalid()
        return (c, cover)
    }

    /// Makes a group; its maker is its owner and first member.
    func create(by user: UUID, _ input: Input) async throws -> Group {
        let (c, cover) = try validate(input, creating: true)
        let now = clock.now()
        return try await write { [store, accounts, media, ledger] sql, changes in
            guard try await accounts.lockLive(user, on: sql), let owner = try await accounts.user(user, on: sql) else {
                throw DomainError.notFound(.user)
            }
            var group = Group(
                id: UUID(), name: c.name ?? "", description: c.description ?? "", sports: c.sports ?? [],
                location: c.location ?? Coordinate(lat: 0, lon: 0),
                policy: c.policy ?? .approval, visibility: c.visibility ?? .listed, owner: UserSummary(id: owner.id, name: owner.name),
                memberCount: 1, isDeleted: false, version: 1, createdAt: now, updatedAt: now
            )
            group.dues = c.dues?.starting(replacing: nil, at: now)
            if case .value(let id) = cover {
                group.cover = try await media.attach(id, use: .cover, owner: user, field: "cover_id", at: now, on: sql)
            }
            try await store.insert(group, on: sql)
            try await ledger.chargeDues(group, at: now, on: sql)
            changes.record(.membership(user: user, group: group.id))
            changes.group(group)
            return group
        }
    }

    /// A live group and the viewer's standing in it; a deleted group is 404.
    func group(_ id: UUID, for viewer: UUID) async throws -> (Group, GroupStanding) {
        guard let group = try await store.group(id), !group.isDeleted else { throw DomainError.notFound(.group) }
        return (group, try await store.standing(of: viewer, in: id))
    }

    /// Takes the group's lock and checks that `user` has at least `role` in it.
    func locked(_ id: UUID, by user: UUID, needs role: GroupRole?, at now: Date, on sql: DatabaseSession) async throws -> (
        Group, GroupStanding
    ) {
        guard let group = try await store.lock(id, at: now, on: sql) else { throw DomainError.notFound(.group) }
        let standing = try await store.standing(of: user, in: id, on: sql)
        if let role {
            guard let mine = standing.role, mine <= role else {
                throw DomainError.forbidden(
                    role == .owner ? "owner_only" : "admins_only",
                    role == .owner
                        ? Sentence("Only the group's owner may do this.") : Sentence("Only the group's owner and admins may do this."))
            }
        }
        return (group, standing)
    }

    /// Edits the group (admins). A new cover is an upload of the caller's; the one it
    /// replaces (or `null` removes) is deleted, its files after the commit.
    func update(_ id: UUID, by user: UUID, _ input: Input) async throws -> Group {
        let (asked, cover) = try validate(input, creating: false)
        let now = clock.now()
        let (group, released) = try await write { [store, media, ledger] sql, changes in
            var c = asked
            let (current, _) = try await locked(id, by: user, needs: .admin, at: now, on: sql)
            if let dues = c.dues {
                try await ledger.checkDues(dues, of: id, on: sql)
                c.dues = dues.starting(replacing: current.dues, at: now)
            }
            var released: [String] = []
            if !cover.isAbsent, cover.given != current.cover?.id {
                if case .value(let upload) = cover {
                    c.cover = .value(try await media.attach(upload, use: .cover, owner: user, field: "cover_id", at: now, on: sql))
                } else {
                    c.cover = .null
                }
                if let old = current.cover?.id { released = try await media.release([old], on: sql) }
            }
            try await store.update(id, c, at: now, on: sql)
            guard let group = try await store.group(id, on: sql) else { throw DomainError.notFound(.group) }
            // Dues set anew are owed for the period running now; changed ones from the next.
            if c.dues != nil { try await ledger.chargeDues(group, at: now, on: sql) }
            changes.group(group)
            return (group, released)
        }
        await media.removeBlobs(released)
        return group
    }

    /// Ends a group (owner only): its members, requests and invite link go.
    func delete(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { sql, changes in
            let (group, _) = try await locked(id, by: user, needs: .owner, at: now, on: sql)
            try await end(group, at: now, on: sql, &changes)
        }
    }

    // MARK: Joining

    enum Joined: String, Sendable {
        /// A member now (or already).
        case member
        /// Asked to join; an admin answers.
        case requested
    }

    /// Joins by the group's policy: a public group at once, an approval group by a
    /// request the admins answer, an invite-only group only with its live invite
    /// link, which admits to any group whatever its policy. Banned people cannot.
    func join(_ id: UUID, by user: UUID, invite: String?, message: String?) async throws -> Joined {
        var v = Validator()
        let note = v.text(message ?? "", "message", 0...500, multiline: true) ?? ""
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [store, accounts, notifier] sql, changes in
            // The person's row, then the group's: the order an account's deletion takes
            // them in, so a join cannot slip past a deletion that is leaving every group.
            guard try await accounts.lockLive(user, on: sql) else { throw DomainError.notFound(.user) }
            let (group, standing) = try await locked(id, by: user, needs: nil, at: now, on: sql)
            if standing.role != nil { return .member }
            if standing.banned {
                throw DomainError.forbidden("banned", Sentence("You were removed from this group and cannot join it again."))
            }
            var admitted = group.policy == .open
            if let invite {
                guard AccessToken.isWellFormed(invite), try await store.inviteMatches(Self.digest(invite), group: id, on: sql) else {
                    throw DomainError.forbidden(
                        "invite_invalid", Sentence("This invite link is not valid any more; ask the group for a new one."))
                }
                admitted = true
            }
            if admitted {
                try await admit(user, to: id, at: now, on: sql, &changes)
                return .member
            }
            guard group.policy == .approval else {
                throw DomainError.forbidden("invite_only", Sentence("This group takes new members by invite link only."))
            }
            if try await store.addRequest(user, to: id, message: note, at: now, on: sql) {
                let name = try await accounts.names(of: [user], on: sql)[user] ?? ""
                try await notifier.groupRequest(
                    group, from: UserSummary(id: user, name: name), to: try await store.admins(of: id, on: sql), at: now, on: sql,
                    changes: &changes)
            }
            return .requested
        }
    }

    /// Leaves a group, or takes back one's request to join it, whichever holds when the
    /// group's lock is taken. An owner who leaves hands the group to the
    /// longest-standing admin, then member; an owner who is the last member ends it.
    func leave(_ id: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [store] sql, changes in
            let (group, standing) = try await locked(id, by: user, needs: nil, at: now, on: sql)
            if let role = standing.role {
                try await depart(user, role: role, from: group, byChoice: true, at: now, on: sql, &changes)
            } else if !(try await store.removeRequest(user, from: id, on: sql)) {
                throw DomainError.notFound(.membership)
            }
        }
    }

    /// Records the group's row as the write leaves it (the groups index follows it).
    func changed(_ id: UUID, on sql: DatabaseSession, _ changes: inout ChangeSet) async throws {
        if let group = try await store.group(id, on: sql) { changes.group(group) }
    }

    /// `person` becomes a member, in the group's lock; their new groups travel the change feed.
    func admit(_ person: UUID, to id: UUID, at now: Date, on sql: DatabaseSession, _ changes: inout ChangeSet) async throws {
        _ = try await store.addMember(person, to: id, at: now, on: sql)
        // Dues: the period running now is owed from the day one joins.
        if let group = try await store.group(id, on: sql), group.dues != nil {
            try await ledger.chargeDues(group, people: [person], at: now, on: sql)
        }
        changes.record(.membership(user: person, group: id))
        try await changed(id, on: sql, &changes)
    }

    /// `user` (with `role`) is no longer a member, in the group's lock: off its
    /// members-only events; an owner's group passes to its heir, or ends with them.
    func depart(
        _ user: UUID, role: GroupRole, from group: Group, byChoice: Bool, at now: Date, on sql: DatabaseSession, _ changes: inout ChangeSet
    ) async throws {
        if role == .owner {
            guard let heir = try await store.successor(in: group.id, excluding: user, on: sql) else {
                try await end(group, at: now, on: sql, &changes)
                return
            }
            try await store.setRole(.owner, of: heir, in: group.id, on: sql)
        }
        _ = try await store.removeMember(user, from: group.id, on: sql)
        try await events.departed(user, from: group, byChoice: byChoice, at: now, on: sql, changes: &changes)
        changes.record(.membership(user: user, group: group.id))
        try await changed(group.id, on: sql, &changes)
    }

    /// Ends a locked group: its members, requests and link go, its unfinished events
    /// are cancelled with a notice and its series end.
    func end(_ group: Group, at now: Date, on sql: DatabaseSession, _ changes: inout ChangeSet) async throws {
        try await events.groupEnded(group, at: now, on: sql, changes: &changes)
        try await ledger.endDues(group, at: now, on: sql)
        // Its cover goes (its files are queued for the collector).
        if let cover = group.cover?.id { _ = try await media.release([cover], on: sql) }
        for member in try await store.markDeleted(group.id, at: now, on: sql) { changes.record(.membership(user: member, group: group.id)) }
        try await changed(group.id, on: sql, &changes)
    }

    /// A deleted account leaves every group it belonged to, and its requests to join
    /// go (in the deletion's transaction).
    func leaveAll(_ user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        // Each group under its lock, in id order (so two deletions never wait on each other in a circle).
        for id in try await store.groupsWithStanding(of: user, on: sql) {
            guard let group = try await store.lock(id, at: now, on: sql) else { continue }
            _ = try await store.removeRequest(user, from: id, on: sql)
            if let role = try await store.standing(of: user, in: id, on: sql).role {
                try await depart(user, role: role, from: group, byChoice: false, at: now, on: sql, &changes)
            }
        }
    }

    /// A suspended person's groups pass on (in the suspension's transaction): each group
    /// they own to its next owner, as on leaving (a group with no one else ends); they
    /// stay on as a member.
    func handOn(ownedBy user: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        for id in try await store.groupsWithStanding(of: user, on: sql) {
            guard let group = try await store.lock(id, at: now, on: sql), try await store.standing(of: user, in: id, on: sql).role == .owner
            else { continue }
            guard let heir = try await store.successor(in: id, excluding: user, on: sql) else {
                try await end(group, at: now, on: sql, &changes)
                continue
            }
            try await store.setRole(.owner, of: heir, in: id, on: sql)
            try await store.setRole(.member, of: user, in: id, on: sql)
            // No longer the owner: they owe the period's dues as members do.
            try await ledger.chargeDues(group, people: [user], at: now, on: sql)
            try await changed(id, on: sql, &changes)
        }
    }

    /// Mutes or unmutes news of the group's new events, for a member (404 `membership` otherwise).
    func setMuted(_ muted: Bool, group id: UUID, by user: UUID) async throws {
        try await write { [store] sql, _ in
            guard try await store.setMuted(muted, user: user, in: id, on: sql) else { throw DomainError.notFound(.membership) }
        }
    }
}

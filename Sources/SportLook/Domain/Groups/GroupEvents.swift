import Foundation

/// The group an event or a series is made for (`group_id`), and whether the
/// group's members alone may see it (`members_only`, the default for a group's
/// event). Only the group's owner and admins make its events; both are fixed once
/// made (moving an event between groups, or opening a members-only one to
/// everyone, would show it to people its attendees never expected).
struct GroupChoice: Sendable, Hashable {
    var group: UUID
    var membersOnly: Bool

    /// Reads the two fields of a new event or series (nil: no group); on an edit,
    /// refuses them.
    static func read(groupID: Patch<String>, membersOnly: Patch<Bool>, creating: Bool) throws -> GroupChoice? {
        var v = Validator()
        guard creating else {
            if !groupID.isAbsent { v.fail("group_id", Sentence("cannot be changed: a group's event stays the group's")) }
            if !membersOnly.isAbsent { v.fail("members_only", Sentence("cannot be changed once made")) }
            try v.throwIfInvalid()
            return nil
        }
        var choice: GroupChoice?
        switch groupID {
        case .value(let text):
            if let id = UUID(text: text) {
                choice = GroupChoice(group: id, membersOnly: true)
            } else {
                v.fail("group_id", Sentence("must be a group's id"))
            }
        case .null, .absent: break
        }
        switch membersOnly {
        case .value(let only):
            if choice == nil, only, v.fields["group_id"] == nil {
                v.fail("members_only", Sentence("needs a group_id: only a group's event is for its members alone"))
            }
            choice?.membersOnly = only
        case .null: v.fail("members_only", Sentence("must be true or false"))
        case .absent: break
        }
        try v.throwIfInvalid()
        return choice
    }

    /// Checks, in the write's transaction, that `user` may make events for the group
    /// (its owner or an admin), holding the group's row so that it is not ended
    /// meanwhile; returns the group.
    func requireMaker(_ user: UUID, groups: GroupStore, at now: Date, on sql: DatabaseSession) async throws -> Group {
        guard let group = try await groups.lock(self.group, at: now, on: sql) else { throw DomainError.notFound(.group) }
        guard let role = try await groups.standing(of: user, in: self.group, on: sql).role, role.isAdmin else {
            throw DomainError.forbidden("admins_only", Sentence("Only the group's owner and admins make its events."))
        }
        return group
    }
}

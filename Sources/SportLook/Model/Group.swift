import Foundation
import Synchronization

/// Who may join a group.
public enum GroupPolicy: String, Sendable, Hashable, CaseIterable {
    /// Anyone joins at once.
    case open = "public"
    /// Anyone may ask; an admin accepts or refuses.
    case approval
    /// Only with the group's invite link.
    case invite
}

/// Where a group can be found.
public enum GroupVisibility: String, Sendable, Hashable, CaseIterable {
    /// In groups nearby, by anyone.
    case listed
    /// Only by its link (its id).
    case unlisted
}

/// A member's part in a group. The owner is one person; admins approve requests,
/// remove and ban members and edit the group; the owner also names admins, hands
/// the group over and deletes it.
public enum GroupRole: String, Sendable, Hashable, CaseIterable, Comparable {
    case owner, admin, member

    /// An owner or an admin.
    var isAdmin: Bool { self != .member }

    /// 0 for the owner, 1 for admins, 2 for members: the members list's order.
    var rank: Int {
        switch self {
        case .owner: 0
        case .admin: 1
        case .member: 2
        }
    }

    /// Owner first, then admins, then members.
    public static func < (a: GroupRole, b: GroupRole) -> Bool { a.rank < b.rank }
}

/// A group: the club, the team, the Tuesday crowd.
public struct Group: Sendable, Hashable {
    public var id: UUID
    public var name: String
    public var description: String
    public var sports: [String]
    /// The home area, snapped like people's locations (``Coordinate/snappedForPrivacy``).
    public var location: Coordinate
    public var policy: GroupPolicy
    public var visibility: GroupVisibility
    public var owner: UserSummary
    /// The cover photo, an upload of this service.
    public var cover: MediaRef? = nil
    /// What members pay each period, if anything.
    public var dues: Dues? = nil
    public var memberCount: Int
    public var isDeleted: Bool
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
}

/// One person's standing in a group.
public struct GroupStanding: Sendable, Hashable {
    /// Their role, when a member.
    public var role: GroupRole?
    /// Whether they asked to join and wait for an answer.
    public var requested = false
    /// Whether an admin banned them.
    public var banned = false
    /// Whether they muted news of the group's new events (members only).
    public var muted = false

    public static let none = GroupStanding()
}

/// A member as the members list shows them.
public struct GroupMember: Sendable, Hashable {
    public var user: UserSummary
    public var role: GroupRole
    public var joinedAt: Date
}

/// Someone asking to join, as admins see them.
public struct GroupRequest: Sendable, Hashable {
    public var user: UserSummary
    public var message: String
    public var createdAt: Date
}

/// A position in a members list: role rank, then when they joined, then id.
struct MemberCursor: CursorCodable, Sendable {
    var rank: Int
    var joinedAt: Date
    var user: UUID

    init(rank: Int, joinedAt: Date, user: UUID) {
        self.rank = rank
        self.joinedAt = joinedAt
        self.user = user
    }

    init?(cursor: String) {
        guard let f = OpaqueCursor.decode(cursor, count: 3), let rank = Int(f[0]), (0...2).contains(rank),
            let bits = UInt64(f[1], radix: 16),
            let user = UUID(text: f[2])
        else { return nil }
        let seconds = Double(bitPattern: bits)
        guard seconds.isFinite else { return nil }
        self.init(rank: rank, joinedAt: Date(timeIntervalSince1970: seconds), user: user)
    }

    var cursor: String {
        OpaqueCursor.encode([String(rank), String(joinedAt.timeIntervalSince1970.bitPattern, radix: 16), user.lowercased])
    }
}

/// The groups a person belongs to: what they may see of members-only events
/// (``EventAccess``). Immutable: a change of groups is a new value (and a new memo).
struct Memberships: Sendable, Hashable {
    let groups: Set<UUID>
    /// What search derives from these groups (their grid scopes), kept with them so
    /// that a caller's every search does not derive it again.
    let memo = Memo()

    init(groups: Set<UUID>) { self.groups = groups }

    static let none = Memberships(groups: [])

    func contains(_ group: UUID) -> Bool { groups.contains(group) }

    static func == (a: Memberships, b: Memberships) -> Bool { a.groups == b.groups }
    func hash(into hasher: inout Hasher) { hasher.combine(groups) }

    /// A value derived once per memberships, tagged with what it was derived under.
    final class Memo: Sendable {
        private let stored = Mutex<(tag: Int, value: any Sendable)?>(nil)

        /// The value derived under `tag`, deriving (and keeping) it when there is none.
        func value<T: Sendable>(tag: Int, _ derive: () -> T) -> T {
            if let kept = stored.withLock({ $0 }), kept.tag == tag, let value = kept.value as? T { return value }
            let value = derive()
            stored.withLock { $0 = (tag, value) }
            return value
        }
    }
}

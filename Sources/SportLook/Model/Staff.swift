import Foundation

/// What a member of staff may do. Moderators act on content and accounts; admins do that
/// too and also manage staff, settings and jobs.
public enum StaffRole: String, Sendable, Hashable, CaseIterable, Codable {
    case moderator, admin

    /// Whether this role may do what `needed` may.
    public func covers(_ needed: StaffRole) -> Bool { self == .admin || needed == .moderator }
}

/// Who did something the audit log records: a person signed in, or the operator at the
/// command line.
public enum AuditActor: Sendable, Hashable {
    case person(UUID, name: String)
    case commandLine

    var id: UUID? {
        if case .person(let id, _) = self { return id }
        return nil
    }

    var label: String {
        switch self {
        case .person(_, let name): name
        case .commandLine: "command line"
        }
    }
}

/// One row of the audit log: who did what, to which target, why and when. Rows are only
/// ever added (the database refuses to change or remove one).
public struct AuditEntry: Sendable, Hashable {
    public var id: UUID
    public var at: Date
    /// The person who acted (nil: the command line).
    public var actorID: UUID?
    /// Their name as it was then, or "command line".
    public var actor: String
    /// What was done: `staff_granted`, `staff_revoked`, …
    public var action: String
    public var targetType: String
    public var targetID: String
    public var reason: String
    /// Details of the action as a JSON object (the role given, …).
    public var details: String
}

import Foundation
internal import SportLookAPI

/// One entry of the audit log: an act of the staff (or of the server on their behalf), kept
/// for good with who did it and why.
public struct AuditEntry: Hashable, Sendable, Codable, Identifiable {
    /// An entry's id (an appeal names the act it contests by it).
    public typealias ID = Identifier<AuditEntry>
    /// The entry's id.
    public var id: ID
    /// When it was done.
    public var at: Date
    /// Who did it (nil: the command line or the server).
    public var actor: Person.ID?
    /// Their name, as it was.
    public var actorName: String
    /// What was done: `report.remove`, `account.suspend`, `jobs.retry`…
    public var action: String
    /// What it was done to: `user`, `event`, `message`, `group`, `photo`, `jobs`…
    public var targetType: String
    /// Its id.
    public var targetID: String
    /// Why, in the words of who did it.
    public var reason: String
    /// What else the act recorded, by name.
    public var details: [String: String]

    init(_ entry: Components.Schemas.AuditEntry) throws {
        id = try .parse(entry.id)
        at = entry.at
        actor = try entry.actorId.map(Person.ID.parse)
        actorName = entry.actor
        action = entry.action
        targetType = entry.targetType
        targetID = entry.targetId
        reason = entry.reason
        details = entry.details.additionalProperties
    }
}

/// An account as the staff see it: its standing and what it did.
public struct ModeratedAccount: Hashable, Sendable, Codable, Identifiable {
    /// The person.
    public var id: Person.ID
    /// Their name.
    public var name: String
    /// Their email.
    public var email: String
    /// When the account was made.
    public var createdAt: Date
    /// Whether it was erased.
    public var isDeleted: Bool
    /// Whether it may not make games, groups or conversations.
    public var isLimited: Bool
    /// When it was suspended, while it is.
    public var suspendedAt: Date?
    /// Until when (nil while suspended: for good).
    public var suspendedUntil: Date?
    /// Reports about them.
    public var reportsReceived: Int
    /// Reports they made.
    public var reportsMade: Int
    /// The scripts of a name that mixes look-alike letters (`Latin+Cyrillic`), when it does.
    public var lookAlikeScripts: String?
    /// Devices signed in.
    public var devices: Int
    /// Sessions not ended.
    public var liveSessions: Int
    /// Groups they belong to.
    public var groups: Int
    /// Games they organised.
    public var gamesOrganised: Int
    /// Games they joined.
    public var gamesJoined: Int
    /// Their showing-up record, when they have one.
    public var record: ReliabilityRecord?

    init(_ account: Components.Schemas.ModeratedAccount) throws {
        id = try .parse(account.id)
        name = account.name
        email = account.email
        createdAt = account.createdAt
        isDeleted = account.deleted
        isLimited = account.limited
        suspendedAt = account.suspendedAt
        suspendedUntil = account.suspendedUntil
        reportsReceived = account.reportsReceived
        reportsMade = account.reportsMade
        lookAlikeScripts = account.lookAlikeScripts
        devices = account.devices
        liveSessions = account.liveSessions
        groups = account.groups
        gamesOrganised = account.gamesOrganised
        gamesJoined = account.gamesJoined
        record = account.record.map { ReliabilityRecord($0.value1) }
    }
}

/// Reports about one thing, waiting for a decision, oldest first in the queue.
public struct ReportCase: Hashable, Sendable, Codable {
    /// One report in the case.
    public struct Report: Hashable, Sendable, Codable {
        /// Who reported.
        public var reporter: Person
        /// `spam`, `harassment`, `inappropriate`, `impersonation`, `safety` or `other`.
        public var reason: String
        /// Their words.
        public var details: String?
        /// When.
        public var createdAt: Date
    }

    /// A chat message as the staff see it.
    public struct ReportedMessage: Hashable, Sendable, Codable {
        /// Its room.
        public var room: String
        /// Its number in the room.
        public var seq: Int
        /// Who wrote it.
        public var sender: Person
        /// Its text (empty once deleted).
        public var body: String
        /// When it was sent.
        public var createdAt: Date
        /// When it was deleted.
        public var deletedAt: Date?
    }

    /// What the reports are about.
    public var target: ReportTarget
    /// Whose it is (the person, the author, the organiser, the owner), when known.
    public var subject: Person?
    /// When the oldest report came.
    public var oldestAt: Date
    /// When a decision is due.
    public var dueAt: Date
    /// The reports.
    public var reports: [Report]
    /// `message`, `event`, `group`, `photo`, `user`, or `gone` (deleted since).
    public var contextKind: String
    /// The reported message, for a message.
    public var message: ReportedMessage?
    /// The messages around it.
    public var around: [ReportedMessage]
    /// The reported account, for a person.
    public var account: ModeratedAccount?

    init(_ group: Components.Schemas.ReportGroup) throws {
        let id = group.targetId
        switch group.targetType {
        case .user: target = .person(try .parse(id))
        case .event: target = .event(try .parse(id))
        case .group: target = .group(try .parse(id))
        case .photo: target = .photo(id)
        case .message: target = .message(id)
        }
        subject = try group.subject.map { try Person($0.value1) }
        oldestAt = group.oldestAt
        dueAt = group.dueAt
        reports = try group.reports.map {
            Report(
                reporter: try Person($0.reporter), reason: $0.reason, details: $0.details,
                createdAt: $0.createdAt)
        }
        contextKind = group.context.kind.rawValue
        message = try group.context.message.map(ReportedMessage.init)
        around = try (group.context.around ?? []).map(ReportedMessage.init)
        account = try group.context.user.map(ModeratedAccount.init)
    }
}

extension Person {
    /// Someone as the staff's answers name them.
    init(_ person: Components.Schemas.StaffPerson) throws {
        self.init(id: try .parse(person.id), name: person.name)
    }
}

extension ReportCase.ReportedMessage {
    init(_ message: Components.Schemas.ModeratedMessage) throws {
        room = message.roomId
        seq = message.seq
        sender = try Person(message.sender)
        body = message.body
        createdAt = message.createdAt
        deletedAt = message.deletedAt
    }
}

/// An appeal against a staff act, with the act and the person.
public struct AppealCase: Hashable, Sendable, Codable, Identifiable {
    /// An appeal's id.
    public typealias ID = Identifier<AppealCase>
    /// Where an appeal stands.
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// Waiting for a decision.
        case open
        /// The act stands.
        case upheld
        /// The act was undone.
        case reversed
    }

    /// The appeal's id.
    public var id: ID
    /// The person's words.
    public var statement: String
    /// Where it stands.
    public var status: Status
    /// When it was made.
    public var createdAt: Date
    /// When it was decided.
    public var decidedAt: Date?
    /// The act appealed against.
    public var action: AuditEntry
    /// Who appeals.
    public var person: ModeratedAccount

    init(_ appeal: Components.Schemas.AppealCase) throws {
        id = try .parse(appeal.value1.id)
        statement = appeal.value1.statement
        status = Status(rawValue: appeal.value1.status.rawValue) ?? .open
        createdAt = appeal.value1.createdAt
        decidedAt = appeal.value1.decidedAt
        action = try AuditEntry(appeal.value2.action)
        person = try ModeratedAccount(appeal.value2.person)
    }
}

/// The job queue as the staff see it: counts by state and kind, and the jobs that failed for good.
public struct JobOverview: Hashable, Sendable, Codable {
    /// How many jobs of a kind are in a state.
    public struct Count: Hashable, Sendable, Codable {
        /// `queued`, `running`, `done` or `dead`.
        public var state: String
        /// `push`, `mail`, `reminder_due`…
        public var kind: String
        /// How many.
        public var count: Int
    }

    /// A job that failed every attempt.
    public struct DeadJob: Hashable, Sendable, Codable {
        /// The job's id.
        public var id: String
        /// Its kind.
        public var kind: String
        /// How often it was tried.
        public var attempts: Int
        /// Its last error.
        public var lastError: String?
        /// When it gave up.
        public var finishedAt: Date?
    }

    /// Counts by state and kind.
    public var counts: [Count]
    /// The oldest job still waiting, when one is.
    public var oldestQueuedAt: Date?
    /// The dead jobs, newest first.
    public var dead: [DeadJob]

    init(_ overview: Components.Schemas.JobOverview) {
        counts = overview.counts.map { Count(state: $0.state.rawValue, kind: $0.kind, count: $0.count) }
        oldestQueuedAt = overview.oldestQueuedAt
        dead = overview.dead.map {
            DeadJob(id: $0.id, kind: $0.kind, attempts: $0.attempts, lastError: $0.lastError, finishedAt: $0.finishedAt)
        }
    }
}

/// A network or an email domain refused at registration.
public struct RegistrationBlock: Hashable, Sendable, Codable, Identifiable {
    /// A block's id.
    public typealias ID = Identifier<RegistrationBlock>
    /// What a block refuses.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// An address range (CIDR).
        case network
        /// An email domain.
        case emailDomain = "email_domain"
    }

    /// The block's id.
    public var id: ID
    /// What it refuses.
    public var kind: Kind
    /// The range in canonical CIDR notation, or the domain in lower case.
    public var value: String
    /// Why.
    public var reason: String
    /// Who made it (nil: the command line).
    public var createdBy: Person?
    /// When.
    public var createdAt: Date

    init(_ block: Components.Schemas.RegistrationBlock) throws {
        id = try .parse(block.id)
        kind = Kind(rawValue: block.kind.rawValue) ?? .network
        value = block.value
        reason = block.reason
        createdBy = try block.createdBy.map { try Person($0.value1) }
        createdAt = block.createdAt
    }
}

/// What abuse of registration and sign-in looks like lately.
public struct AbusePanel: Hashable, Sendable, Codable {
    /// A network's registrations and failed sign-ins.
    public struct Network: Hashable, Sendable, Codable {
        /// An IPv4 /24 or an IPv6 /48, in CIDR notation.
        public var network: String
        /// Accounts made from it.
        public var registrations: Int
        /// Sign-ins that failed from it.
        public var failedSignIns: Int
    }

    /// Since when the figures count.
    public var since: Date
    /// Refusals by their code.
    public var refusals: [String: Int]
    /// The busiest networks.
    public var networks: [Network]
    /// The blocks in force.
    public var blocks: [RegistrationBlock]

    init(_ panel: Components.Schemas.AbusePanel) throws {
        since = panel.since
        refusals = Dictionary(panel.refusals.map { ($0.code, $0.count) }, uniquingKeysWith: +)
        networks = panel.networks.map { Network(network: $0.network, registrations: $0.registrations, failedSignIns: $0.failedSignIns) }
        blocks = try panel.blocks.map(RegistrationBlock.init)
    }
}

/// A member of the staff.
public struct StaffMember: Hashable, Sendable, Codable, Identifiable {
    /// What a member of the staff may do.
    public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
        /// Decides reports and appeals, acts on accounts.
        case moderator
        /// Also names the staff, erases accounts, blocks registrations, settles jobs.
        case admin
    }

    /// The person.
    public var id: Person.ID
    /// Their name.
    public var name: String
    /// Their email.
    public var email: String
    /// Their role.
    public var role: Role

    init(_ member: Components.Schemas.StaffMember) throws {
        id = try .parse(member.id)
        name = member.name
        email = member.email
        role = Role(rawValue: member.role.rawValue) ?? .moderator
    }
}
